/**
 * The contract between the optimization loop and whoever proposes guidelines: the offline rule editor
 * (`ruleEditProposer`) or an optimizer LLM (`llmProposer`). The loop runs episodes, builds the
 * deterministic analysis, checks and evaluates candidates and selects; a proposer only turns analysis
 * into feedback and feedback into candidates.
 */
import type { ScenarioTask } from '../bench/scenario.js';
import type { Guideline, GuidelineTarget } from 'pagewise/compression';
import type {
  CompressionAnalysis,
  CompressionFeedback,
  ContrastivePair,
  FieldWeight,
  PairFeedback,
} from './analysis.js';
import type { EpisodeTrace } from './trace.js';

/** A proposed guideline, before the loop checks it. */
export interface CandidateDraft {
  /** The candidate; absent when the proposer's text could not be read as a guideline. */
  guideline?: Guideline;
  /** What changed: the rule edit, or the optimizer's own words. */
  edit: string;
  /** Why the draft is not a guideline (a parse error naming the line). */
  error?: string;
}

/** How {@link ProposerContext.ask} treats a reply. */
export interface AskOptions {
  /**
   * Why `text` cannot be used (no candidate that parses), or undefined when it can. A reply
   * it refuses is counted against the caps but neither kept in the progress file nor taken from it, so
   * a resumed run asks again instead of replaying an answer that could not be read.
   */
  unreadable?: (text: string) => string | undefined;
}

/** An earlier reply to the same request that could not be read, which the loop asks again about. */
export interface UnreadableReply {
  /** The attempt about to be made: 2 for the first retry. */
  attempt: number;
  /** Attempts the loop makes in all before it gives up on the step's candidates. */
  attempts: number;
  /** Why the previous reply could not be read. */
  error: string;
}

/** What the loop lends a proposer. */
export interface ProposerContext {
  target: GuidelineTarget;
  scenario: string;
  /**
   * Asks the optimizer model with one user message and returns its text. The loop caches answers in
   * the progress file (a resumed run asks nothing twice), counts calls and tokens, and stops at the caps.
   */
  ask(prompt: string, purpose: string, options?: AskOptions): Promise<string>;
  /**
   * Set when the loop asks for a step's candidates again because no candidate of the previous reply
   * could be read; a proposer may say so in its prompt.
   */
  retry?: UnreadableReply;
}

/** Proposes feedback and candidates for the utility (UT) and compression (CO) steps. */
export interface GuidelineProposer {
  /** `rule-edits`, or `llm(<model>)`. */
  readonly name: string;
  /** Feedback on one contrastive pair run under `incumbent`, given the deterministic analysis of it. */
  utilityFeedback(
    pair: ContrastivePair,
    analysis: PairFeedback,
    incumbent: Guideline,
    context: ProposerContext,
  ): Promise<PairFeedback>;
  /** Up to `k` revisions of `incumbent` that should fail less, from all the feedback. */
  utilityCandidates(
    incumbent: Guideline,
    feedback: readonly PairFeedback[],
    weights: readonly FieldWeight[],
    k: number,
    context: ProposerContext,
  ): Promise<CandidateDraft[]>;
  /** Feedback on one task that succeeded compressed under `incumbent`: what was kept and not needed. */
  compressionFeedback(
    task: ScenarioTask,
    trace: EpisodeTrace,
    analysis: CompressionFeedback,
    incumbent: Guideline,
    context: ProposerContext,
  ): Promise<CompressionFeedback>;
  /** Up to `k` revisions of `incumbent` that keep less, from all the feedback. */
  compressionCandidates(
    incumbent: Guideline,
    feedback: readonly CompressionFeedback[],
    analysis: CompressionAnalysis,
    k: number,
    context: ProposerContext,
  ): Promise<CandidateDraft[]>;
}
