/**
 * Observation processors transform a tool result before it is appended to history: auto-paging and
 * observation compression plug in here, so the runner stays unaware of them.
 */
import type { ObservationCompression } from '../session/types.js';
import type { Ledger } from '../tokens/ledger.js';
import type { ContextItem } from './request.js';

/** A tool result on its way into history. */
export interface ToolObservation {
  toolCallId: string;
  toolName: string;
  /** The arguments the tool was called with. */
  input: unknown;
  /** What the model will see. */
  output: string;
  isError: boolean;
  /** Set by the processor that compressed `output`; the runner records it on the tool-result event. */
  compression?: ObservationCompression;
}

/** What observation processors may read and use. */
export interface ObservationContext {
  invocationId: string;
  agentName: string;
  sessionId: string;
  /** The text of the user message that started this invocation. */
  task: string;
  /** The history items of the request that produced the tool call. */
  recentItems: readonly ContextItem[];
  services: ReadonlyMap<string, unknown>;
  /** The run's ledger, so processors that call models record their cost. */
  ledger: Ledger;
  signal: AbortSignal;
  /**
   * Names of the tools the agent can call on its next request. Absent when the caller does not know (a
   * framework adapter that does not say): processors then assume a tool they point to exists.
   */
  toolNames?: ReadonlySet<string>;
}

/** One stage that may rewrite a tool result (for example into a receipt with a page handle). */
export interface ObservationProcessor {
  readonly name: string;
  process(observation: ToolObservation, context: ObservationContext): ToolObservation | Promise<ToolObservation>;
}
