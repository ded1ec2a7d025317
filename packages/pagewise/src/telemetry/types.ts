/**
 * What the runner reports to telemetry, as plain interfaces: the runner depends on these only, so it
 * loads no tracing library unless a telemetry implementation is given.
 */
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { ToolCallRecord } from '../session/types.js';
import type { Ledger } from '../tokens/ledger.js';

/** What one agent model call sent and got back, for telemetry that records content. */
export interface ModelCallContent {
  /** The prompt as sent to the model (system, history, tool results); an array of its own, kept as it was. */
  prompt: LanguageModelV3Prompt;
  /** The response's text. */
  text: string;
  /** The response's tool calls. */
  toolCalls: readonly ToolCallRecord[];
  finishReason?: string | undefined;
}

/** What is known when an invocation starts. */
export interface InvocationInfo {
  agentName: string;
  invocationId: string;
  sessionId: string;
  userId: string;
  appName: string;
  /** The invocation's ledger: model calls and compressor calls are reported from its entries. */
  ledger: Ledger;
}

/** The telemetry of one invocation. */
export interface InvocationTelemetry {
  /** Runs one tool call (its observation processors included) inside its span. */
  tool<T>(call: { toolName: string; toolCallId: string }, agentName: string, run: () => Promise<T>): Promise<T>;
  /** Runs one context or observation processor inside its span. */
  processor<T>(name: string, kind: 'context' | 'observation', run: () => Promise<T>): Promise<T>;
  /**
   * The content of the agent model call the runner is about to record in the ledger (called right before
   * it, in the same step). Implementations that do not record content may leave it out.
   */
  modelContent?(content: ModelCallContent): void;
  /** Ends the invocation; `error` when it failed. */
  end(error?: unknown): void;
}

/** Receives the runner's invocations. */
export interface RunTelemetry {
  startInvocation(info: InvocationInfo): InvocationTelemetry;
  /** The telemetry of a running invocation, for call sites that know only its id. */
  current(invocationId: string): InvocationTelemetry | undefined;
}
