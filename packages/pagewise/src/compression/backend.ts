/**
 * The compressor backend contract: what C_obs and C_hist hand a backend (the guideline and every value
 * its template can name) and what they get back (the text the agent will see). The LLM backend renders
 * the guideline as its prompt; the extractive backend obeys the guideline's rules; the naive summarizer
 * ignores the guideline. Processors pick a backend with {@link CompressorSpec}.
 */
import { createHash } from 'node:crypto';
import type { ContextItem } from '../context/request.js';
import type { Ledger } from '../tokens/ledger.js';
import { renderGuideline, type Guideline, type GuidelineTarget, type GuidelineValues } from './guideline.js';
import { fenceQuoted } from './transcript.js';

/** What a compressor is asked to compress. */
export interface CompressionInput {
  /** `observation` (C_obs) or `history` (C_hist). */
  target: GuidelineTarget;
  /** The guideline that says what to keep. */
  guideline: Guideline;
  /** The invocation's task (its first user message). */
  task: string;
  /**
   * As text: for an observation, the recent steps shown as context; for history, the steps to fold
   * into the summary.
   */
  history: string;
  /** History only: the steps to fold in, as whole turns, for backends that work on structure. */
  turns: readonly (readonly ContextItem[])[];
  /** History only: the summary being extended (`accumulate`); empty before the first compression and in `reset`. */
  previousSummary: string;
  /**
   * History only: the current objective, what the kept recent turns are about (the latest user message,
   * the calls still open). Relevance of the folded steps is ranked against the task and this, never
   * against the folded steps themselves.
   */
  objective?: string;
  /** Observation only: the tool result to compress; empty for history. */
  observation: string;
  /** Observation only: the tool that produced it. */
  toolName?: string;
  /**
   * Observation only: the call that produced it, as `tool {"arg":"value"}`: what the agent asked this
   * result for (a search query, the id it looked up), the most direct statement of what in it matters.
   */
  call?: string;
  /** The output budget in tokens (the guideline's `{{max_tokens}}`). */
  maxTokens: number;
}

/** Who is compressing, for the ledger and cancellation. */
export interface CompressionContext {
  /** The run's ledger; model-backed compressors record their calls in it as kind `compressor`. */
  ledger?: Ledger;
  signal?: AbortSignal;
  invocationId: string;
  /** The agent the compressor works for. */
  agentName: string;
}

/** A compressor backend: turns a {@link CompressionInput} into the text the agent sees instead. */
export interface CompressorBackend {
  /** A short name for processor names and reports (`extractive`, `llm(openai:gpt-4.1-mini)`). */
  readonly name: string;
  compress(input: CompressionInput, context: CompressionContext): Promise<string>;
}

/**
 * The values of every placeholder for a compression input, so a guideline renders whatever subset of
 * them its template uses.
 */
export function guidelineValues(input: CompressionInput): Required<GuidelineValues> {
  return {
    task: input.task,
    previous_summary: input.previousSummary,
    history: input.history,
    observation: input.observation,
    max_tokens: input.maxTokens,
  };
}

/**
 * The prompt a model compressor is sent (and a distillation example is made of): the guideline rendered
 * with the tool output and the transcript fenced, so an instruction inside a tool result reads as
 * quoted data. The boundary comes from a hash of the input, so the same input gives the same prompt
 * (recorded prompts match sent ones); fence markers inside the text are neutralized whatever the boundary.
 */
export function compressorPrompt(input: CompressionInput): string {
  const values = guidelineValues(input);
  const fence = (text: string, label: string) =>
    text === ''
      ? text
      : fenceQuoted(
          text,
          `${label}_${createHash('sha256').update(label).update('\0').update(text).digest('hex').slice(0, 16)}`,
        );
  return renderGuideline(input.guideline, {
    ...values,
    observation: fence(input.observation, 'observation'),
    history: fence(input.history, 'history'),
  });
}
