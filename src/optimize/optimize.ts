/**
 * ACON's guideline optimization loop for one compressor (history or observation): run the training
 * tasks uncompressed and with the starting guideline; the utility step (UT) takes the contrastive set
 * (succeeded uncompressed, failed compressed), gets feedback on each pair, asks for K revised guidelines
 * and keeps the one with the best training success; the compression step (CO) takes the tasks that
 * succeeded compressed, gets feedback on what was kept and not needed, asks for K shorter guidelines and
 * keeps the one with the best success − λ · cost, where cost is the compressed runs' tokens over the
 * uncompressed runs' on the same tasks. One UT round, one CO round; the incumbent stays in each pool,
 * so a step never makes things worse on the training split. Before and after are then measured on the
 * held-out split.
 *
 * Every candidate is checked (target, placeholders kept, no task-specific value of the training tasks)
 * before it is run. Episodes run through a small semaphore; finished episodes and optimizer answers are
 * kept in the progress file, so a run started again after an interruption repeats no finished work.
 */
import { placeholdersOf, type Guideline, type GuidelineTarget } from '../compression/guideline.js';
import { DEFAULT_HISTORY_GUIDELINE, DEFAULT_OBSERVATION_GUIDELINE } from '../compression/default-guidelines.js';
import { isOfflineModel, type CompressorSpec } from '../compression/resolve-compressor.js';
import type { BenchScenario, ScenarioTask } from '../bench/scenario.js';
import { AbortedError, ConfigurationError, LimitExceededError, PagewiseError } from '../errors.js';
import { modelLabel, resolveModel, type ModelSpec } from '../models/resolve.js';
import { withRetry } from '../models/retry.js';
import { countTokens } from '../tokens/tokenizer.js';
import {
  analyzePair,
  analyzeSuccess,
  contrastivePairs,
  openMapNormalizer,
  runVariables,
  compressionAnalysis,
  weighFields,
  type CompressionFeedback,
  type FieldCost,
  type FieldWeight,
  type PairFeedback,
} from './analysis.js';
import type { CompressorCallStore } from './call-store.js';
import { checkCandidate, forbiddenValues } from './candidate-check.js';
import { scenarioEvaluator, type EpisodeEvaluator, type EvaluationJob } from './evaluate.js';
import { guidelineHash, shortHash } from './hash.js';
import { llmProposer } from './llm-proposer.js';
import { evaluationKey, OptimizeProgress } from './progress.js';
import type { CandidateDraft, GuidelineProposer, ProposerContext } from './proposer.js';
import { writeOptimizeOutput } from './report.js';
import { ruleEditProposer } from './rule-edits.js';
import { taskValuesFor, type TaskValues, type TaskValuesFn } from './task-values.js';
import { buildTrace, type EpisodeTrace } from './trace.js';

/** Phases of an optimization, for progress reports. */
export type OptimizePhase =
  | 'baseline'
  | 'utility-feedback'
  | 'utility-candidates'
  | 'compression-feedback'
  | 'compression-candidates'
  | 'validation';

/** Progress of one phase: reported when it starts (`done` 0) and after each episode or optimizer call. */
export interface OptimizeProgressEvent {
  phase: OptimizePhase;
  done: number;
  total: number;
  /** Of `done`, how many came from the progress file of an earlier run. */
  resumed: number;
}

/** Options of {@link optimizeGuideline}. */
export interface OptimizeOptions {
  scenario: BenchScenario;
  target: GuidelineTarget;
  /** Training tasks (candidates are selected on them). Default 8. */
  train?: number;
  /** Held-out tasks (before and after are measured on them). Default 8. */
  val?: number;
  /** Seed of the task sampling. Default 1. */
  seed?: number;
  /** The agent's model. Default `offline`. */
  model?: ModelSpec;
  /** The compressor: default the extractive backend with the offline model, else the agent's model. */
  compressor?: CompressorSpec;
  /**
   * Who proposes candidates: `offline` (the default: rule edits from the deterministic analysis), a
   * model spec or instance (an optimizer LLM), or any {@link GuidelineProposer}.
   */
  optimizer?: ModelSpec | GuidelineProposer;
  /** K, candidates asked for per step. Default 5. */
  candidates?: number;
  /** λ of the compression step's selection, success − λ · cost. Default 0.5. */
  lambda?: number;
  /** The guideline to start from. Default the target's default guideline. */
  start?: Guideline;
  /** Folder of the progress file and the outputs; none keeps everything in memory. */
  outDir?: string;
  /** Episodes (and optimizer calls) run at once. Default 1. */
  concurrency?: number;
  /** Caps on optimizer model calls and tokens over the whole run, resumed runs included. */
  maxOptimizerCalls?: number;
  maxOptimizerTokens?: number;
  /** How limit errors name the caps (the CLI names its flags). */
  settingNames?: { maxOptimizerCalls?: string; maxOptimizerTokens?: string };
  /** Where the default evaluator records compressor calls for distillation (a custom `evaluator` records its own). */
  store?: CompressorCallStore;
  /** Runs episodes; default {@link scenarioEvaluator} over `scenario` (with `model`, `compressor`, `store`, `contextWindow`). */
  evaluator?: EpisodeEvaluator;
  /** The values of a task; default the scenario's (see `taskValuesFor`). */
  taskValues?: TaskValuesFn;
  /** Context window of the agent's requests. */
  contextWindow?: number;
  /** Guidelines to measure beside the result on both splits, as extra report rows (e.g. a hand-tuned one). */
  references?: readonly { label: string; guideline: Guideline }[];
  signal?: AbortSignal;
  onProgress?: (event: OptimizeProgressEvent) => void;
}

/** Success and cost of one guideline on a set of tasks. */
export interface SplitScore {
  tasks: number;
  /** Share of tasks that succeeded. */
  success: number;
  /** Mean over tasks of the largest agent request. */
  peakPromptTokens: number;
  /** Mean over tasks of cumulative agent prompt tokens plus compressor tokens. */
  costTokens: number;
  /** The tasks' total cost over their total cost uncompressed (1 for the uncompressed runs). */
  cost: number;
  /**
   * Total tokens over tasks solved: what a solved task costs, the fair comparison with a guideline
   * whose runs are cheap because they fail early. Null when none succeeded.
   */
  tokensPerSuccess: number | null;
}

/** A candidate of a step, as reported. */
export interface CandidateResult {
  step: 'utility' | 'compression';
  /** 0 for the incumbent of the step (the guideline it revises), then 1..K. */
  index: number;
  id: string;
  version: number;
  /** Behaviour hash; absent for a draft that did not parse. */
  hash?: string;
  edit: string;
  status: 'evaluated' | 'rejected';
  reason?: string;
  train?: SplitScore;
  /** The step's selection score: success (UT) or success − λ · cost (CO). */
  score?: number;
  chosen: boolean;
  /** The guideline as a file; absent for a draft that did not parse. */
  guideline?: Guideline;
}

/** One row of the before/after table. */
export interface OptimizeReportRow {
  /** `uncompressed`, `start`, `after UT`, `final`. */
  label: string;
  guideline?: { id: string; version: number; hash: string };
  split: 'train' | 'val';
  score: SplitScore;
  /** success − λ · cost. */
  selection: number;
}

/** The figures of a run. */
export interface OptimizeReport {
  scenario: string;
  target: GuidelineTarget;
  model: string;
  compressor: string;
  proposer: string;
  candidates: number;
  lambda: number;
  seed: number;
  trainTasks: string[];
  valTasks: string[];
  rows: OptimizeReportRow[];
  /** Optimizer model calls and tokens, this run and the ones it resumed. */
  usage: { calls: number; tokens: number };
  /** The verdict on the held-out split, final against start. */
  verdict: { improved: boolean; text: string };
  notes: string[];
}

/** Everything a run produced. */
export interface OptimizeResult {
  start: Guideline;
  afterUtility: Guideline;
  chosen: Guideline;
  candidates: CandidateResult[];
  feedback: { utility: PairFeedback[]; compression: CompressionFeedback[] };
  weights: FieldWeight[];
  unneeded: FieldCost[];
  report: OptimizeReport;
}

function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
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
async function settleAll<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Success and cost of `traces` against the uncompressed traces of the same tasks. */
export function scoreSplit(
  traces: readonly EpisodeTrace[],
  uncompressed: ReadonlyMap<string, EpisodeTrace>,
): SplitScore {
  const base = traces.reduce((sum, t) => sum + (uncompressed.get(t.taskId)?.costTokens ?? 0), 0);
  const total = traces.reduce((sum, t) => sum + t.costTokens, 0);
  const solved = traces.filter((t) => t.success).length;
  return {
    tasks: traces.length,
    success: mean(traces.map((t) => (t.success ? 1 : 0))),
    peakPromptTokens: mean(traces.map((t) => t.peakPromptTokens)),
    costTokens: mean(traces.map((t) => t.costTokens)),
    cost: base === 0 ? 1 : total / base,
    tokensPerSuccess: solved === 0 ? null : total / solved,
  };
}

/** success − λ · cost: the compression step's selection rule. */
export function selectionScore(score: SplitScore, lambda: number): number {
  return score.success - lambda * score.cost;
}

/**
 * The index of the winner of a step's pool (the incumbent first): the utility step takes the best
 * success, then the lower cost; the compression step the best success − λ · cost. Ties go to the
 * earlier entry, so a candidate must be strictly better to replace the incumbent.
 */
export function selectCandidate(pool: readonly SplitScore[], step: 'utility' | 'compression', lambda: number): number {
  let best = 0;
  for (let i = 1; i < pool.length; i += 1) {
    const a = pool[i] as SplitScore;
    const b = pool[best] as SplitScore;
    const better =
      step === 'utility'
        ? a.success > b.success || (a.success === b.success && a.cost < b.cost)
        : selectionScore(a, lambda) > selectionScore(b, lambda);
    if (better) best = i;
  }
  return best;
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

function verdictOf(
  start: OptimizeReportRow | undefined,
  final: OptimizeReportRow | undefined,
  lambda: number,
): { improved: boolean; text: string } {
  if (!start || !final) return { improved: false, text: 'no held-out tasks: nothing to compare' };
  const a = start.score;
  const b = final.score;
  const pct = (n: number) => `${Math.round(n * 100)}%`;
  const figures = `success ${pct(a.success)} → ${pct(b.success)}, cost ${a.cost.toFixed(2)} → ${b.cost.toFixed(2)} of the uncompressed tokens, success − ${lambda}·cost ${start.selection.toFixed(3)} → ${final.selection.toFixed(3)}`;
  if (final.guideline?.hash === start.guideline?.hash)
    return { improved: false, text: `unchanged (no candidate beat the start on the training split); ${figures}` };
  const dominates = b.success >= a.success && b.cost <= a.cost && (b.success > a.success || b.cost < a.cost);
  if (dominates)
    return {
      improved: true,
      text: `better on the held-out split: ${b.success > a.success ? 'higher success' : 'equal success'} at ${b.cost < a.cost ? 'fewer' : 'equal'} tokens; ${figures}`,
    };
  if (final.selection > start.selection) {
    const perSuccess =
      b.tokensPerSuccess !== null && (a.tokensPerSuccess === null || b.tokensPerSuccess < a.tokensPerSuccess)
        ? `, and fewer tokens per solved task (${a.tokensPerSuccess === null ? 'none solved' : Math.round(a.tokensPerSuccess).toLocaleString('en-US')} → ${Math.round(b.tokensPerSuccess).toLocaleString('en-US')})`
        : '';
    return {
      improved: true,
      text: `better on the held-out split by success − λ·cost (${b.success > a.success ? 'higher success at a higher token cost per task' : 'lower cost at a lower success'}${perSuccess}); ${figures}`,
    };
  }
  return { improved: false, text: `not better on the held-out split; ${figures}` };
}

/**
 * Runs the loop (see the module comment) and, with `outDir`, writes the chosen guideline, every
 * candidate with its scores, the feedback and the report there.
 *
 * @throws ConfigurationError for bad options, a progress file of another run, or a missing key;
 *   LimitExceededError when an optimizer cap is reached (progress saved; run again with a higher cap);
 *   AbortedError when `signal` aborts (progress saved).
 * @example
 * const result = await optimizeGuideline({ scenario: getScenario('retail-tool-use'), target: 'observation', outDir: 'optimize-out' });
 * console.log(result.report.verdict.text);
 */
export async function optimizeGuideline(options: OptimizeOptions): Promise<OptimizeResult> {
  const { scenario, target, signal } = options;
  const train = positiveInt('train', options.train ?? 8, 1);
  const val = positiveInt('val', options.val ?? 8, 0);
  const seed = positiveInt('seed', options.seed ?? 1, 0);
  const k = positiveInt('candidates', options.candidates ?? 5, 1);
  const concurrency = positiveInt('concurrency', options.concurrency ?? 1, 1);
  const lambda = options.lambda ?? 0.5;
  if (!Number.isFinite(lambda) || lambda < 0)
    throw new ConfigurationError('invalid-option', `lambda must be a number ≥ 0, got ${lambda}.`);
  const model = options.model ?? 'offline';
  const start = options.start ?? (target === 'observation' ? DEFAULT_OBSERVATION_GUIDELINE : DEFAULT_HISTORY_GUIDELINE);
  if (start.target !== target) {
    throw new ConfigurationError(
      'wrong-guideline-target',
      `The starting guideline "${start.id}" targets ${start.target}, but the optimization targets ${target}. Start from a ${target} guideline.`,
    );
  }
  const optimizer = options.optimizer ?? 'offline';
  const proposer = isProposer(optimizer)
    ? optimizer
    : isOfflineModel(optimizer)
      ? ruleEditProposer()
      : llmProposer(modelLabel(optimizer));
  // Resolved now, so a missing key fails before any episode runs.
  const optimizerModel = !isProposer(optimizer) && !isOfflineModel(optimizer) ? resolveModel(optimizer) : undefined;
  if (model !== 'offline' && typeof model === 'string') resolveModel(model);
  const valuesOf = options.taskValues ?? taskValuesFor(scenario.name);
  const compressor = compressorLabel(options.compressor, model);

  const progress = await OptimizeProgress.open(options.outDir, {
    scenario: scenario.name,
    target,
    model: modelLabel(model),
    compressor,
  });
  const evaluator =
    options.evaluator ??
    scenarioEvaluator({
      scenario,
      target,
      model,
      ...(options.compressor !== undefined ? { compressor: options.compressor } : {}),
      ...(options.store ? { store: options.store } : {}),
      ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    });
  const limit = limiter(concurrency);
  const notes: string[] = [];
  const emit = (event: OptimizeProgressEvent) => options.onProgress?.(event);

  const tasks = await scenario.prepare({ tasks: train + val, seed });
  if (tasks.length < train + val) {
    throw new ConfigurationError(
      'too-few-tasks',
      `Scenario "${scenario.name}" gave ${tasks.length} tasks for --train ${train} and --val ${val}; ask for fewer.`,
    );
  }
  const trainTasks = tasks.slice(0, train);
  const valTasks = tasks.slice(train, train + val);
  const taskById = new Map(tasks.map((t) => [t.id, t]));
  const values = new Map<string, TaskValues>(tasks.map((t) => [t.id, valuesOf(t)]));
  const valuesFor = (id: string): TaskValues => values.get(id) ?? { facts: [], forbidden: [] };
  const forbidden = forbiddenValues(
    trainTasks.map((t) => valuesFor(t.id).forbidden),
    start,
  );

  // ---- running episodes, cached in the progress file ----------------------------------------------
  const checkAbort = () => {
    if (signal?.aborted)
      throw new AbortedError(
        'The optimization was interrupted; its progress is saved, and running it again resumes it.',
      );
  };
  async function run(phase: OptimizePhase, jobs: readonly EvaluationJob[]): Promise<EpisodeTrace[]> {
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
        checkAbort();
        const result = await evaluator(job, signal);
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
  }
  const byTask = (traces: readonly EpisodeTrace[]) => new Map(traces.map((t) => [t.taskId, t]));
  const compressedJobs = (list: readonly ScenarioTask[], guideline: Guideline): EvaluationJob[] =>
    list.map((task) => ({ task, mode: 'compressed', guideline }));

  // ---- optimizer model calls, cached and capped ---------------------------------------------------
  let pending = 0;
  const label = isProposer(optimizer) ? optimizer.name : modelLabel(optimizer);
  const settingCalls = options.settingNames?.maxOptimizerCalls ?? 'maxOptimizerCalls';
  const settingTokens = options.settingNames?.maxOptimizerTokens ?? 'maxOptimizerTokens';
  const saved = progress.file
    ? `progress saved in ${progress.file}; run the same command again with a higher limit to resume`
    : 'no progress file (no output folder)';
  const context: ProposerContext = {
    target,
    scenario: scenario.name,
    async ask(prompt, purpose) {
      if (!optimizerModel) {
        throw new ConfigurationError(
          'no-optimizer-model',
          `The proposer "${proposer.name}" asked an optimizer model, but none is configured. Pass optimizer: "<provider:model>".`,
        );
      }
      const key = shortHash(`${label}\n${prompt}`);
      const cached = progress.optimizerCall(key);
      if (cached) return cached.text;
      checkAbort();
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
      let text: string;
      let promptTokens: number;
      let completionTokens: number;
      try {
        const result = await withRetry(
          (s) =>
            optimizerModel.doGenerate({
              prompt: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
              temperature: 0,
              abortSignal: s,
            }),
          signal,
        );
        text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
        promptTokens = result.usage.inputTokens.total ?? countTokens(prompt);
        completionTokens = result.usage.outputTokens.total ?? countTokens(text);
      } finally {
        pending -= 1;
      }
      await progress.putOptimizerCall(key, { purpose, text, promptTokens, completionTokens });
      return text;
    },
  };

  // ---- one step: feedback, candidates, checks, evaluation, selection ------------------------------
  const candidates: CandidateResult[] = [];
  const root = start.id.replace(/-(?:ut|co)\d+$/u, '');
  async function step(
    name: 'utility' | 'compression',
    incumbent: Guideline,
    incumbentTrain: readonly EpisodeTrace[],
    drafts: readonly CandidateDraft[],
    uncompressed: ReadonlyMap<string, EpisodeTrace>,
  ): Promise<Guideline> {
    const tag = name === 'utility' ? 'ut' : 'co';
    const incumbentScore = scoreSplit(incumbentTrain, uncompressed);
    const incumbentEntry: CandidateResult = {
      step: name,
      index: 0,
      id: incumbent.id,
      version: incumbent.version,
      hash: guidelineHash(incumbent),
      edit: name === 'utility' ? 'the starting guideline' : 'the guideline chosen by the utility step',
      status: 'evaluated',
      train: incumbentScore,
      score: name === 'utility' ? incumbentScore.success : selectionScore(incumbentScore, lambda),
      chosen: false,
      guideline: incumbent,
    };
    const entries: CandidateResult[] = [];
    const seen = new Map<string, number>([[guidelineHash(incumbent), 0]]);
    drafts.forEach((draft, i) => {
      const index = i + 1;
      const base = {
        step: name,
        index,
        id: `${root}-${tag}${index}`,
        version: incumbent.version + 1,
        edit: draft.edit,
        chosen: false,
      } as const;
      if (!draft.guideline) {
        entries.push({ ...base, status: 'rejected', reason: draft.error ?? 'not a guideline' });
        return;
      }
      const description = `${name === 'utility' ? 'UT' : 'CO'} candidate ${index} of ${root}: ${draft.guideline.description && draft.guideline.description !== draft.edit ? draft.guideline.description : draft.edit}`;
      const guideline: Guideline = { ...draft.guideline, id: base.id, version: base.version, description };
      const hash = guidelineHash(guideline);
      const reason = checkCandidate(guideline, incumbent, forbidden);
      const same = seen.get(hash);
      if (reason !== undefined) entries.push({ ...base, hash, status: 'rejected', reason, guideline });
      else if (same !== undefined)
        entries.push({
          ...base,
          hash,
          status: 'rejected',
          reason: same === 0 ? 'the same as the incumbent' : `the same as candidate ${same}`,
          guideline,
        });
      else {
        seen.set(hash, index);
        entries.push({ ...base, hash, status: 'evaluated', guideline });
      }
    });
    const evaluated = entries.filter((e) => e.status === 'evaluated');
    const traces = await run(
      name === 'utility' ? 'utility-candidates' : 'compression-candidates',
      evaluated.flatMap((e) => compressedJobs(trainTasks, e.guideline as Guideline)),
    );
    evaluated.forEach((e, i) => {
      e.train = scoreSplit(traces.slice(i * trainTasks.length, (i + 1) * trainTasks.length), uncompressed);
      e.score = name === 'utility' ? e.train.success : selectionScore(e.train, lambda);
    });
    const pool = [incumbentEntry, ...evaluated];
    const winner = pool[
      selectCandidate(
        pool.map((e) => e.train as SplitScore),
        name,
        lambda,
      )
    ] as CandidateResult;
    winner.chosen = true;
    candidates.push(incumbentEntry, ...entries);
    return winner.guideline as Guideline;
  }

  try {
    // Baseline: every task uncompressed, the training tasks with the starting guideline.
    // Uncompressed first: a compressed run's analysis compares against the uncompressed run of its task.
    const uncompressedTraces = await run(
      'baseline',
      tasks.map((task) => ({ task, mode: 'uncompressed' as const })),
    );
    const startTrainTraces = await run('baseline', compressedJobs(trainTasks, start));
    const uncompressed = byTask(uncompressedTraces);
    const startTrain = byTask(startTrainTraces);

    // Utility step.
    const pairs = contrastivePairs(trainTasks, uncompressed, startTrain);
    const startSucceeded = startTrainTraces.filter((t) => t.success);
    const weights = weighFields(pairs, startSucceeded, valuesFor);
    const normalize = openMapNormalizer([...pairs.map((p) => p.compressed), ...startSucceeded]);
    let utilityFeedback: PairFeedback[] = [];
    let afterUtility = start;
    if (pairs.length === 0) {
      notes.push('Utility step skipped: no training task succeeded uncompressed and failed compressed.');
      const score = scoreSplit(startTrainTraces, uncompressed);
      candidates.push({
        step: 'utility',
        index: 0,
        id: start.id,
        version: start.version,
        hash: guidelineHash(start),
        edit: 'the starting guideline (step skipped)',
        status: 'evaluated',
        train: score,
        score: score.success,
        chosen: true,
        guideline: start,
      });
    } else {
      let done = 0;
      emit({ phase: 'utility-feedback', done, total: pairs.length, resumed: 0 });
      utilityFeedback = await settleAll(
        pairs.map((pair) =>
          limit(async () => {
            const feedback = await proposer.utilityFeedback(
              pair,
              analyzePair(pair, valuesFor(pair.task.id), normalize),
              start,
              context,
            );
            emit({ phase: 'utility-feedback', done: (done += 1), total: pairs.length, resumed: 0 });
            return feedback;
          }),
        ),
      );
      const drafts = await proposer.utilityCandidates(start, utilityFeedback, weights, k, context);
      if (drafts.length < k)
        notes.push(
          `Utility step: ${drafts.length} of ${k} candidates proposed (${proposer.name} found no more distinct edits).`,
        );
      afterUtility = await step('utility', start, startTrainTraces, drafts, uncompressed);
    }

    // Compression step, from the utility step's choice.
    const utilityTrain = await run('compression-candidates', compressedJobs(trainTasks, afterUtility));
    const succeeded = utilityTrain.filter((t) => t.success);
    const coAnalysis = compressionAnalysis(
      succeeded.map((t) => ({
        compressed: t,
        ...(uncompressed.get(t.taskId) ? { uncompressed: uncompressed.get(t.taskId) as EpisodeTrace } : {}),
        values: valuesFor(t.taskId),
      })),
      afterUtility.rules,
    );
    const unneeded = coAnalysis.unneeded;
    let compressionFeedback: CompressionFeedback[] = [];
    let chosen = afterUtility;
    if (succeeded.length === 0) {
      notes.push("Compression step skipped: no training task succeeded with the utility step's guideline.");
    } else {
      let done = 0;
      emit({ phase: 'compression-feedback', done, total: succeeded.length, resumed: 0 });
      compressionFeedback = await settleAll(
        succeeded.map((trace) =>
          limit(async () => {
            const task = taskById.get(trace.taskId) as ScenarioTask;
            const feedback = await proposer.compressionFeedback(
              task,
              trace,
              analyzeSuccess(trace, unneeded),
              afterUtility,
              context,
            );
            emit({ phase: 'compression-feedback', done: (done += 1), total: succeeded.length, resumed: 0 });
            return feedback;
          }),
        ),
      );
      const drafts = await proposer.compressionCandidates(afterUtility, compressionFeedback, coAnalysis, k, context);
      if (drafts.length < k)
        notes.push(
          `Compression step: ${drafts.length} of ${k} candidates proposed (${proposer.name} found no more distinct edits).`,
        );
      chosen = await step('compression', afterUtility, utilityTrain, drafts, uncompressed);
    }

    // Held-out split: before and after.
    const distinct = [...new Map([start, afterUtility, chosen].map((g) => [guidelineHash(g), g])).values()];
    const valTraces = await run(
      'validation',
      distinct.flatMap((g) => compressedJobs(valTasks, g)),
    );
    const trainOf = new Map<string, EpisodeTrace[]>([
      [guidelineHash(start), startTrainTraces],
      [guidelineHash(afterUtility), utilityTrain],
    ]);
    const chosenTrain =
      trainOf.get(guidelineHash(chosen)) ?? (await run('validation', compressedJobs(trainTasks, chosen)));
    trainOf.set(guidelineHash(chosen), chosenTrain);
    const valOf = new Map(
      distinct.map((g, i) => [guidelineHash(g), valTraces.slice(i * valTasks.length, (i + 1) * valTasks.length)]),
    );

    for (const ref of options.references ?? []) {
      if (ref.guideline.target !== target)
        throw new ConfigurationError(
          'wrong-guideline-target',
          `The reference guideline "${ref.guideline.id}" targets ${ref.guideline.target}, not ${target}.`,
        );
      const hash = guidelineHash(ref.guideline);
      if (!trainOf.has(hash)) trainOf.set(hash, await run('validation', compressedJobs(trainTasks, ref.guideline)));
      if (!valOf.has(hash)) valOf.set(hash, await run('validation', compressedJobs(valTasks, ref.guideline)));
    }

    const rows: OptimizeReportRow[] = [];
    const row = (labelText: string, split: 'train' | 'val', traces: readonly EpisodeTrace[], guideline?: Guideline) => {
      if (traces.length === 0) return;
      const score = scoreSplit(traces, uncompressed);
      rows.push({
        label: labelText,
        ...(guideline
          ? { guideline: { id: guideline.id, version: guideline.version, hash: guidelineHash(guideline) } }
          : {}),
        split,
        score,
        selection: selectionScore(score, lambda),
      });
    };
    for (const split of ['train', 'val'] as const) {
      const list = split === 'train' ? trainTasks : valTasks;
      row(
        'uncompressed',
        split,
        list.map((t) => uncompressed.get(t.id) as EpisodeTrace),
      );
      const shown: (readonly [string, Guideline])[] = [
        ['start', start],
        ['after UT', afterUtility],
        ['final', chosen],
        ...(options.references ?? []).map((r) => [r.label, r.guideline] as const),
      ];
      for (const [labelText, g] of shown)
        row(labelText, split, (split === 'train' ? trainOf : valOf).get(guidelineHash(g)) ?? [], g);
    }
    const report: OptimizeReport = {
      scenario: scenario.name,
      target,
      model: modelLabel(model),
      compressor,
      proposer: proposer.name,
      candidates: k,
      lambda,
      seed,
      trainTasks: trainTasks.map((t) => t.id),
      valTasks: valTasks.map((t) => t.id),
      rows,
      usage: progress.usage,
      verdict: verdictOf(
        rows.find((r) => r.split === 'val' && r.label === 'start'),
        rows.find((r) => r.split === 'val' && r.label === 'final'),
        lambda,
      ),
      notes,
    };
    // Placeholders are checked per candidate; this guards the loop itself.
    const missing = placeholdersOf(start.template).filter((p) => !placeholdersOf(chosen.template).includes(p));
    if (missing.length > 0)
      throw new PagewiseError({
        code: 'optimizer-bug',
        fault: 'system',
        message: `The chosen guideline lost placeholders ${missing.join(', ')}; this is a bug in the optimizer.`,
      });
    const result: OptimizeResult = {
      start,
      afterUtility,
      chosen,
      candidates,
      feedback: { utility: utilityFeedback, compression: compressionFeedback },
      weights,
      unneeded,
      report,
    };
    if (options.outDir) await writeOptimizeOutput(options.outDir, result);
    return result;
  } finally {
    await progress.save();
  }
}
