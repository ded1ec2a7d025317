/**
 * The state one optimization shares between its phases: the resolved options, the tasks and their
 * values, the episode runner cached in the progress file, and the optimizer model behind the
 * proposer's `ask`, capped and cached.
 */
import type { ScenarioTask } from '../bench/scenario.js';
import {
  AbortedError,
  ConfigurationError,
  LimitExceededError,
  SystemError,
  modelLabel,
  resolveModel,
  type ModelSpec,
  countTokens,
} from 'pagewise';
import { DEFAULT_HISTORY_GUIDELINE, DEFAULT_OBSERVATION_GUIDELINE, type CompressorSpec } from 'pagewise/compression';
import type { Guideline } from 'pagewise/compression';
import { isOfflineModel, withRetry } from 'pagewise/internal';
import { runVariables } from './analysis.js';
import { forbiddenValues } from './candidate-check.js';
import { scenarioEvaluator, type EpisodeEvaluator, type EvaluationJob } from './evaluate.js';
import { guidelineHash, shortHash } from './hash.js';
import { llmProposer } from './llm-proposer.js';
import { optimizerCallRecorder } from './optimizer-log.js';
import { evaluationKey, OptimizeProgress } from './progress.js';
import type { GuidelineProposer, ProposerContext } from './proposer.js';
import { ruleEditProposer } from './rule-edits.js';
import { taskValuesFor, type TaskValues } from './task-values.js';
import { buildTrace, type EpisodeResult, type EpisodeTrace } from './trace.js';
import type { CandidateResult, OptimizeOptions, OptimizePhase, OptimizeProgressEvent } from './types.js';

/** See the module comment. */
export interface OptimizeRun {
  options: OptimizeOptions;
  start: Guideline;
  k: number;
  lambda: number;
  budget: number | undefined;
  seed: number;
  model: ModelSpec;
  compressor: string;
  proposer: GuidelineProposer;
  progress: OptimizeProgress;
  context: ProposerContext;
  tasks: ScenarioTask[];
  trainTasks: ScenarioTask[];
  valTasks: ScenarioTask[];
  taskById: Map<string, ScenarioTask>;
  forbidden: ReturnType<typeof forbiddenValues>;
  /** The id the candidates are named after (the start's, without a step suffix). */
  root: string;
  notes: string[];
  candidates: CandidateResult[];
  valuesFor(id: string): TaskValues;
  emit(event: OptimizeProgressEvent): void;
  limit<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs episodes, each one at most once over all runs of the same progress file. */
  run(phase: OptimizePhase, jobs: readonly EvaluationJob[]): Promise<EpisodeTrace[]>;
}

function limiter(limit: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await fn();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
}

/** Like Promise.all, but waits for every promise before throwing the first error, so none runs on unseen. */
export async function settleAll<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

function positiveInt(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new ConfigurationError('invalid-option', `${name} must be an integer ≥ ${min}, got ${value}.`);
  return value;
}

function isProposer(value: unknown): value is GuidelineProposer {
  return (
    typeof value === 'object' && value !== null && typeof (value as GuidelineProposer).utilityCandidates === 'function'
  );
}

function compressorLabel(spec: CompressorSpec | undefined, model: ModelSpec): string {
  if (spec === undefined) return isOfflineModel(model) ? 'extractive' : modelLabel(model);
  if (spec === 'extractive') return 'extractive';
  if (typeof spec === 'object' && 'compress' in spec) return spec.name;
  return isOfflineModel(spec) ? 'extractive' : modelLabel(spec);
}

function startGuideline(options: OptimizeOptions): Guideline {
  const { target } = options;
  const start = options.start ?? (target === 'observation' ? DEFAULT_OBSERVATION_GUIDELINE : DEFAULT_HISTORY_GUIDELINE);
  if (start.target !== target) {
    throw new ConfigurationError(
      'wrong-guideline-target',
      `The starting guideline "${start.id}" targets ${start.target}, but the optimization targets ${target}. Start from a ${target} guideline.`,
    );
  }
  return start;
}

function checkAbort(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new AbortedError('The optimization was interrupted; its progress is saved, and running it again resumes it.');
}

/** Attempts of an episode that met a provider failure before the optimization stops. */
export const INFRASTRUCTURE_ATTEMPTS = 3;

/**
 * The provider failure an episode met, if any: the agent's own model failing (an outage, a timeout, after
 * its retries), or a compression that fell back because its provider failed, not because of what the
 * compressor wrote. Such an episode says nothing about the guideline, so it is neither cached nor analysed.
 */
export function infrastructureFailure(result: EpisodeResult): string | undefined {
  if (result.errorFault === 'system') return result.error ?? 'the agent model failed';
  const entry = result.ledger.find((e) => e.error?.fault === 'system');
  return entry?.error ? `${entry.error.code}: ${entry.error.message}` : undefined;
}

/** Runs an episode, again when it met a provider failure; throws when every attempt did. */
async function evaluateOnInfrastructure(
  evaluator: EpisodeEvaluator,
  job: EvaluationJob,
  signal: AbortSignal | undefined,
): Promise<EpisodeResult> {
  let failure = '';
  for (let attempt = 1; attempt <= INFRASTRUCTURE_ATTEMPTS; attempt += 1) {
    checkAbort(signal);
    const result = await evaluator(job, signal);
    const infra = infrastructureFailure(result);
    if (infra === undefined) return result;
    failure = infra;
  }
  throw new SystemError(
    'optimize-infrastructure',
    `The ${job.mode} episode of task ${job.task.id} met a provider failure in each of ${INFRASTRUCTURE_ATTEMPTS} attempts (${failure}). ` +
      'It was not counted against the guideline; the progress is saved, so running the same command again resumes once the provider answers.',
    { retryable: true },
  );
}

/** The episode runner of a run: cached in the progress file, `concurrency` at a time. */
function episodeRunner(
  progress: OptimizeProgress,
  evaluator: EpisodeEvaluator,
  limit: <T>(fn: () => Promise<T>) => Promise<T>,
  valuesFor: (id: string) => TaskValues,
  emit: (event: OptimizeProgressEvent) => void,
  signal: AbortSignal | undefined,
): OptimizeRun['run'] {
  return async (phase, jobs) => {
    let done = 0;
    let resumed = 0;
    emit({ phase, done, total: jobs.length, resumed });
    const traces = jobs.map(async (job) => {
      const hash = job.guideline ? guidelineHash(job.guideline) : null;
      const key = evaluationKey(job.mode, hash, job.task);
      const cached = progress.evaluation(key);
      if (cached) {
        done += 1;
        resumed += 1;
        emit({ phase, done, total: jobs.length, resumed });
        return cached;
      }
      return limit(async () => {
        checkAbort(signal);
        const result = await evaluateOnInfrastructure(evaluator, job, signal);
        // The values whose presence in the last request the analysis compares: the task's facts and the
        // variables of its uncompressed run (this run's own, for the uncompressed run itself).
        const reference =
          job.mode === 'uncompressed' ? result : progress.evaluation(evaluationKey('uncompressed', null, job.task));
        const watched = [...valuesFor(job.task.id).facts, ...(reference ? runVariables(reference) : [])];
        const trace = buildTrace({ taskId: job.task.id, mode: job.mode, guidelineHash: hash }, result, [
          ...new Set(watched),
        ]);
        await progress.putEvaluation(key, trace);
        done += 1;
        emit({ phase, done, total: jobs.length, resumed });
        return trace;
      });
    });
    try {
      return await settleAll(traces);
    } finally {
      await progress.save();
    }
  };
}

/**
 * The proposer's `ask`: the optimizer model, each answer cached in the progress file, under the caps.
 * An answer the caller cannot read is counted but not cached (see `AskOptions.unreadable`).
 */
function optimizerAsk(
  options: OptimizeOptions,
  proposer: GuidelineProposer,
  progress: OptimizeProgress,
): ProposerContext['ask'] {
  const optimizer = options.optimizer ?? 'offline';
  // Resolved now, so a missing key fails before any episode runs.
  const optimizerModel = !isProposer(optimizer) && !isOfflineModel(optimizer) ? resolveModel(optimizer) : undefined;
  const label = isProposer(optimizer) ? optimizer.name : modelLabel(optimizer);
  const settingCalls = options.settingNames?.maxOptimizerCalls ?? 'maxOptimizerCalls';
  const settingTokens = options.settingNames?.maxOptimizerTokens ?? 'maxOptimizerTokens';
  const record = options.sessions ? optimizerCallRecorder(options.sessions, label) : undefined;
  const saved = progress.file
    ? `progress saved in ${progress.file}; run the same command again with a higher limit to resume`
    : 'no progress file (no output folder)';
  let pending = 0;
  return async (prompt, purpose, askOptions = {}) => {
    if (!optimizerModel) {
      throw new ConfigurationError(
        'no-optimizer-model',
        `The proposer "${proposer.name}" asked an optimizer model, but none is configured. Pass optimizer: "<provider:model>".`,
      );
    }
    const key = shortHash(`${label}\n${prompt}`);
    const cached = progress.optimizerCall(key);
    // An unreadable answer an older version cached is asked again, not replayed.
    const stale = cached !== undefined && askOptions.unreadable?.(cached.text) !== undefined;
    if (cached && !stale) return cached.text;
    checkAbort(options.signal);
    const used = progress.usage;
    if (options.maxOptimizerCalls !== undefined && used.calls + pending >= options.maxOptimizerCalls) {
      await progress.save();
      throw new LimitExceededError(
        'optimizer calls',
        options.maxOptimizerCalls,
        settingCalls,
        `next: ${purpose}; ${saved}`,
      );
    }
    if (options.maxOptimizerTokens !== undefined && used.tokens >= options.maxOptimizerTokens) {
      await progress.save();
      throw new LimitExceededError(
        'optimizer tokens',
        options.maxOptimizerTokens,
        settingTokens,
        `${used.tokens} spent; next: ${purpose}; ${saved}`,
      );
    }
    pending += 1;
    const started = performance.now();
    let text: string;
    let promptTokens: number;
    let completionTokens: number;
    try {
      const result = await withRetry(
        (signal) =>
          optimizerModel.doGenerate({
            prompt: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
            temperature: 0,
            abortSignal: signal,
          }),
        options.signal,
        options.modelTimeoutMs !== undefined ? { timeoutMs: options.modelTimeoutMs } : {},
      );
      text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      promptTokens = result.usage.inputTokens.total ?? countTokens(prompt);
      completionTokens = result.usage.outputTokens.total ?? countTokens(text);
    } finally {
      pending -= 1;
    }
    // Kept for the inspector before the progress file, so an unreadable reply can be looked at too.
    await record?.({ prompt, purpose, text, promptTokens, completionTokens, modelMs: performance.now() - started });
    if (askOptions.unreadable?.(text) !== undefined)
      await progress.countOptimizerCall({ promptTokens, completionTokens }, stale ? key : undefined);
    else await progress.putOptimizerCall(key, { purpose, text, promptTokens, completionTokens });
    return text;
  };
}

/** Checks the options, opens the progress file and prepares the tasks of a run. */
export async function openRun(options: OptimizeOptions): Promise<OptimizeRun> {
  const { scenario, target } = options;
  const train = positiveInt('train', options.train ?? 8, 1);
  const val = positiveInt('val', options.val ?? 8, 0);
  const seed = positiveInt('seed', options.seed ?? 1, 0);
  const candidateCount = positiveInt('candidates', options.candidates ?? 5, 1);
  const concurrency = positiveInt('concurrency', options.concurrency ?? 1, 1);
  const budget = options.budget === undefined ? undefined : positiveInt('budget', options.budget, 1);
  const lambda = options.lambda ?? 0.5;
  if (!Number.isFinite(lambda) || lambda < 0)
    throw new ConfigurationError('invalid-option', `lambda must be a number ≥ 0, got ${lambda}.`);
  const model = options.model ?? 'offline';
  const start = startGuideline(options);
  const optimizer = options.optimizer ?? 'offline';
  const proposer = isProposer(optimizer)
    ? optimizer
    : isOfflineModel(optimizer)
      ? ruleEditProposer()
      : llmProposer(modelLabel(optimizer));
  if (model !== 'offline' && typeof model === 'string') resolveModel(model);
  const valuesOf = options.taskValues ?? taskValuesFor(scenario);
  const compressor = compressorLabel(options.compressor, model);
  const progress = await OptimizeProgress.open(options.outDir, {
    scenario: scenario.name,
    target,
    model: modelLabel(model),
    compressor,
  });
  const ask = optimizerAsk(options, proposer, progress);
  const evaluator =
    options.evaluator ??
    scenarioEvaluator({
      scenario,
      target,
      model,
      ...(options.compressor !== undefined ? { compressor: options.compressor } : {}),
      ...(options.store ? { store: options.store } : {}),
      ...(options.sessions ? { sessions: options.sessions } : {}),
      ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
      ...(options.modelTimeoutMs !== undefined ? { modelTimeoutMs: options.modelTimeoutMs } : {}),
      ...(budget !== undefined ? { budget } : {}),
      ...(options.joint ? { joint: true } : {}),
    });
  const tasks = await scenario.prepare({ tasks: train + val, seed });
  if (tasks.length < train + val) {
    throw new ConfigurationError(
      'too-few-tasks',
      `Scenario "${scenario.name}" gave ${tasks.length} tasks for --train ${train} and --val ${val}; ask for fewer.`,
    );
  }
  const trainTasks = tasks.slice(0, train);
  const values = new Map<string, TaskValues>(tasks.map((t) => [t.id, valuesOf(t)]));
  const valuesFor = (id: string): TaskValues => values.get(id) ?? { facts: [], forbidden: [] };
  const emit = (event: OptimizeProgressEvent) => options.onProgress?.(event);
  const limit = limiter(concurrency);
  const notes: string[] = [];
  if (compressor === 'extractive' && proposer.name !== 'rule-edits')
    notes.push(
      `The compressor is the extractive backend, which follows only a guideline's rules block: edits to the template text cannot change any episode, so only candidates of ${proposer.name} that change the rules can score differently. Give a model as the compressor to optimize the template.`,
    );
  return {
    options,
    start,
    k: candidateCount,
    lambda,
    budget,
    seed,
    model,
    compressor,
    proposer,
    progress,
    context: { target, scenario: scenario.name, ask },
    tasks,
    trainTasks,
    valTasks: tasks.slice(train, train + val),
    taskById: new Map(tasks.map((t) => [t.id, t])),
    forbidden: forbiddenValues(
      trainTasks.map((t) => valuesFor(t.id).forbidden),
      start,
    ),
    root: start.id.replace(/-(?:ut|co)\d+$/u, ''),
    notes,
    candidates: [],
    valuesFor,
    emit,
    limit,
    run: episodeRunner(progress, evaluator, limit, valuesFor, emit, options.signal),
  };
}
