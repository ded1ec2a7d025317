/**
 * The benchmark harness: runs every task of a scenario under every strategy (and every N), keeps each
 * episode's outcome with its per-call ledger, and summarizes them per strategy. The saved runs are the
 * source of truth: a report is always computed from them, so it can be rebuilt without the model.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import {
  Agent,
  Runner,
  AbortedError,
  ConfigurationError,
  PagewiseError,
  SystemError,
  type ErrorFault,
  OfflineModel,
  type OfflinePolicy,
  contextWindowFor,
  modelLabel,
  resolveModel,
  type ModelSpec,
  Ledger,
  type LedgerEntry,
} from 'pagewise';
import {
  promptCacheRulesFor,
  type PromptCacheRules,
  DEFAULT_PRICES,
  promptCacheRulesForSpec,
  type ModelPrice,
} from 'pagewise/cost';
import type { AnyTool } from 'pagewise';
import { summarizeStrategy, type StrategyResult } from './metrics.js';
import type { BenchScenario, EpisodeContext, EpisodeOutcome, EpisodeRecording, ScenarioTask } from './scenario.js';
import { defaultBenchStrategies, getStrategy, setupStrategy, strategyTask } from './strategies.js';

/** Version of the saved-runs file written by {@link runBench} and read back by `readRuns`. */
export const BENCH_RUNS_SCHEMA = 1;

/** One model call as seen from outside the model: the request and what it answered. */
export interface CapturedCall {
  params: LanguageModelV3CallOptions;
  text: string;
  /** Tool calls with their raw argument text, as the model emitted them. */
  toolCalls: { toolCallId: string; toolName: string; input: string }[];
}

/**
 * Wraps a model so every call is reported to `onCall` after it returns, with its request. Scenarios use
 * it to look at the prompt of a particular call (the one that answered a question) without touching the
 * runner; streaming calls are reported when their stream ends.
 *
 * @example
 * const model = captureModelCalls(new OfflineModel(), ({ params, toolCalls }) => { ... });
 */
export function captureModelCalls(model: LanguageModelV3, onCall: (call: CapturedCall) => void): LanguageModelV3 {
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      wrapGenerate: async ({ doGenerate, params }) => {
        const result = await doGenerate();
        const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
        const toolCalls = result.content.flatMap((part) =>
          part.type === 'tool-call'
            ? [{ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input }]
            : [],
        );
        onCall({ params, text, toolCalls });
        return result;
      },
      wrapStream: async ({ doStream, params }) => {
        const result = await doStream();
        let text = '';
        const toolCalls: CapturedCall['toolCalls'] = [];
        const watch = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          transform(part, controller) {
            if (part.type === 'text-delta') text += part.delta;
            else if (part.type === 'tool-call')
              toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
            controller.enqueue(part);
          },
          flush() {
            onCall({ params, text, toolCalls });
          },
        });
        return { ...result, stream: result.stream.pipeThrough(watch) };
      },
    },
  });
}

/** True when `error` is a request refused for exceeding the context window. */
export function isWindowFailure(error: unknown): boolean {
  return PagewiseError.isInstance(error) && error.code === 'context-window-exceeded';
}

/**
 * The window an episode runs in: the context window, narrowed to the budget when the run has one, so a
 * request over the budget fails the episode as a request over the window would (0 = no limit).
 */
export function budgetWindow(window: number | undefined, budget: number | undefined): number | undefined {
  if (budget === undefined) return window;
  return window === undefined || window === 0 ? budget : Math.min(window, budget);
}

/** What {@link runAgentEpisode} needs: the scenario's agent, and how to build its model. */
export interface AgentEpisodeOptions {
  /** The scenario name, passed to the strategy factory. */
  scenario: string;
  context: EpisodeContext;
  task: ScenarioTask;
  agentName: string;
  instruction: string;
  tools: AnyTool[];
  /** The offline model's rules for this scenario, used when the model is `offline`. */
  offlinePolicy: OfflinePolicy;
  /** Model calls allowed in the episode (`limits.maxSteps`). */
  maxSteps: number;
  /** Services the scenario's tools or the strategy need; the strategy's own services are added to them. */
  services?: Record<string, unknown>;
  /** Sees every model call of the agent, with its prompt (see {@link captureModelCalls}). */
  onModelCall?: (call: CapturedCall) => void;
}

/** The raw result of {@link runAgentEpisode}, for the scenario to score. */
export interface AgentEpisodeRun {
  /** The final answer, or the error message when the episode failed. */
  text: string;
  /** Every model call of the episode, also when it failed part way. */
  ledger: LedgerEntry[];
  /** The error the episode ended in, if any. */
  error?: string;
  /** Who was at fault for {@link AgentEpisodeRun.error}, when it is a pagewise error (see {@link errorFaultOf}). */
  errorFault?: ErrorFault;
  windowFailure: boolean;
  wallMs: number;
}

/**
 * Who is at fault for an error that ended an episode: a pagewise error's own `fault` (a provider outage
 * or timeout is `system`, a missing key `configuration`, a bad tool call or a full window `model`), or
 * undefined for anything else.
 */
export function errorFaultOf(error: unknown): ErrorFault | undefined {
  return PagewiseError.isInstance(error) ? error.fault : undefined;
}

/**
 * Runs one episode of a scenario's agent under the context's strategy: the strategy's processors,
 * services and tools on a fresh agent and runner, the offline model with the scenario's policy when the
 * model is `offline`, else the model spec. Errors end the episode and are reported, not thrown, except
 * an abort.
 */
export async function runAgentEpisode(options: AgentEpisodeOptions): Promise<AgentEpisodeRun> {
  const { context } = options;
  const started = performance.now();
  const scenarioServices = options.services ?? {};
  const setup = await setupStrategy(context.strategy, {
    scenario: options.scenario,
    model: context.model,
    instruction: options.instruction,
    tools: options.tools,
    services: scenarioServices,
    task: strategyTask(options.task),
    ...(context.budget !== undefined ? { budget: context.budget } : {}),
  });
  const agent = new Agent({
    name: options.agentName,
    instruction: setup.instruction ? setup.instruction(options.instruction) : options.instruction,
    tools: [...options.tools, ...(setup.tools ?? [])],
    ...(setup.processors ? { processors: setup.processors } : {}),
    ...(setup.observationProcessors ? { observationProcessors: setup.observationProcessors } : {}),
  });
  let model: ModelSpec =
    context.model === 'offline' ? new OfflineModel({ policies: [options.offlinePolicy] }) : context.model;
  if (options.onModelCall) model = captureModelCalls(resolveModel(model), options.onModelCall);
  // The runner's ledger loses its entries when the run throws; this one keeps them for failed episodes.
  const ledger = new Ledger();
  const runner = new Runner({
    agent,
    model,
    limits: { maxSteps: options.maxSteps },
    ...(context.modelTimeoutMs !== undefined ? { retry: { timeoutMs: context.modelTimeoutMs } } : {}),
    ...(episodeCacheRules(context) ? { promptCache: episodeCacheRules(context)! } : {}),
    // Set explicitly: a wrapped instance would not be recognized by its label.
    contextWindow: budgetWindow(context.contextWindow ?? contextWindowFor(context.model), context.budget),
    services: { ...scenarioServices, ...setup.services },
    ledger,
    ...(context.recording ? { store: context.recording.store, callLog: context.recording.callLog } : {}),
  });
  try {
    const result = await runner.run({
      userId: 'bench',
      message: options.task.prompt,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    // The run's own ledger also holds compressor calls recorded by observation processors.
    return {
      text: result.text,
      ledger: result.ledger.entries.map((e) => ({ ...e, parts: { ...e.parts } })),
      windowFailure: false,
      wallMs: performance.now() - started,
    };
  } catch (error) {
    if (context.signal?.aborted) throw new AbortedError('The benchmark was aborted.');
    const message = error instanceof Error ? error.message : String(error);
    return {
      text: message,
      ledger: ledger.entries.map((e) => ({ ...e, parts: { ...e.parts } })),
      error: message,
      ...(errorFaultOf(error) ? { errorFault: errorFaultOf(error) } : {}),
      windowFailure: isWindowFailure(error),
      wallMs: performance.now() - started,
    };
  }
}

/** Progress of a benchmark, reported after each episode (and once at the start with `done` 0). */
export interface BenchProgress {
  done: number;
  total: number;
  /** The episode that just finished; absent in the first report. */
  last?: { strategy: string; n: number | null; taskId: string; success: boolean };
}

/**
 * The prompt-cache rules an episode models agent calls with: the context's (from `priceAs`), else OpenAI's
 * for the offline model, else undefined (the runner takes the model's provider's). Decided in the episode,
 * so an executor that passes no rules (a queue's workers) models an offline run as the in-process one does.
 */
export function episodeCacheRules(context: EpisodeContext): PromptCacheRules | undefined {
  return context.promptCache ?? (context.model === 'offline' ? promptCacheRulesFor('openai', 'gpt-4.1') : undefined);
}

/** Options of {@link runBench}. */
export interface BenchOptions {
  scenario: BenchScenario;
  /** Strategies to compare, in display order; all the scenario's but the labelled variants by default. */
  strategies?: readonly string[];
  /** Scenario size; several values run the whole set once per value (peak against N). The scenario's default when omitted. */
  n?: number | readonly number[];
  /** Tasks (episodes) per strategy and N. */
  tasks: number;
  seed: number;
  /** `offline` (the default) or any model spec. */
  model?: ModelSpec;
  /** Context window in tokens; 0 turns the check off; the model's known window when omitted. */
  contextWindow?: number;
  /**
   * Prompt-token budget given to every strategy (see {@link EpisodeContext.budget}): strategies fit to
   * it, and a request above it fails its episode.
   */
  budget?: number;
  /** Per-attempt timeout of every model call, in ms (see {@link EpisodeContext.modelTimeoutMs}). */
  modelTimeoutMs?: number;
  /** Prices (USD per million tokens) by model label or spec, over {@link DEFAULT_PRICES}. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /**
   * Price agent calls as this entry of the price table (e.g. `openai:gpt-4.1`) and model their prompt cache
   * under its provider's rules, whatever model ran: an offline run then costs what the same requests would
   * cost there. Without it, agent calls are priced as the model, and an offline run is modelled under
   * OpenAI's rules (its price is zero).
   */
  priceAs?: string;
  /** Episodes run at once by the in-process executor. Default 1 (the offline model is CPU-bound); raise it for hosted models. */
  concurrency?: number;
  /** Where the episodes run: {@link inProcessExecutor} (the default), or e.g. a queue of workers. */
  executor?: EpisodeExecutor;
  /** Where each episode run in this process keeps its session and call log (see {@link EpisodeBatch.recording}). */
  recording?: (job: EpisodeJob) => EpisodeRecording;
  signal?: AbortSignal;
  onProgress?: (progress: BenchProgress) => void;
}

/** One episode of a benchmark: a task under a strategy at an N; `index` is its place in the saved runs. */
export interface EpisodeJob {
  index: number;
  n: number | null;
  strategy: string;
  task: ScenarioTask;
}

/** What {@link runBench} hands an {@link EpisodeExecutor}. */
export interface EpisodeBatch {
  scenario: BenchScenario;
  /** The episodes in saved-runs order. */
  jobs: readonly EpisodeJob[];
  model: ModelSpec;
  /** As {@link BenchOptions.contextWindow}. */
  contextWindow?: number;
  /** As {@link BenchOptions.budget}. */
  budget?: number;
  /** As {@link BenchOptions.modelTimeoutMs}. */
  modelTimeoutMs?: number;
  /** The prompt-cache rules of agent calls (from {@link BenchOptions.priceAs} or the model). */
  promptCache?: PromptCacheRules;
  /** As {@link BenchOptions.concurrency}; an executor whose workers set their own may ignore it. */
  concurrency: number;
  /**
   * Where an episode keeps its session and call log; {@link inProcessExecutor} uses it, an executor whose episodes
   * run in other processes has none to hand them.
   */
  recording?: (job: EpisodeJob) => EpisodeRecording;
  signal?: AbortSignal;
  /** To be called once per finished episode, as it finishes (drives progress). */
  onEpisode: (job: EpisodeJob, outcome: EpisodeOutcome) => void;
}

/**
 * Runs the episodes of a benchmark and resolves with their outcomes in the order of `batch.jobs`, so
 * where an episode ran never changes the saved runs.
 */
export type EpisodeExecutor = (batch: EpisodeBatch) => Promise<EpisodeOutcome[]>;

/** The default executor: runs the episodes in this process, `batch.concurrency` at a time. */
export const inProcessExecutor: EpisodeExecutor = async (batch) => {
  const { jobs, scenario, signal } = batch;
  const outcomes: EpisodeOutcome[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      const job = jobs[index] as EpisodeJob;
      // A turn of the event loop between episodes, so that Ctrl-C is seen even when an episode never waits on I/O.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (signal?.aborted) throw new AbortedError('The benchmark was aborted.');
      const context: EpisodeContext = {
        strategy: job.strategy,
        model: batch.model,
        ...(batch.contextWindow !== undefined ? { contextWindow: batch.contextWindow } : {}),
        ...(batch.budget !== undefined ? { budget: batch.budget } : {}),
        ...(batch.modelTimeoutMs !== undefined ? { modelTimeoutMs: batch.modelTimeoutMs } : {}),
        ...(batch.promptCache ? { promptCache: batch.promptCache } : {}),
        ...(batch.recording ? { recording: batch.recording(job) } : {}),
        ...(signal ? { signal } : {}),
      };
      const outcome = await scenario.runEpisode(job.task, context);
      outcomes[index] = outcome;
      batch.onEpisode(job, outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(batch.concurrency, jobs.length) }, worker));
  return outcomes;
};

/** The parameters a benchmark ran with, as saved. */
export interface BenchParams {
  strategies: string[];
  /** The N values, or null when the scenario has no size parameter. */
  n: number[] | null;
  tasks: number;
  seed: number;
  /** The context window given, or null for the model's known window. */
  contextWindow: number | null;
  /** The prompt-token budget every strategy had, or null (absent in runs saved before budgets). */
  budget?: number | null;
}

/** One episode as saved: the scenario's outcome and the N it ran at. */
export interface BenchEpisode extends EpisodeOutcome {
  n: number | null;
}

/** Everything a benchmark run produced, enough to rebuild its report without calling the model. */
export interface BenchRuns {
  schema: typeof BENCH_RUNS_SCHEMA;
  scenario: string;
  /** The model label, `offline` for the rule-based model. */
  model: string;
  params: BenchParams;
  /** The price table costs were computed with. */
  prices: Record<string, ModelPrice>;
  /** The price entry agent calls were priced at, when not the model's ({@link BenchOptions.priceAs}). */
  priceAs?: string;
  /** ISO time the run started. */
  startedAt: string;
  /** Wall time of the whole run in milliseconds. */
  wallMs: number;
  episodes: BenchEpisode[];
}

/** A benchmark's runs and the per-strategy results computed from them. */
export interface BenchReport {
  runs: BenchRuns;
  results: StrategyResult[];
}

/** The per-strategy results of saved runs: one row per strategy and N, in the order of the params. */
export function summarizeRuns(
  runs: BenchRuns,
  prices: Readonly<Record<string, ModelPrice>> = runs.prices,
): StrategyResult[] {
  const rows: StrategyResult[] = [];
  for (const strategy of runs.params.strategies) {
    for (const size of runs.params.n ?? [null]) {
      const episodes = runs.episodes.filter((e) => e.strategy === strategy && e.n === size);
      if (episodes.length > 0)
        rows.push(
          summarizeStrategy(strategy, size, episodes, {
            model: runs.model,
            prices,
            ...(runs.priceAs !== undefined ? { priceAs: runs.priceAs } : {}),
          }),
        );
    }
  }
  return rows;
}

function resolveStrategies(scenario: BenchScenario, asked: readonly string[] | undefined): string[] {
  const known = [...scenario.strategies];
  const names = [...new Set(asked ?? defaultBenchStrategies(known))];
  if (names.length === 0)
    throw new ConfigurationError(
      'no-strategies',
      `No strategies to run. Strategies for "${scenario.name}": ${known.join(', ')}.`,
    );
  for (const name of names) {
    getStrategy(name, scenario.name);
    if (!known.includes(name)) {
      throw new ConfigurationError(
        'strategy-not-applicable',
        `Scenario "${scenario.name}" cannot run strategy "${name}". Its strategies: ${known.join(', ')}.`,
      );
    }
  }
  return names;
}

function resolveN(scenario: BenchScenario, requested: number | readonly number[] | undefined): number[] | null {
  if (requested === undefined) return scenario.defaultN === undefined ? null : [scenario.defaultN];
  if (scenario.defaultN === undefined) {
    throw new ConfigurationError(
      'no-size-parameter',
      `Scenario "${scenario.name}" has no size parameter N; leave out --n (use --tasks for the number of episodes).`,
    );
  }
  const values = [...new Set(typeof requested === 'number' ? [requested] : requested)].sort((a, b) => a - b);
  for (const value of values) {
    if (!Number.isInteger(value) || value < 1)
      throw new ConfigurationError('invalid-option', `N must be a positive integer, got ${value}.`);
  }
  if (values.length === 0) throw new ConfigurationError('invalid-option', 'Give at least one value of N.');
  return values;
}

/**
 * Runs a benchmark: for each N, the scenario's tasks (the same tasks for every strategy, so they compare
 * fairly), under each strategy. With the offline model the same seed gives the same numbers, timings
 * aside.
 *
 * @throws ConfigurationError for an unknown strategy, an N the scenario does not take, or a model whose
 *   key is missing (checked before the first episode).
 * @example
 * const report = await runBench({ scenario: getScenario('retail-tool-use'), tasks: 4, seed: 1 });
 * console.log(markdownReport(report));
 */
export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const { scenario } = options;
  const modelSpec = options.model ?? 'offline';
  const strategies = resolveStrategies(scenario, options.strategies);
  const nValues = resolveN(scenario, options.n);
  if (!Number.isInteger(options.tasks) || options.tasks < 1)
    throw new ConfigurationError('invalid-option', `tasks must be a positive integer, got ${options.tasks}.`);
  const concurrency = options.concurrency ?? 1;
  if (options.budget !== undefined && (!Number.isInteger(options.budget) || options.budget < 1))
    throw new ConfigurationError('invalid-option', `budget must be a positive integer, got ${options.budget}.`);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new ConfigurationError('invalid-option', `concurrency must be a positive integer, got ${concurrency}.`);
  const prices = { ...DEFAULT_PRICES, ...options.prices };
  if (options.priceAs !== undefined && !prices[options.priceAs])
    throw new ConfigurationError(
      'invalid-option',
      `priceAs "${options.priceAs}" is not in the price table; use one of ${Object.keys(prices).join(', ')}, or add it to the prices.`,
    );
  const promptCache = options.priceAs !== undefined ? promptCacheRulesForSpec(options.priceAs) : undefined;
  // A missing key should fail the run now, not every episode one by one.
  if (modelSpec !== 'offline') resolveModel(modelSpec);

  const startedAt = new Date();
  const started = performance.now();
  const jobs: EpisodeJob[] = [];
  for (const size of nValues ?? [null]) {
    const tasks = await scenario.prepare({
      ...(size === null ? {} : { n: size }),
      tasks: options.tasks,
      seed: options.seed,
    });
    for (const strategy of strategies)
      for (const task of tasks) jobs.push({ index: jobs.length, n: size, task, strategy });
  }

  let done = 0;
  options.onProgress?.({ done, total: jobs.length });
  const executor = options.executor ?? inProcessExecutor;
  const outcomes = await executor({
    scenario,
    jobs,
    model: modelSpec,
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    ...(options.budget !== undefined ? { budget: options.budget } : {}),
    ...(options.modelTimeoutMs !== undefined ? { modelTimeoutMs: options.modelTimeoutMs } : {}),
    ...(promptCache ? { promptCache } : {}),
    concurrency,
    ...(options.recording ? { recording: options.recording } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onEpisode: (job, outcome) => {
      done += 1;
      options.onProgress?.({
        done,
        total: jobs.length,
        last: { strategy: job.strategy, n: job.n, taskId: job.task.id, success: outcome.success },
      });
    },
  });
  const episodes: BenchEpisode[] = jobs.map((job, position) => {
    const outcome = outcomes[position];
    // A custom executor that loses an episode would otherwise skew every mean without a trace.
    if (!outcome)
      throw new SystemError(
        'executor-incomplete',
        `The episode executor returned no outcome for episode ${position} (${job.strategy}, task ${job.task.id}); this is a bug in the executor.`,
      );
    return { ...outcome, n: job.n };
  });

  const runs: BenchRuns = {
    schema: BENCH_RUNS_SCHEMA,
    scenario: scenario.name,
    model: modelLabel(modelSpec),
    params: {
      strategies,
      n: nValues,
      tasks: options.tasks,
      seed: options.seed,
      contextWindow: options.contextWindow ?? null,
      budget: options.budget ?? null,
    },
    prices,
    ...(options.priceAs !== undefined ? { priceAs: options.priceAs } : {}),
    startedAt: startedAt.toISOString(),
    wallMs: performance.now() - started,
    episodes,
  };
  return { runs, results: summarizeRuns(runs) };
}
