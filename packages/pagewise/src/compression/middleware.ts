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
import { itemText, type ContextItem, type ContextRequest, type ProcessorContext } from '../context/request.js';
import { isStepBlock } from '../models/step-block.js';
import { fenceBoundary, neutralize } from '../paging/fence.js';
import { PagingService } from '../paging/service.js';
import type { CompactionEvent, Session, SessionEvent, ToolCallRecord } from '../session/types.js';
import { Ledger } from '../tokens/ledger.js';
import { countTokens } from '../tokens/tokenizer.js';
import { DEFAULT_HISTORY_THRESHOLD, historyCompressor, type HistoryCompressorOptions } from './history.js';
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
type ToolResultPart = Extract<ToolMessage['content'][number], { type: 'tool-result' }>;
type ToolResultOutput = ToolResultPart['output'];

/** What an output holds besides its kind: compared by reference to know an output object seen before. */
const rawOf = (output: ToolResultOutput): unknown => ('value' in output ? output.value : output.reason);

/** What a tool result is shown as (`undefined`: as it is), with the raw text it was made from. */
interface ShownResult {
  text: string;
  output: ToolResultOutput | undefined;
}

// The text of JSON tool outputs by value: the AI SDK hands the same output objects over at every step of a
// loop, so each is serialized once, not at every call.
const jsonTexts = new WeakMap<object, string>();

function jsonText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  let text = jsonTexts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    jsonTexts.set(value, text);
  }
  return text;
}

/** The text of a tool output as the model reads it, and whether it is an error. */
function outputText(output: ToolResultOutput): { text: string; isError: boolean; compressible: boolean } {
  switch (output.type) {
    case 'text':
      return { text: output.value, isError: false, compressible: true };
    case 'json':
      return { text: jsonText(output.value), isError: false, compressible: true };
    case 'error-text':
      return { text: output.value, isError: true, compressible: false };
    case 'error-json':
      return { text: jsonText(output.value), isError: true, compressible: false };
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
 * The session events of message `index` of a prompt: one for a user or assistant message, one per tool
 * result, none for a system message (not history). Their ids are stable across the calls of a
 * conversation: the message's position and content.
 */
function messageEvents(message: LanguageModelV3Message, index: number): SessionEvent[] {
  const base = { invocationId: 'ai-sdk', author: 'ai-sdk', timestamp: 0 };
  switch (message.role) {
    case 'system':
      return [];
    case 'user': {
      const text = userText(message);
      return [{ ...base, id: `${index}:${sha(`user${text}`)}`, kind: 'user', author: 'user', text }];
    }
    case 'assistant': {
      let text = '';
      const toolCalls: ToolCallRecord[] = [];
      for (const part of message.content) {
        if (part.type === 'text') text += part.text;
        else if (part.type === 'tool-call')
          toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      }
      const id = `${index}:${sha(`assistant${text}${JSON.stringify(toolCalls)}`)}`;
      return [{ ...base, id, kind: 'model', text, toolCalls }];
    }
    case 'tool': {
      const events: SessionEvent[] = [];
      message.content.forEach((part, j) => {
        if (part.type !== 'tool-result') return;
        const { text, isError } = outputText(part.output);
        events.push({
          ...base,
          id: `${index}.${j}:${sha(`${part.toolCallId}${text}`)}`,
          kind: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: text,
          isError,
        });
      });
      return events;
    }
  }
}

/** The prompt's messages from `from` on as session events, with the message each came from. */
function appendPromptEvents(
  prompt: LanguageModelV3Prompt,
  from: number,
  events: SessionEvent[],
  messageOf: Map<string, number>,
): void {
  for (let index = from; index < prompt.length; index++) {
    for (const event of messageEvents(prompt[index]!, index)) {
      events.push(event);
      messageOf.set(event.id, index);
    }
  }
}

/** The prompt as session events (see {@link messageEvents}). */
function promptEvents(prompt: LanguageModelV3Prompt): { events: SessionEvent[]; messageOf: Map<string, number> } {
  const events: SessionEvent[] = [];
  const messageOf = new Map<string, number>();
  appendPromptEvents(prompt, 0, events, messageOf);
  return { events, messageOf };
}

/** The fields of a message part that its session events are made of. */
interface PartFields {
  type: string;
  text?: string;
  toolCallId?: string;
  toolName?: string;
  mediaType?: string;
  input?: unknown;
  output?: ToolResultOutput;
}

/**
 * Whether two messages give the same session events (see {@link messageEvents}), compared field by field
 * without hashing: the messages of a conversation seen at its previous call, against this call's.
 */
function sameEvents(a: LanguageModelV3Message, b: LanguageModelV3Message): boolean {
  if (a === b) return true;
  if (a.role !== b.role) return false;
  if (a.role === 'system') return true;
  const left = a.content as readonly PartFields[];
  const right = b.content as readonly PartFields[];
  if (left.length !== right.length) return false;
  for (let i = 0; i < left.length; i++) {
    const x = left[i]!;
    const y = right[i]!;
    if (x === y) continue;
    if (x.type !== y.type || x.text !== y.text || x.toolCallId !== y.toolCallId || x.toolName !== y.toolName)
      return false;
    if (x.mediaType !== y.mediaType) return false;
    if (x.input !== y.input && jsonText(x.input) !== jsonText(y.input)) return false;
    if (x.output !== y.output) {
      if (!x.output || !y.output || x.output.type !== y.output.type) return false;
      if (outputText(x.output).text !== outputText(y.output).text) return false;
    }
  }
  return true;
}

/**
 * What the middleware keeps of a conversation between its calls: the prompt as it last saw it, its
 * events with the compactions over them (one list, only appended to while the conversation only grows,
 * so its history items are converted once each), and the message each event came from.
 */
interface ConversationState {
  messages: LanguageModelV3Message[];
  session: Session;
  messageOf: Map<string, number>;
  compactions: number;
  /** Tokens of each history item by the event it shows (a message, or a compaction's summary), counted once. */
  tokens: Map<string, number>;
}

/** Tokens of a conversation's history item, counted once per event (an event never changes). */
function itemTokens(state: ConversationState, item: ContextItem): number {
  if (item.eventId === undefined) return countTokens(itemText(item));
  let tokens = state.tokens.get(item.eventId);
  if (tokens === undefined) {
    tokens = countTokens(itemText(item));
    state.tokens.set(item.eventId, tokens);
  }
  return tokens;
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
  // What each tool result is shown as, by call id, output kind and length, with its raw text to compare:
  // a result is compressed (or fenced) once, and every later call shows the same output object.
  const shownResults = new Map<string, ShownResult>();
  const shownByOutput = new WeakMap<
    ToolResultOutput,
    { toolCallId: string; type: string; value: unknown; output: ToolResultOutput | undefined }
  >();
  const keeper: HistoryKeeper | undefined = cHist && {
    cHist,
    conversations: new Map(),
    sessionId,
    maxConversations,
    agentName,
    ledger,
    threshold: options.history === false ? undefined : options.history?.thresholdTokens,
    budget: options.history === false ? undefined : options.history?.budgetTokens,
  };

  /** What a tool result is shown as: `undefined` for the part as it is. */
  async function shownOutput(
    part: ToolResultPart,
    before: LanguageModelV3Prompt,
    task: string,
    signal: AbortSignal | undefined,
  ): Promise<ToolResultOutput | undefined> {
    // The AI SDK hands the same output object over at every step: known by it, nothing is read again.
    const seen = shownByOutput.get(part.output);
    if (
      seen !== undefined &&
      seen.toolCallId === part.toolCallId &&
      seen.type === part.output.type &&
      seen.value === rawOf(part.output)
    )
      return seen.output;
    const { text, compressible } = outputText(part.output);
    const key = `${part.toolCallId}\0${part.output.type}\0${text.length}`;
    const known = shownResults.get(key);
    if (known !== undefined && known.text === text) {
      shownByOutput.set(part.output, {
        toolCallId: part.toolCallId,
        type: part.output.type,
        value: rawOf(part.output),
        output: known.output,
      });
      return known.output;
    }
    let output: ToolResultOutput | undefined;
    if (!compressible) {
      output = needsFence(part.toolName, text) ? fencedOutput(part.output, boundary()) : undefined;
    } else {
      const upTo = before.length;
      const context: ObservationContext = {
        invocationId: 'ai-sdk',
        agentName,
        sessionId,
        task,
        // The steps before, as the model will see them (earlier results already compressed); built only
        // for a compressor that reads them.
        get recentItems() {
          return eventsToItems(promptEvents(before.slice(0, upTo)).events);
        },
        services: new Map(),
        ledger,
        signal: signal ?? new AbortController().signal,
      };
      const obs = await cObs!.process(
        { toolCallId: part.toolCallId, toolName: part.toolName, input: undefined, output: text, isError: false },
        context,
      );
      const fence = needsFence(part.toolName, text) ? boundary() : undefined;
      const result = obs.output === text ? await passedOn(service, sessionId, part, text, fence) : obs.output;
      if (typeof result !== 'string') output = result;
      else output = result === text ? undefined : { type: 'text', value: result };
    }
    remember(shownResults, key, { text, output }, REMEMBERED_RESULTS);
    shownByOutput.set(part.output, {
      toolCallId: part.toolCallId,
      type: part.output.type,
      value: rawOf(part.output),
      output,
    });
    return output;
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
      // The step block (the instruction's per-step part, after the history) is re-rendered at every call:
      // neither history nor the task. It is left out of what is compressed, so the conversation is seen to
      // grow from call to call, and put back last.
      const blocks = params.prompt.filter(isStepBlock);
      const history = blocks.length === 0 ? params.prompt : params.prompt.filter((m) => !isStepBlock(m));
      // The task is the latest user message: the one this call's tool loop works on.
      let lastUser: Extract<LanguageModelV3Message, { role: 'user' }> | undefined;
      for (let i = history.length - 1; i >= 0 && !lastUser; i--) {
        const message = history[i]!;
        if (message.role === 'user') lastUser = message;
      }
      const task = lastUser ? userText(lastUser) : '';
      let prompt = cObs
        ? await withShownResults(history, (part, before) => shownOutput(part, before, task, params.abortSignal))
        : history;
      if (keeper) prompt = await compressHistory(keeper, prompt, task, params.abortSignal);
      if (!params.tools?.some((t) => t.name === 'page_in')) prompt = withoutHandles(prompt, history);
      if (prompt === history) return params;
      return { ...params, prompt: blocks.length === 0 ? prompt : [...prompt, ...blocks] };
    },
  };
}

/** The prompt with each tool result shown as `shown` says (`undefined`: as it is); untouched messages as they were. */
async function withShownResults(
  prompt: LanguageModelV3Prompt,
  shown: (part: ToolResultPart, before: LanguageModelV3Prompt) => Promise<ToolResultOutput | undefined>,
): Promise<LanguageModelV3Prompt> {
  const out: LanguageModelV3Prompt = [];
  let changed = false;
  for (const message of prompt) {
    if (message.role !== 'tool') {
      out.push(message);
      continue;
    }
    let content: ToolMessage['content'] | undefined;
    for (const [index, part] of message.content.entries()) {
      const output = part.type === 'tool-result' ? await shown(part, out) : undefined;
      if (output === undefined) {
        content?.push(part);
        continue;
      }
      content ??= message.content.slice(0, index);
      content.push({ ...(part as ToolResultPart), output });
    }
    out.push(content ? { ...message, content } : message);
    changed ||= content !== undefined;
  }
  return changed ? out : prompt;
}

/** What the history part of the middleware works with, and keeps per conversation. */
interface HistoryKeeper {
  cHist: ReturnType<typeof historyCompressor>;
  conversations: Map<string, ConversationState>;
  sessionId: string;
  maxConversations: number;
  agentName: string;
  ledger: Ledger;
  threshold: number | undefined;
  budget: number | undefined;
}

/**
 * The conversation `prompt` continues, with the events of its new messages appended; a prompt that is not
 * the last one seen with messages appended (an edited conversation) starts its events again, keeping the
 * compactions whose messages are all still there.
 */
function conversationOf(keeper: HistoryKeeper, prompt: LanguageModelV3Prompt): ConversationState | undefined {
  const { conversations, sessionId, maxConversations } = keeper;
  let firstIndex = prompt.findIndex((m) => m.role !== 'system');
  let first: SessionEvent | undefined;
  for (; firstIndex >= 0 && firstIndex < prompt.length && !first; firstIndex++)
    first = messageEvents(prompt[firstIndex]!, firstIndex)[0];
  if (!first) return undefined;
  const key = first.id;
  let state = conversations.get(key);
  const seen = state?.messages ?? [];
  let grows = state !== undefined && seen.length <= prompt.length;
  for (let i = 0; grows && i < seen.length; i++) grows = sameEvents(seen[i]!, prompt[i]!);
  if (state && grows) {
    appendPromptEvents(prompt, seen.length, state.session.events, state.messageOf);
    for (let i = seen.length; i < prompt.length; i++) seen.push(prompt[i]!);
  } else {
    const { events, messageOf } = promptEvents(prompt);
    const known = new Set(events.map((e) => e.id));
    // Compactions over messages that are gone (an edited conversation) no longer apply.
    const valid = (state?.session.events ?? []).filter(
      (e): e is CompactionEvent => e.kind === 'compaction' && known.has(e.fromEventId) && known.has(e.toEventId),
    );
    state = {
      messages: [...prompt],
      session: promptSession(sessionId, [...events, ...valid]),
      messageOf,
      compactions: valid.length,
      tokens: state?.tokens ?? new Map(),
    };
  }
  state.session.version = state.session.events.length;
  remember(conversations, key, state, maxConversations);
  return state;
}

/** The prompt with its history compressed when above T_hist (see {@link historyCompressor}), as messages. */
async function compressHistory(
  keeper: HistoryKeeper,
  prompt: LanguageModelV3Prompt,
  task: string,
  signal: AbortSignal | undefined,
): Promise<LanguageModelV3Prompt> {
  const { cHist, agentName, ledger, threshold, budget } = keeper;
  const state = conversationOf(keeper, prompt);
  if (!state) return prompt;
  const { session } = state;
  const request: ContextRequest = { instruction: [], items: eventsToItems(session.events), tools: [] };
  // At or under T_hist the compressor leaves the request as it is: measured here from each item's count,
  // kept with the item, so a later call counts only the items that are new.
  const underThreshold =
    budget === undefined &&
    request.items.reduce((sum, item) => sum + itemTokens(state, item), 0) <= (threshold ?? DEFAULT_HISTORY_THRESHOLD);
  if (!underThreshold) {
    const context: ProcessorContext = {
      session,
      invocationId: 'ai-sdk',
      agentName,
      task,
      services: new Map(),
      signal: signal ?? new AbortController().signal,
      ledger,
      appendCompaction: async (c) => {
        session.events.push({
          id: randomUUID(),
          invocationId: 'ai-sdk',
          author: agentName,
          timestamp: Date.now(),
          kind: 'compaction',
          ...c,
        });
        state.compactions += 1;
      },
    };
    await cHist.process(request, context);
  }
  if (state.compactions === 0) return prompt;
  return toPrompt(prompt, request.items, state.messageOf);
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

/** Writes items back as messages: system messages first, each kept message as it was, summaries as user messages. */
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
