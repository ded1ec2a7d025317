/**
 * A request as a provider's cache sees it: the AI SDK prompt and tools serialized, in the order providers
 * build their prompt (tools, system, messages), into segments of tokens. The serialization is
 * deterministic: a tool's JSON and a tool call's arguments are written with sorted keys, a part is its text.
 * The few framing tokens a provider adds around each message are not counted, as in the ledger's count.
 */
import type { LanguageModelV3FunctionTool, LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { CacheSegment } from './prompt-cache.js';
import { encodeTokensCached, type EncodingName } from './tokenizer.js';

/** JSON with object keys in sorted order, so equal values serialize equally whatever order built them. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/** The text of a tool as it is cached: its name, description and parameters. */
export function toolSegmentText(tool: { name: string; description?: string | undefined; parameters: unknown }): string {
  return stableJson({ name: tool.name, description: tool.description ?? '', parameters: tool.parameters });
}

/** The text of a tool call as it is cached: its name and its arguments (parsed when they are JSON text). */
export function toolCallSegmentText(toolName: string, input: unknown): string {
  if (typeof input === 'string') {
    try {
      return toolName + stableJson(JSON.parse(input));
    } catch {
      return toolName + input;
    }
  }
  return toolName + stableJson(input);
}

type ProviderOptions = Record<string, Record<string, unknown>> | undefined;

/** The breakpoint an Anthropic `cacheControl` (or `cache_control`) provider option sets, if any. */
function breakpointOf(options: ProviderOptions): CacheSegment['breakpoint'] {
  const anthropic = options?.['anthropic'];
  const control = (anthropic?.['cacheControl'] ?? anthropic?.['cache_control']) as { ttl?: unknown } | undefined;
  if (!control) return undefined;
  return control.ttl === '1h' ? 'long' : 'short';
}

function toolOutputText(output: unknown): string {
  const result = output as { type: string; value?: unknown; reason?: string };
  switch (result.type) {
    case 'text':
    case 'error-text':
      return String(result.value);
    case 'execution-denied':
      return result.reason ?? 'Tool call execution denied.';
    default:
      return JSON.stringify(result.value) ?? '';
  }
}

/** Appends the segments of the tools, each with the breakpoint at its end. */
export function toolSegments(
  tools: readonly LanguageModelV3FunctionTool[],
  encoding: EncodingName,
  out: CacheSegment[],
): void {
  for (const tool of tools)
    withBreakpoint(
      out,
      segmentFor(tool, () => toolSegmentText({ ...tool, parameters: tool.inputSchema }), encoding),
      breakpointOf(tool.providerOptions),
    );
}

function withBreakpoint(out: CacheSegment[], segment: CacheSegment, breakpoint: CacheSegment['breakpoint']): void {
  out.push(breakpoint ? { ...segment, breakpoint } : segment);
}

/** Appends the segments of one message, each with the breakpoint at its end. */
export function messageSegments(message: LanguageModelV3Message, encoding: EncodingName, out: CacheSegment[]): void {
  const first = out.length;
  switch (message.role) {
    case 'system':
      out.push({ text: message.content, tokens: encodeTokensCached(message.content, encoding) });
      break;
    case 'user':
      for (const part of message.content)
        if (part.type === 'text')
          withBreakpoint(
            out,
            segmentFor(part, () => part.text, encoding),
            breakpointOf(part.providerOptions),
          );
      break;
    case 'assistant': {
      // Text parts go out as one string (the chat protocols join them); each tool call on its own.
      let text = '';
      let textBreakpoint: CacheSegment['breakpoint'];
      let texts = 0;
      let only: object | undefined;
      for (const part of message.content)
        if (part.type === 'text') {
          text += part.text;
          textBreakpoint ??= breakpointOf(part.providerOptions);
          texts += 1;
          only = part;
        }
      if (text) {
        const segment =
          texts === 1 ? segmentFor(only!, () => text, encoding) : { text, tokens: encodeTokensCached(text, encoding) };
        withBreakpoint(out, segment, textBreakpoint);
      }
      for (const part of message.content)
        if (part.type === 'tool-call')
          withBreakpoint(
            out,
            segmentFor(part, () => toolCallSegmentText(part.toolName, part.input), encoding),
            breakpointOf(part.providerOptions),
          );
      break;
    }
    case 'tool':
      for (const part of message.content)
        if (part.type === 'tool-result')
          withBreakpoint(
            out,
            segmentFor(part, () => toolOutputText(part.output), encoding),
            breakpointOf(part.providerOptions),
          );
      break;
  }
  // A breakpoint on the message marks its last block.
  const messageBreakpoint = breakpointOf(message.providerOptions);
  const last = out[out.length - 1];
  if (messageBreakpoint && last && out.length > first && !last.breakpoint)
    out[out.length - 1] = { ...last, breakpoint: messageBreakpoint };
}

// Segments per tool and part object: a history's parts are the same objects from step to step (the
// runner renders each item once), so a step serializes and tokenizes only what is new.
const segmentsOf: Record<EncodingName, WeakMap<object, CacheSegment>> = {
  o200k_base: new WeakMap(),
  cl100k_base: new WeakMap(),
};

function segmentFor(source: object, text: () => string, encoding: EncodingName): CacheSegment {
  const cache = segmentsOf[encoding];
  let segment = cache.get(source);
  if (!segment) {
    const body = text();
    segment = { text: body, tokens: encodeTokensCached(body, encoding) };
    cache.set(source, segment);
  }
  return segment;
}

/**
 * The segments of a request as its provider caches it: tools, then system messages, then the other
 * messages in order, each tokenized with `encoding` (o200k by default). Anthropic `cacheControl` provider
 * options on a tool, message or part become breakpoints.
 *
 * @example
 * const segments = promptSegments(prompt, tools);
 * cache.observe(sessionKey, segments, Date.now());
 */
export function promptSegments(
  prompt: LanguageModelV3Prompt,
  tools: readonly LanguageModelV3FunctionTool[] = [],
  encoding: EncodingName = 'o200k_base',
): CacheSegment[] {
  const out: CacheSegment[] = [];
  toolSegments(tools, encoding, out);
  for (const message of prompt) messageSegments(message, encoding, out);
  return out;
}
