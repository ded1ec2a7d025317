/**
 * The types of a guideline optimization: its options, the scores of a split, the candidates and the
 * report. Kept apart from the loop so the report writer and the loop do not import each other.
 */
import type { BenchScenario } from '../bench/scenario.js';
import type { ModelSpec } from 'pagewise';
import type { CompressorSpec, Guideline, GuidelineTarget } from 'pagewise/compression';
import type { CompressionFeedback, FieldCost, FieldWeight, PairFeedback } from './analysis.js';
import type { CompressorCallStore } from 'pagewise/store-kit';
import type { EpisodeEvaluator, EpisodeSessions } from './evaluate.js';
import type { GuidelineProposer } from './proposer.js';
import type { TaskValuesFn } from './task-values.js';

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
  /**
   * Prompt-token budget of the agent's requests: a candidate whose compressed runs send a larger request
   * on any training task is rejected, as is one that costs more tokens than the starting guideline (so the
   * result compresses at least as much as where it started). None: no budget, cost weighed by λ only.
   */
  budget?: number;
  /**
   * Optimize the observation and the history compressor together: every compressed episode runs both,
   * the other one with the candidate's rules (see `jointPartner`). Default false.
   */
  joint?: boolean;
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
  /**
   * Where the default evaluator keeps each episode's session and model calls, and the loop its
   * optimizer model's calls (one session, see `optimizerCallRecorder`), for `pagewise inspect` (a
   * custom `evaluator` keeps its own episodes); not kept when undefined.
   */
  sessions?: EpisodeSessions;
  /** Runs episodes; default {@link scenarioEvaluator} over `scenario` (with `model`, `compressor`, `store`, `sessions`, `contextWindow`). */
  evaluator?: EpisodeEvaluator;
  /** The values of a task; default the scenario's (see `taskValuesFor`). */
  taskValues?: TaskValuesFn;
  /** Context window of the agent's requests. */
  contextWindow?: number;
  /** Per-attempt timeout of every model call (the agent's and the optimizer's), in ms. Default 120,000. */
  modelTimeoutMs?: number;
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
  /** The largest agent request of any task (what a budget is checked against). */
  maxPeakPromptTokens: number;
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
  /**
   * Set on a reply of the optimizer that held no candidate that could be read: which of the step's
   * attempts it was (the step asks again, up to `CANDIDATE_REPLY_ATTEMPTS` in all).
   */
  attempt?: number;
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
  /** The prompt-token budget candidates were held to, or null. */
  budget: number | null;
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
