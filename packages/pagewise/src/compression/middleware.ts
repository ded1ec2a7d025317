/**
 * ACON compression for any AI SDK call: a LanguageModelV3Middleware whose `transformParams` applies
 * C_obs to tool results above T_obs and C_hist to a history above T_hist, inside `generateText` or
 * `streamText`, without the pagewise runner. It runs the same processors the runner does: the prompt
 * is read as session events (stable ids per message), compactions are kept by the middleware per
 * conversation, and the result is written back as messages, untouched ones as they were (files,
 * reasoning and provider options included).
 *
 * The AI SDK sends the whole conversation at every step, so work is remembered: a tool result is
 * compressed once (by call id and content), and a summary is folded forward as the conversation grows.
 */
import { createHash, randomUUID } from 'node:crypto';
import { tool as aiTool, type Tool as AiTool } from 'ai';
import { z } from 'zod';
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
  LanguageModelV3Middleware,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import { eventsToItems } from '../context/history.js';
import type { ObservationContext } from '../context/observation.js';
import type { ContextItem, ContextRequest, ProcessorContext } from '../context/request.js';
import { isStepBlock } from '../models/step-block.js';
import { fenceBoundary, neutralize } from '../paging/fence.js';
import { PagingService } from '../paging/service.js';
import type { CompactionEvent, Session, SessionEvent, ToolCallRecord } from '../session/types.js';
import { Ledger } from '../tokens/ledger.js';
import { countTokens } from '../tokens/tokenizer.js';
import { historyCompressor, type HistoryCompressorOptions } from './history.js';
import { OBSERVATION_THRESHOLD, observationCompressor, type ObservationCompressorOptions } from './observation.js';
import { resolveCompressor, type CompressorSpec } from './resolve-compressor.js';
import { headAtWordBoundary } from './token-budget.js';
import { fenceQuoted, withoutHandle } from './transcript.js';
import { isShownResult, rememberShown } from '../paging/result-pages.js';

/** Options of {@link compressionMiddleware}. */
export interface CompressionMiddlewareOptions {
  /** The compressor of both parts unless a part names its own. Default `'extractive'`. */
  compressor?: CompressorSpec;
  /** C_obs settings, or `false` to leave tool results alone. */
  observation?: false | Omit<ObservationCompressorOptions, 'service'>;
  /** C_hist settings, or `false` to leave the history alone. */
  history?: false | Omit<HistoryCompressorOptions, 'name'>;
  /** Holds raw tool results. Default: a new in-memory service. */
  service?: PagingService;
  /** The session the raw results are filed under (page namespace `session:<id>`). Default `ai-sdk`. */
  sessionId?: string;
  /** Receives every compressor model call. Default: a new ledger, exposed as `ledger`. */
  ledger?: Ledger;
  /** The name compressor calls are recorded under. Default `ai-sdk`. */
  agentName?: string;
  /** Conversations whose compactions are remembered (least recently used dropped first). Default 64. */
  maxConversations?: number;
  /**
   * Largest result of the middleware's `page_in` tool, in tokens: a raw result longer than this is shown
   * up to it, with a line saying so. Default 16,000.
   */
  maxPageInTokens?: number;
}

/** The middleware, with what it keeps. */
export interface CompressionMiddleware extends LanguageModelV3Middleware {
  /** Compressor calls, as kind `compressor` entries. */
  readonly ledger: Ledger;
  /** The paging service holding raw tool results; `page_in` tools bound to it follow the handles. */
  readonly service: PagingService;
  /** The raw text behind a handle (`tool://...`), byte for byte, or undefined. */
  restore(uri: string): Promise<string | undefined>;
  /**
   * The tool that follows the handles, as AI SDK tools: `page_in` returns the raw results of the handles it
   * is given as its own result. Give it to the call (`tools: { ...yourTools, ...compression.tools }`), or
   * use the `page_in` of {@link createAiSdkPaging} with this middleware's `service`, which loads them
   * into the instruction instead. A call that offers no tool named `page_in` gets no handle: its
   * compressed results say only how large the original was, so the model is never pointed at a tool it
   * does not have.
   */
  readonly tools: { readonly page_in: AiTool };
}

const sha = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 24);

// Tool results remembered as compressed (or as too small to compress): enough for long tool loops of
// many conversations; the least recently used are forgotten and, if seen again, compressed again.
const REMEMBERED_RESULTS = 4096;

type ToolMessage = Extract<LanguageModelV3Message, { role: 'tool' }>;
type ToolResultOutput = Extract<ToolMessage['content'][number], { type: 'tool-result' }>['output'];

/** The text of a tool output as the model reads it, and whether it is an error. */
function outputText(output: ToolResultOutput): { text: string; isError: boolean; compressible: boolean } {
  switch (output.type) {
    case 'text':
      return { text: output.value, isError: false, compressible: true };
    case 'json':
      return { text: JSON.stringify(output.value), isError: false, compressible: true };
    case 'error-text':
      return { text: output.value, isError: true, compressible: false };
    case 'error-json':
      return { text: JSON.stringify(output.value), isError: true, compressible: false };
    case 'execution-denied':
      return {
        text: `execution denied${output.reason ? `: ${output.reason}` : ''}`,
        isError: true,
        compressible: false,
      };
    case 'content':
      return {
        text: output.value.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n'),
        isError: false,
        compressible: false,
      };
  }
}

/**
 * The output with its text fenced, in the same kind (a result stays a result, an error an error), so
 * marker-like lines in it are neutralized and the model sees where the untrusted text ends.
 */
function fencedOutput(output: ToolResultOutput, boundary: string): ToolResultOutput {
  const fence = (text: string): string => fenceQuoted(text, boundary);
  switch (output.type) {
    case 'text':
    case 'json':
      return { type: 'text', value: fence(outputText(output).text) };
    case 'error-text':
    case 'error-json':
    case 'execution-denied':
      return { type: 'error-text', value: fence(outputText(output).text) };
    case 'content':
      return {
        ...output,
        value: output.value.map((p) => (p.type === 'text' ? { ...p, text: fence(p.text) } : p)),
      };
  }
}

/**
 * A result the compressor passed on as it is: fenced in `fence` when it needs one, unless it is what this
 * middleware showed before (a conversation that stores what the model saw), which fenced again would nest.
 */
async function passedOn(
  service: PagingService,
  sessionId: string,
  part: { toolName: string; toolCallId: string; output: ToolResultOutput },
  text: string,
  fence: string | undefined,
): Promise<ToolResultOutput | string> {
  if (fence === undefined) return text;
  if (await isShownResult(service, sessionId, { toolName: part.toolName, toolCallId: part.toolCallId, output: text }))
    return text;
  const fenced = fencedOutput(part.output, fence);
  if (fenced.type === 'text') rememberShown(service, part.toolCallId, fenced.value);
  return fenced;
}

function userText(message: Extract<LanguageModelV3Message, { role: 'user' }>): string {
  return message.content.map((p) => (p.type === 'text' ? p.text : `[file ${p.mediaType}]`)).join('');
}

/**
 * The prompt as session events, one per message (one per tool result), with ids stable across the
 * calls of a conversation: the message's position and content. System messages are not history.
 */
function promptEvents(prompt: LanguageModelV3Prompt): { events: SessionEvent[]; messageOf: Map<string, number> } {
  const events: SessionEvent[] = [];
  const messageOf = new Map<string, number>();
  const base = { invocationId: 'ai-sdk', author: 'ai-sdk', timestamp: 0 };
  prompt.forEach((message, i) => {
    const push = (event: SessionEvent): void => {
      events.push(event);
      messageOf.set(event.id, i);
    };
    switch (message.role) {
      case 'system':
        return;
      case 'user': {
        // The step block is the instruction's per-step part, re-rendered each call: not history.
        if (isStepBlock(message)) return;
        const text = userText(message);
        push({ ...base, id: `${i}:${sha(`user${text}`)}`, kind: 'user', author: 'user', text });
        return;
      }
      case 'assistant': {
        let text = '';
        const toolCalls: ToolCallRecord[] = [];
        for (const part of message.content) {
          if (part.type === 'text') text += part.text;
          else if (part.type === 'tool-call')
            toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        }
        push({
          ...base,
          id: `${i}:${sha(`assistant${text}${JSON.stringify(toolCalls)}`)}`,
          kind: 'model',
          text,
          toolCalls,
        });
        return;
      }
      case 'tool':
        message.content.forEach((part, j) => {
          if (part.type !== 'tool-result') return;
          const { text, isError } = outputText(part.output);
          push({
            ...base,
            id: `${i}.${j}:${sha(`${part.toolCallId}${text}`)}`,
            kind: 'tool-result',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            output: text,
            isError,
          });
        });
        return;
    }
  });
  return { events, messageOf };
}

/**
 * Creates the middleware.
 *
 * @example
 * import { generateText, wrapLanguageModel } from 'ai';
 * import { compressionMiddleware } from 'pagewise/ai-sdk';
 *
 * const model = wrapLanguageModel({ model: openai('gpt-4.1-mini'), middleware: compressionMiddleware({ compressor: 'openai:gpt-4.1-nano' }) });
 * await generateText({ model, tools, prompt: 'Find the order and refund it.', stopWhen: stepCountIs(30) });
 */
export function compressionMiddleware(options: CompressionMiddlewareOptions = {}): CompressionMiddleware {
  const ledger = options.ledger ?? new Ledger();
  const service = options.service ?? new PagingService();
  const sessionId = options.sessionId ?? 'ai-sdk';
  const agentName = options.agentName ?? 'ai-sdk';
  const maxConversations = options.maxConversations ?? 64;
  const shared = resolveCompressor(options.compressor);
  const cObs =
    options.observation === false
      ? undefined
      : observationCompressor({ compressor: shared, ...(options.observation ?? {}), service });
  const cHist =
    options.history === false ? undefined : historyCompressor({ compressor: shared, ...(options.history ?? {}) });
  const observation = options.observation === false ? undefined : options.observation;
  const boundary = observation?.boundary ?? fenceBoundary;
  // A result the compressor passes on as it is (a repeat shown whole, a failed or unhelpful compression,
  // an error) is still untrusted text: above the threshold, or holding anything that reads as a fence
  // marker, it is fenced like a compressed one, so no path shows the model forged markers raw.
  const needsFence = (toolName: string, text: string): boolean =>
    neutralize(text, '') !== text ||
    countTokens(text) >
      (observation?.toolThresholds?.[toolName] ?? observation?.thresholdTokens ?? OBSERVATION_THRESHOLD);
  // Compressed (or fenced) tool results by call id and raw content; compactions by conversation (its first message).
  const compressed = new Map<string, ToolResultOutput | string>();
  const compactions = new Map<string, CompactionEvent[]>();

  async function compressObservations(
    prompt: LanguageModelV3Prompt,
    task: string,
    signal: AbortSignal | undefined,
  ): Promise<LanguageModelV3Prompt> {
    if (!cObs) return prompt;
    const out: LanguageModelV3Prompt = [];
    for (const message of prompt) {
      if (message.role !== 'tool') {
        out.push(message);
        continue;
      }
      const content: ToolMessage['content'] = [];
      for (const part of message.content) {
        if (part.type !== 'tool-result') {
          content.push(part);
          continue;
        }
        const { text, compressible } = outputText(part.output);
        const key = `${part.toolCallId}:${sha(`${part.output.type}\0${text}`)}`;
        let result = compressed.get(key);
        if (!compressible) {
          if (result === undefined) {
            result = needsFence(part.toolName, text) ? fencedOutput(part.output, boundary()) : part.output;
            remember(compressed, key, result, REMEMBERED_RESULTS);
          }
          content.push(typeof result === 'string' || result === part.output ? part : { ...part, output: result });
          continue;
        }
        if (result === undefined) {
          const context: ObservationContext = {
            invocationId: 'ai-sdk',
            agentName,
            sessionId,
            task,
            // The steps before, as the model will see them: earlier results already compressed.
            recentItems: eventsToItems(promptEvents(out).events),
            services: new Map(),
            ledger,
            signal: signal ?? new AbortController().signal,
          };
          const obs = await cObs.process(
            { toolCallId: part.toolCallId, toolName: part.toolName, input: undefined, output: text, isError: false },
            context,
          );
          const fence = needsFence(part.toolName, text) ? boundary() : undefined;
          result = obs.output === text ? await passedOn(service, sessionId, part, text, fence) : obs.output;
          remember(compressed, key, result, REMEMBERED_RESULTS);
        }
        if (typeof result !== 'string') content.push({ ...part, output: result });
        else content.push(result === text ? part : { ...part, output: { type: 'text', value: result } });
      }
      out.push({ ...message, content });
    }
    return out;
  }

  async function compressHistory(
    prompt: LanguageModelV3Prompt,
    task: string,
    signal: AbortSignal | undefined,
  ): Promise<LanguageModelV3Prompt> {
    if (!cHist) return prompt;
    const { events, messageOf } = promptEvents(prompt);
    const first = events[0];
    if (!first) return prompt;
    const conversation = first.id;
    const stored = compactions.get(conversation) ?? [];
    const known = new Set(events.map((e) => e.id));
    // Compactions over messages that are gone (an edited conversation) no longer apply.
    const valid = stored.filter((c) => known.has(c.fromEventId) && known.has(c.toEventId));
    const session = promptSession(sessionId, [...events, ...valid]);
    const request: ContextRequest = { instruction: [], items: eventsToItems(session.events), tools: [] };
    const context: ProcessorContext = {
      session,
      invocationId: 'ai-sdk',
      agentName,
      task,
      services: new Map(),
      signal: signal ?? new AbortController().signal,
      ledger,
      appendCompaction: async (c) => {
        const event: CompactionEvent = {
          id: randomUUID(),
          invocationId: 'ai-sdk',
          author: agentName,
          timestamp: Date.now(),
          kind: 'compaction',
          ...c,
        };
        session.events.push(event);
        valid.push(event);
      },
    };
    await cHist.process(request, context);
    remember(compactions, conversation, valid, maxConversations);
    if (valid.length === 0) return prompt;
    return toPrompt(prompt, request.items, messageOf);
  }

  const restore = async (uri: string): Promise<string | undefined> =>
    (await service.pageStore.get(service.namespaceOf(uri, sessionId), uri))?.body;
  const pageIn = pageInTool(restore, options.maxPageInTokens ?? 16_000);

  return {
    specificationVersion: 'v3',
    ledger,
    service,
    restore,
    tools: { page_in: pageIn },
    async transformParams({ params }: { params: LanguageModelV3CallOptions }): Promise<LanguageModelV3CallOptions> {
      // The task is the latest user message: the one this call's tool loop works on.
      const lastUser = [...params.prompt]
        .reverse()
        .find((m): m is Extract<LanguageModelV3Message, { role: 'user' }> => m.role === 'user' && !isStepBlock(m));
      const task = lastUser ? userText(lastUser) : '';
      let prompt = await compressObservations(params.prompt, task, params.abortSignal);
      prompt = await compressHistory(prompt, task, params.abortSignal);
      if (!params.tools?.some((t) => t.name === 'page_in')) prompt = withoutHandles(prompt, params.prompt);
      return prompt === params.prompt ? params : { ...params, prompt };
    },
  };
}

/** Puts `value` last in `map` (most recently used), dropping the oldest entries past `max`. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as string);
}

/** A session holding a prompt's events, for the history compressor (never stored). */
function promptSession(sessionId: string, events: SessionEvent[]): Session {
  return {
    appName: 'ai-sdk',
    userId: 'ai-sdk',
    sessionId,
    state: {},
    events,
    version: events.length,
    createdAt: 0,
    updatedAt: 0,
  };
}

/**
 * Writes items back as messages: system messages first, each kept message as it was, summaries as user messages,
 * the step block last.
 */
function toPrompt(
  prompt: LanguageModelV3Prompt,
  items: readonly ContextItem[],
  messageOf: ReadonlyMap<string, number>,
): LanguageModelV3Prompt {
  const out: LanguageModelV3Prompt = prompt.filter((m) => m.role === 'system');
  const emitted = new Set<number>();
  for (const item of items) {
    if (item.type === 'summary') {
      out.push({ role: 'user', content: [{ type: 'text', text: item.text }] });
      continue;
    }
    const index = item.eventId === undefined ? undefined : messageOf.get(item.eventId);
    if (index === undefined || emitted.has(index)) continue;
    emitted.add(index);
    const message = prompt[index];
    if (message) out.push(message);
  }
  // The step block stays last, after the history it follows.
  for (const message of prompt) if (isStepBlock(message)) out.push(message);
  return out;
}

/**
 * The prompt with the handle lines of the results this middleware wrote reduced to their size note (see
 * {@link withoutHandle}); messages that were passed through (the caller's own) are left as they were.
 */
function withoutHandles(prompt: LanguageModelV3Prompt, original: LanguageModelV3Prompt): LanguageModelV3Prompt {
  const untouched = new Set<LanguageModelV3Message>(original);
  return prompt.map((message) => {
    if (untouched.has(message)) return message;
    if (message.role === 'user') {
      // A summary of the history may quote a handle too.
      return {
        ...message,
        content: message.content.map((part) =>
          part.type === 'text' ? { ...part, text: withoutHandle(part.text) } : part,
        ),
      };
    }
    if (message.role !== 'tool') return message;
    return {
      ...message,
      content: message.content.map((part) => {
        if (part.type !== 'tool-result' || part.output.type !== 'text') return part;
        const value = withoutHandle(part.output.value);
        return value === part.output.value ? part : { ...part, output: { ...part.output, value } };
      }),
    };
  });
}

/** The middleware's `page_in`: the raw results behind handles, as its result, up to `maxPageInTokens` in all. */
function pageInTool(restore: (uri: string) => Promise<string | undefined>, maxPageInTokens: number): AiTool {
  if (!Number.isInteger(maxPageInTokens) || maxPageInTokens < 1)
    throw new RangeError(`compressionMiddleware: maxPageInTokens must be an integer ≥ 1, got ${maxPageInTokens}.`);
  return aiTool({
    description:
      'Return the full, uncompressed result behind the handles of compressed tool results (the uris after "page_in uris").',
    inputSchema: z.object({ uris: z.array(z.string().min(1).max(500)).min(1).max(10) }),
    execute: async ({ uris }: { uris: string[] }) => {
      const parts: string[] = [];
      let left = maxPageInTokens;
      for (const uri of uris) {
        // Only the handles of compressed results: not any page the shared service may hold.
        const body = uri.startsWith('tool://') ? await restore(uri) : undefined;
        if (body === undefined) {
          parts.push(
            `${uri}: no such result (only the uris after "page_in uris" in a compressed result can be paged in).`,
          );
          continue;
        }
        const tokens = countTokens(body);
        const shown = tokens <= left ? body : headAtWordBoundary(body, Math.max(0, left));
        left -= countTokens(shown);
        parts.push(
          shown === body
            ? `${uri}:\n${body}`
            : `${uri} (the first ${countTokens(shown)} of ${tokens} tokens; the rest is over maxPageInTokens):\n${shown}`,
        );
      }
      return parts.join('\n\n');
    },
  });
}
