/**
 * The one shape every imported trace is normalized to before replay: the system prompt, the history as
 * the context processors see it (user messages, model responses with their tool calls, tool results),
 * and the outcome when the source recorded one.
 */
import type { ContextItem } from 'pagewise/context';

/** The formats `pagewise replay` detects. */
export const TRACE_FORMATS = [
  'openai-chat',
  'ai-sdk',
  'openai-agents',
  'atif',
  'pagewise-session',
  'otel-genai',
] as const;

/** One of {@link TRACE_FORMATS}. */
export type TraceFormat = (typeof TRACE_FORMATS)[number];

/** What each format is, for error messages and docs. */
export const TRACE_FORMAT_DESCRIPTIONS: Readonly<Record<TraceFormat, string>> = {
  'openai-chat':
    'OpenAI Chat Completions messages (role, content, tool_calls, tool_call_id): an array, {messages, reward?} records, or JSONL',
  'ai-sdk': 'AI SDK ModelMessage[] (content parts of type tool-call / tool-result)',
  'openai-agents': 'OpenAI Agents SDK run items or history (function_call / function_call_result items)',
  atif: 'ATIF trajectories (schema_version "ATIF-v1.x", steps with tool_calls and observation.results)',
  'pagewise-session': 'pagewise sessions (appName, userId, sessionId, events), as stored by any SessionStore',
  'otel-genai':
    'OpenTelemetry GenAI spans as OTLP JSON (resourceSpans) or a plain array of SDK spans, with message content (gen_ai.input.messages / gen_ai.output.messages or gen_ai.tool.call.arguments / gen_ai.tool.call.result)',
};

/** A trace normalized for replay. */
export interface ReplayTrace {
  /** Unique within one replay: the source's own id when it has one, else file and record. */
  id: string;
  format: TraceFormat;
  /** Where the trace was read from (`file`, `file:line`, `file#3`). */
  source: string;
  /** The system prompt, counted in every request. */
  system: string;
  /** The history in order; every assistant item is one model call. */
  items: ContextItem[];
  /** The outcome's reward when the source recorded one (any scale; 0 to 1 is usual). */
  reward?: number;
  /** Whether the run succeeded, when the source recorded it. */
  success?: boolean;
  /**
   * What the reader kept but could not read as recorded, each naming the file, line or record, the field and
   * the call: a tool call whose arguments are not valid JSON is replayed with its arguments as text.
   */
  warnings?: string[];
}

/**
 * The weight of a trace's values: its reward clamped to [0, 1], 1 or 0 for a recorded success or failure,
 * 1 when the source recorded no outcome. Values used in successful runs count; those of failed runs do not.
 */
export function outcomeWeight(trace: Pick<ReplayTrace, 'reward' | 'success'>): number {
  if (trace.reward !== undefined && Number.isFinite(trace.reward)) return Math.min(1, Math.max(0, trace.reward));
  if (trace.success !== undefined) return trace.success ? 1 : 0;
  return 1;
}

/** Whether the trace carries an outcome (a reward or a success flag). */
export function hasOutcome(trace: Pick<ReplayTrace, 'reward' | 'success'>): boolean {
  return trace.reward !== undefined || trace.success !== undefined;
}

/** The number of tool results of a trace. */
export function toolResultCount(trace: Pick<ReplayTrace, 'items'>): number {
  return trace.items.filter((item) => item.type === 'tool-result').length;
}
