/**
 * One model call of a step and the reading of its response: generate or stream with retries under the
 * run's signal, then turn the response into text and tool-call records, refusing what cannot be run
 * (oversized or malformed arguments, more calls than a step allows) before any tool sees it.
 */
import { createHash } from 'node:crypto';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { withRetryLazy, type RetryOptions } from '../models/retry.js';
import { streamWithRetry } from '../models/stream-retry.js';
import type { ToolCallRecord } from '../session/types.js';
import type { RunLimits } from './limits.js';
import { jsonDepth } from '../util/json-scan.js';

/** What a model call returned, with its duration. */
export interface ModelResponse {
  content: LanguageModelV3Content[];
  /** Tokens as the provider reported them; `cacheRead` and `cacheWrite` are prompt tokens read from and written to its cache. */
  usage: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
  finishReason?: string;
  ms: number;
}

/** A text delta of a streamed response. */
export interface TextDelta {
  type: 'text-delta';
  agentName: string;
  delta: string;
}

/** Calls the model once (streaming or not), yielding text deltas as they arrive; returns the response. */
export async function* callModel(
  model: LanguageModelV3,
  callOptions: LanguageModelV3CallOptions,
  options: { streaming: boolean; signal: AbortSignal; retry?: RetryOptions; agentName: string },
): AsyncGenerator<TextDelta, ModelResponse> {
  const { signal, retry } = options;
  const start = performance.now();
  if (!options.streaming) {
    const result = await withRetryLazy((s) => model.doGenerate(withSignal(callOptions, s)), signal, retry);
    return {
      content: result.content,
      usage: usageOf(result.usage),
      finishReason: result.finishReason.unified,
      ms: performance.now() - start,
    };
  }
  const response: ModelResponse = { content: [], usage: {}, ms: 0 };
  let text = '';
  const parts: AsyncIterable<LanguageModelV3StreamPart> = streamWithRetry(
    (s) => model.doStream({ ...callOptions, abortSignal: s }),
    signal,
    retry,
  );
  for await (const part of parts) {
    if (part.type === 'text-delta') {
      text += part.delta;
      yield { type: 'text-delta', agentName: options.agentName, delta: part.delta };
    } else if (part.type === 'tool-call') response.content.push(part);
    else if (part.type === 'finish') {
      response.usage = usageOf(part.usage);
      response.finishReason = part.finishReason.unified;
    }
  }
  if (text) response.content.unshift({ type: 'text', text });
  response.ms = performance.now() - start;
  return response;
}

function usageOf(usage: LanguageModelV3Usage): ModelResponse['usage'] {
  const { total, cacheRead, cacheWrite } = usage.inputTokens;
  return {
    input: total,
    output: usage.outputTokens.total,
    ...(cacheRead !== undefined ? { cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWrite } : {}),
  };
}

/**
 * The call options with the attempt's signal, read only when the model reads `abortSignal` (see
 * withRetry): a model that never looks at it costs no signal.
 */
function withSignal(callOptions: LanguageModelV3CallOptions, signal: () => AbortSignal): LanguageModelV3CallOptions {
  return Object.defineProperty({ ...callOptions }, 'abortSignal', {
    get: signal,
    enumerable: true,
    configurable: true,
  });
}

/** A response read into what the step stores and runs. */
export interface ParsedResponse {
  text: string;
  /** The calls kept in the model event: those that run, then those refused one by one. */
  toolCalls: ToolCallRecord[];
  /** Why a kept call's arguments were refused, by call id. */
  invalidArgs: Map<string, string>;
  /** Calls beyond those kept: not stored one by one, only counted in a summary message. */
  dropped: { count: number; names: string[] };
}

/** Deepest nesting of arguments accepted; deeper JSON would overflow the stack of later serializers. */
export const MAX_ARGUMENT_DEPTH = 64;

/** Longest tool name kept as the model wrote it (the providers' own limit); longer ones are cut. */
const MAX_NAME_CHARS = 64;
/** Longest call id kept as written; longer ones are cut and suffixed with a hash so they stay distinct. */
const MAX_ID_CHARS = 128;
/** Calls over `maxToolCallsPerStep` refused one by one; any beyond are dropped into one summary message. */
export const MAX_REFUSED_CALLS = 16;
/** Names of dropped calls listed in the summary message. */
const LISTED_DROPPED_NAMES = 10;

/** A model-written name cut to a length safe to store and echo, saying how long it was. */
export function clipName(name: string): string {
  return name.length <= MAX_NAME_CHARS ? name : `${name.slice(0, MAX_NAME_CHARS)}…[${name.length} characters]`;
}

function clipId(id: string): string {
  if (id.length <= MAX_ID_CHARS) return id;
  return `${id.slice(0, 48)}…${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
}

/**
 * Reads a response's text and tool calls. The first `maxToolCallsPerStep` calls run; the next
 * {@link MAX_REFUSED_CALLS} are kept and refused one by one; any further ones are dropped and only counted, so one response with
 * thousands of calls stores a bounded number of events.
 */
export function parseResponse(content: readonly LanguageModelV3Content[], limits: RunLimits): ParsedResponse {
  let text = '';
  const toolCalls: ToolCallRecord[] = [];
  const invalidArgs = new Map<string, string>();
  const dropped = { count: 0, names: [] as string[] };
  const keep = limits.maxToolCallsPerStep + MAX_REFUSED_CALLS;
  for (const part of content) {
    if (part.type === 'text') text += part.text;
    if (part.type !== 'tool-call') continue;
    const toolName = clipName(part.toolName);
    if (toolCalls.length >= keep) {
      dropped.count += 1;
      if (dropped.names.length < LISTED_DROPPED_NAMES && !dropped.names.includes(toolName))
        dropped.names.push(toolName);
      continue;
    }
    const toolCallId = clipId(part.toolCallId);
    const bytes = Buffer.byteLength(part.input);
    if (bytes > limits.maxToolArgumentBytes) {
      // Oversized arguments are not kept in history: they would crowd out everything else.
      toolCalls.push({ toolCallId, toolName, input: `[${bytes} bytes of arguments omitted]` });
      invalidArgs.set(
        toolCallId,
        `the arguments are ${bytes} bytes, over the limit maxToolArgumentBytes of ${limits.maxToolArgumentBytes} (setting limits.maxToolArgumentBytes). Send shorter arguments.`,
      );
      continue;
    }
    const parsed = parseArgs(part.input);
    if (parsed.ok) toolCalls.push({ toolCallId, toolName, input: parsed.value });
    else {
      // Keep the raw text in the event, so the model sees what it wrote.
      toolCalls.push({ toolCallId, toolName, input: part.input.slice(0, 20_000) });
      invalidArgs.set(
        toolCallId,
        `the arguments of ${toolName} are not valid (${parsed.reason}). Send a JSON object that matches the tool's schema.`,
      );
    }
  }
  return { text, toolCalls, invalidArgs, dropped };
}

/** The message that stands for dropped calls in the session, so the model learns what happened. */
export function droppedCallsMessage(dropped: ParsedResponse['dropped'], limits: RunLimits): string {
  return (
    `[pagewise] Your last response made ${dropped.count} more tool calls than could be kept; they were not run ` +
    `(at most ${limits.maxToolCallsPerStep} run per step, setting limits.maxToolCallsPerStep). ` +
    `Tools named: ${dropped.names.join(', ')}${dropped.count > dropped.names.length ? ', …' : ''}. Call fewer tools per response.`
  );
}

function parseArgs(input: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (input.trim() === '') return { ok: true, value: {} };
  const depth = jsonDepth(input);
  if (depth > MAX_ARGUMENT_DEPTH)
    return { ok: false, reason: `nested ${depth} levels deep; at most ${MAX_ARGUMENT_DEPTH} are accepted` };
  try {
    return { ok: true, value: JSON.parse(input) as unknown };
  } catch (error) {
    return { ok: false, reason: `not JSON: ${(error as Error).message}` };
  }
}
