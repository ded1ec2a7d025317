/**
 * The contract between the benchmark harness and a scenario: the scenario generates tasks with gold
 * answers and runs one episode of a task under a named context strategy; the harness measures.
 */
import type { ErrorFault, LedgerEntry, SessionStore, ModelSpec } from 'pagewise';
import type { PromptCacheRules } from 'pagewise/cost';
import type { PageStore } from 'pagewise/paging';
import type { CallLog } from 'pagewise/store-kit';

/** Parameters every scenario understands. */
export interface ScenarioParams {
  /** Scenario size (reports in the corpus, questions per episode, ...); scenario-specific default. */
  n?: number;
  /** Number of tasks (episodes) to run. */
  tasks: number;
  seed: number;
}

/** A task: an id and whatever the scenario needs to run and score it (JSON-serializable). */
export interface ScenarioTask {
  id: string;
  /** The user message that starts the episode. */
  prompt: string;
  [key: string]: unknown;
}

/**
 * Where an episode keeps its session and every model call as sent, so a benchmark run can be looked at with
 * `pagewise inspect` like any other run.
 */
export interface EpisodeRecording {
  store: SessionStore;
  callLog: CallLog;
  /** Where paged documents are stored, for scenarios that page; their own in-memory store when omitted. */
  pageStore?: PageStore;
}

/** What the harness hands an episode. */
export interface EpisodeContext {
  strategy: string;
  /** `offline` (the scenario's rule-based policy) or any model spec. */
  model: ModelSpec;
  /** Context window in tokens; 0 turns the check off; undefined = the model's known window. */
  contextWindow?: number;
  /**
   * The prompt-token budget of the run: strategies fit their context to it, and a request above it
   * fails the episode like a request above the context window.
   */
  budget?: number;
  /**
   * How long one model call (one attempt) may take before it is retried, in ms; the runner's default
   * when undefined. A hung hosted model then costs at most the attempts times this.
   */
  modelTimeoutMs?: number;
  /** The prompt-cache rules agent calls are modelled with (the runner's `promptCache`); its default when undefined. */
  promptCache?: PromptCacheRules;
  /** Where to keep the episode's session and call log; nothing is kept when omitted. */
  recording?: EpisodeRecording;
  signal?: AbortSignal;
}

/** The outcome of one episode. */
export interface EpisodeOutcome {
  taskId: string;
  strategy: string;
  success: boolean;
  /** The final answer text, or the error message. */
  answer: string;
  /** Every model call of the episode, compressor calls included. */
  ledger: LedgerEntry[];
  /**
   * Who was at fault for the error the episode ended in (`system`: a provider outage or timeout, which
   * says nothing about the strategy), when known.
   */
  errorFault?: ErrorFault;
  /** Evidence recall in [0,1] where the scenario defines it. */
  evidenceRecall?: number;
  /** Exact match / F1 where the scenario defines them (real models). */
  exactMatch?: number;
  f1?: number;
  /**
   * Tokens of the distinct pages the episode's prompts held, each page once (see `PageTally`), for the cost floor;
   * absent when the scenario does not count them.
   */
  pageTokens?: number;
  /** True when the episode failed because a request exceeded the context window. */
  windowFailure: boolean;
  /** Set when the episode ended in an error. */
  error?: string;
  wallMs: number;
}

/**
 * The values of a task the guideline optimizer works with: the facts its answer depends on (to find
 * which ones a compressor lost) and the texts no guideline may contain (ids, names, amounts).
 */
export interface ScenarioTaskValues {
  /** Canonical values the task's answer depends on. */
  facts: string[];
  /** Texts as written that no guideline may contain. */
  forbidden: string[];
}

/** A benchmark scenario. */
export interface BenchScenario {
  readonly name: string;
  readonly description: string;
  /** Strategies this scenario can run, in display order. */
  readonly strategies: readonly string[];
  /** Default `n` when the user gives none. */
  readonly defaultN?: number;
  /** Generates the tasks (deterministic for a seed). */
  prepare(params: ScenarioParams): Promise<ScenarioTask[]>;
  /** Runs one episode. Errors are reported in the outcome, not thrown (except aborts). */
  runEpisode(task: ScenarioTask, context: EpisodeContext): Promise<EpisodeOutcome>;
  /** The values of a task, for the guideline optimizer; without it the optimizer reads the task's `gold` scalars. */
  readonly taskValues?: (task: ScenarioTask) => ScenarioTaskValues;
}
