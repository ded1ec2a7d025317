/**
 * ACON compression for any AI SDK call: a LanguageModelV3Middleware whose `transformParams` applies
 * C_obs to tool results above T_obs and C_hist to a history above T_hist, inside `generateText` or
 * `streamText`, without the pagewise runner. It runs the same processors the runner does: the prompt
 * is read as session events (stable ids per message), compactions are kept by the middleware per
 * conversation, and the result is written back as messages, untouched ones as they were (files,
 * reasoning and provider options included).
 *
 * The AI SDK sends the whole conversation at every step, so work is remembered: a tool result is
 * compressed once (by call id and content), a summary is folded forward as the conversation grows, and the
 * messages a call shares with the last one (compared part by part, by identity) are taken as they were shown
 * then, so a call reads only the messages after them.
 */
import * as crypto from 'node:crypto';
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
import { countTokens, exceedsTokens } from '../tokens/tokenizer.js';
import { DEFAULT_HISTORY_THRESHOLD, historyCompressor, type HistoryCompressorOptions } from './history.js';
import { OBSERVATION_THRESHOLD, observationCompressor, type ObservationCompressorOptions } from './observation.js';
import { resolveBackend, type CompressorSpec } from './resolve-backend.js';
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

// Tool results remembered as compressed (or as too small to compress): enough for long tool loops of
// many conversations; the least recently used are forgotten and, if seen again, compressed again.
const REMEMBERED_RESULTS = 4096;

type ToolMessage = Extract<LanguageModelV3Message, { role: 'tool' }>;
type ToolResultPart = Extract<ToolMessage['content'][number], { type: 'tool-result' }>;
type ToolResultOutput = ToolResultPart['output'];

/** What an output holds besides its kind: compared by reference to know an output object seen before. */
const rawOf = (output: ToolResultOutput): unknown =>
  output.type === 'execution-denied' ? output.reason : output.value;

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
 * result, none for a system message (not history). Their ids name the message's position (and the result's
 * part): stable across the calls of a conversation, which compare messages by content before taking an
 * event again (see {@link historyOf}).
 */
function messageEvents(message: LanguageModelV3Message, index: number): SessionEvent[] {
  // Written out field by field (no spread of shared fields): a first call makes one per message of the history.
  switch (message.role) {
    case 'system':
      return [];
    case 'user':
      return [
        { invocationId: 'ai-sdk', author: 'user', timestamp: 0, id: `${index}`, kind: 'user', text: userText(message) },
      ];
    case 'assistant': {
      let text = '';
      const toolCalls: ToolCallRecord[] = [];
      for (const part of message.content) {
        if (part.type === 'text') text += part.text;
        else if (part.type === 'tool-call')
          toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      }
      return [
        { invocationId: 'ai-sdk', author: 'ai-sdk', timestamp: 0, id: `${index}`, kind: 'model', text, toolCalls },
      ];
    }
    case 'tool': {
      const events: SessionEvent[] = [];
      for (let partIndex = 0; partIndex < message.content.length; partIndex++) {
        const part = message.content[partIndex]!;
        if (part.type !== 'tool-result') continue;
        const { text, isError } = outputText(part.output);
        events.push({
          invocationId: 'ai-sdk',
          author: 'ai-sdk',
          timestamp: 0,
          id: `${index}.${partIndex}`,
          kind: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: text,
          isError,
        });
      }
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
function sameEvents(seen: LanguageModelV3Message, next: LanguageModelV3Message): boolean {
  if (seen === next) return true;
  if (seen.role !== next.role) return false;
  if (seen.role === 'system') return true;
  const left = seen.content as readonly PartFields[];
  const right = next.content as readonly PartFields[];
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index++) {
    const before = left[index]!;
    const now = right[index]!;
    if (before === now) continue;
    if (
      before.type !== now.type ||
      before.text !== now.text ||
      before.toolCallId !== now.toolCallId ||
      before.toolName !== now.toolName
    )
      return false;
    if (before.mediaType !== now.mediaType) return false;
    if (before.input !== now.input && jsonText(before.input) !== jsonText(now.input)) return false;
    if (before.output !== now.output) {
      if (!before.output || !now.output || before.output.type !== now.output.type) return false;
      if (outputText(before.output).text !== outputText(now.output).text) return false;
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

/** What an output held when it was last shown, with what it was shown as (`output`; undefined: as it is). */
interface SeenOutput {
  toolCallId: string;
  type: string;
  value: unknown;
  output: ToolResultOutput | undefined;
}

/** Whether a tool result's output object still holds what it held when it was shown for this call id. */
function stillSeen(part: ToolResultPart, seen: SeenOutput | undefined): seen is SeenOutput {
  return (
    seen !== undefined &&
    seen.toolCallId === part.toolCallId &&
    seen.type === part.output.type &&
    seen.value === rawOf(part.output)
  );
}

/**
 * What the middleware keeps of a conversation between its calls for the prompt as a whole: the messages it
 * has seen and the ones it made of them, so a call whose history starts with the same messages takes their
 * shown form as it is and works only on the messages after them (see {@link samePrefix}). It holds each
 * message as it first came, not the copy of each later call: a later call's objects are left to be
 * collected young, so what a call keeps is only what is new.
 */
interface Conversation {
  /** The history messages seen, each as it first came. */
  input: LanguageModelV3Message[];
  /**
   * What each tool result of `input` held when it was shown, in order: its output's kind and value, two
   * entries a result (an output object changed in place since is shown again).
   */
  results: unknown[];
  /** Positions of the messages shown as one this middleware made (tool results replaced), in order. */
  made: number[];
  /** The message shown at each of those positions. */
  madeShown: LanguageModelV3Message[];
  /** Positions of the system messages, in order. */
  systems: number[];
  /** Position of the latest user message, or -1. */
  lastUser: number;
  /** The history part's events and compactions, when the history is compressed. */
  history: ConversationState | undefined;
}

/** Whether two objects hold the same own fields, each the same value by identity (`skip` left out). */
function sameFields(left: object, right: object, skip?: string): boolean {
  const before = left as Record<string, unknown>;
  const now = right as Record<string, unknown>;
  for (const key in before) if (key !== skip && before[key] !== now[key]) return false;
  for (const key in now) if (!(key in before)) return false;
  return true;
}

/** Whether two parts hold the same fields the events and shown results of a message are made of, by identity. */
function sameReadFields(before: PartFields, now: PartFields): boolean {
  return (
    before.type === now.type &&
    before.text === now.text &&
    before.toolCallId === now.toolCallId &&
    before.toolName === now.toolName &&
    before.mediaType === now.mediaType &&
    before.input === now.input &&
    before.output === now.output
  );
}

/**
 * Whether `next` is the message `previous` was, for what the middleware makes of it: each part holds the same
 * values by identity (a string by value), and each tool result's output still holds the kind and value it
 * held when it was shown (`results` from `resultAt`). The AI SDK builds new message and part objects at every
 * step around the same strings, inputs and output objects, so this holds for the messages of earlier steps;
 * anything else (a copy, an edit) is not the same and is read again. A message the middleware `made` (its
 * results replaced) is shown again as it was made, so all its fields are compared; of any other, shown as it
 * comes, only the fields its events and shown results are made of. Returns where the results of the next
 * message start in `results`, or -1 when this one is not the same.
 */
function sameMessage(
  previous: LanguageModelV3Message,
  next: LanguageModelV3Message,
  made: boolean,
  results: readonly unknown[],
  resultAt: number,
): number {
  if (previous.role !== next.role || (made && !sameFields(previous, next, 'content'))) return -1;
  if (previous.role === 'system') return previous.content === next.content ? resultAt : -1;
  const left = previous.content as readonly PartFields[];
  const right = next.content as readonly PartFields[];
  if (left.length !== right.length) return -1;
  let at = resultAt;
  for (let index = 0; index < left.length; index++) {
    const before = left[index]!;
    const part = right[index]!;
    if (before !== part && (!sameReadFields(before, part) || (made && !sameFields(before, part)))) return -1;
    if (part.type === 'tool-result') {
      const output = part.output!;
      if (output.type !== results[at] || rawOf(output) !== results[at + 1]) return -1;
      at += 2;
    }
  }
  return at;
}

/**
 * How many leading messages of `next` are those of the conversation's last call (see {@link sameMessage}),
 * and how many entries of its `results` they hold.
 */
function samePrefix(
  previous: Conversation,
  next: readonly LanguageModelV3Message[],
): { messages: number; results: number } {
  const { input, made, results } = previous;
  const length = Math.min(input.length, next.length);
  let madeAt = 0;
  let resultAt = 0;
  for (let index = 0; index < length; index++) {
    const wasMade = madeAt < made.length && made[madeAt] === index;
    if (wasMade) madeAt += 1;
    const after = sameMessage(input[index]!, next[index]!, wasMade, results, resultAt);
    if (after < 0) return { messages: index, results: resultAt };
    resultAt = after;
  }
  return { messages: length, results: resultAt };
}

/**
 * This call's conversation, for the first `reused` messages of `history` the last call's, and its prompt so
 * far: those messages as shown (the ones made then, the others this call's as they came), the rest to be
 * appended to both.
 */
function continued(
  previous: Conversation | undefined,
  history: readonly LanguageModelV3Message[],
  reused: { messages: number; results: number },
): { conversation: Conversation; shown: LanguageModelV3Message[] } {
  const count = reused.messages;
  const shown = history.slice(0, count);
  const made: number[] = [];
  const madeShown: LanguageModelV3Message[] = [];
  const systems: number[] = [];
  for (let at = 0; previous && at < previous.made.length && previous.made[at]! < count; at++) {
    const index = previous.made[at]!;
    shown[index] = previous.madeShown[at]!;
    made.push(index);
    madeShown.push(shown[index]);
  }
  for (const index of previous?.systems ?? []) if (index < count) systems.push(index);
  for (let index = count; index < history.length; index++) if (history[index]!.role === 'system') systems.push(index);
  let lastUser = -1;
  for (let index = history.length - 1; index >= count && lastUser < 0; index--)
    if (history[index]!.role === 'user') lastUser = index;
  // None among the new messages: the last call's, unless it was edited away, when the reused ones are searched.
  if (lastUser < 0 && previous && previous.lastUser < count) lastUser = previous.lastUser;
  else
    for (let index = count - 1; index >= 0 && lastUser < 0; index--)
      if (history[index]!.role === 'user') lastUser = index;
  const conversation: Conversation = {
    input: previous ? previous.input.slice(0, count) : [],
    results: previous ? previous.results.slice(0, reused.results) : [],
    made,
    madeShown,
    systems,
    lastUser,
    history: previous?.history,
  };
  return { conversation, shown };
}

/** The prompt's messages as session-event ids go: the id of its first event, which names its conversation. */
function conversationKey(prompt: LanguageModelV3Prompt): string | undefined {
  for (let index = 0; index < prompt.length; index++) {
    const message = prompt[index]!;
    if (message.role === 'system') continue;
    const first = messageEvents(message, index)[0];
    if (first) return first.id;
  }
  return undefined;
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
  const shared = resolveBackend(options.compressor);
  const cObs =
    options.observation === false
      ? undefined
      : observationCompressor({ compressor: shared, ...(options.observation ?? {}), service });
  const cHist =
    options.history === false ? undefined : historyCompressor({ compressor: shared, ...(options.history ?? {}) });
  const shower =
    cObs && resultShower(cObs, { service, sessionId, agentName, ledger, observation: options.observation || {} });
  const conversations = new Map<string, Conversation>();
  const made = new MadeMessages();
  const keeper: HistoryKeeper | undefined = cHist && {
    cHist,
    sessionId,
    agentName,
    ledger,
    threshold: options.history === false ? undefined : options.history?.thresholdTokens,
    budget: options.history === false ? undefined : options.history?.budgetTokens,
    made,
  };

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
      let blocks: LanguageModelV3Message[] | undefined;
      for (const message of params.prompt) if (isStepBlock(message)) (blocks ??= []).push(message);
      const history = blocks === undefined ? params.prompt : params.prompt.filter((m) => !isStepBlock(m));
      // The AI SDK sends the whole conversation at every call: the messages of the last call are taken as
      // they were shown then, and only the ones after them are read.
      const key = conversationKey(history);
      const previous = key === undefined ? undefined : conversations.get(key);
      const reused = previous ? samePrefix(previous, history) : { messages: 0, results: 0 };
      const { conversation, shown } = continued(previous, history, reused);
      // The task is the latest user message: the one this call's tool loop works on.
      const latest = conversation.lastUser < 0 ? undefined : history[conversation.lastUser];
      const task = latest?.role === 'user' ? userText(latest) : '';
      for (let index = reused.messages; index < history.length; index++) {
        const message = history[index]!;
        conversation.input.push(message);
        keepResults(message, conversation.results);
        const shownMessage =
          shower && message.role === 'tool'
            ? await showResults(message, shown, shower, made, task, params.abortSignal)
            : message;
        if (shownMessage !== message) {
          conversation.made.push(index);
          conversation.madeShown.push(shownMessage);
        }
        shown.push(shownMessage);
      }
      const shownPrompt = conversation.made.length === 0 ? history : shown;
      let prompt = shownPrompt;
      if (keeper && key !== undefined)
        prompt = await compressHistory(keeper, conversation, prompt, reused.messages, task, params.abortSignal);
      if (key !== undefined) remember(conversations, key, conversation, maxConversations);
      if (!params.tools?.some((t) => t.name === 'page_in'))
        prompt = made.withoutHandles(prompt, prompt === shownPrompt ? conversation.made : undefined);
      if (prompt === history) return params;
      return { ...params, prompt: blocks === undefined ? prompt : [...prompt, ...blocks] };
    },
  };
}

/** What {@link resultShower} needs of the middleware. */
interface ShowerContext {
  service: PagingService;
  sessionId: string;
  agentName: string;
  ledger: Ledger;
  observation: Omit<ObservationCompressorOptions, 'service'>;
}

/** What tool results are shown as: a known one at once, another worked out with C_obs, each remembered. */
interface ResultShower {
  /** What `part` is shown as (`{ output: undefined }`: as it is) when that needs no compressor, else undefined. */
  known(part: ToolResultPart): { output: ToolResultOutput | undefined } | undefined;
  /** What `part` is shown as, worked out with the compressor, after the messages `before` it as shown. */
  compute(
    part: ToolResultPart,
    before: LanguageModelV3Prompt,
    task: string,
    signal: AbortSignal | undefined,
  ): Promise<ToolResultOutput | undefined>;
}

/** Shows tool results with `cObs`, remembering each by its output object and by call id and text. */
function resultShower(cObs: ReturnType<typeof observationCompressor>, context: ShowerContext): ResultShower {
  const { service, sessionId, agentName, ledger, observation } = context;
  // The AI SDK hands the same output objects over at every step: what each held and was shown as.
  const outputs = new WeakMap<ToolResultOutput, SeenOutput>();
  const boundary = observation.boundary ?? fenceBoundary;
  // A result the compressor passes on as it is (a repeat shown whole, a failed or unhelpful compression,
  // an error) is still untrusted text: above the threshold, or holding anything that reads as a fence
  // marker, it is fenced like a compressed one, so no path shows the model forged markers raw.
  const needsFence = (toolName: string, text: string): boolean =>
    neutralize(text, '') !== text ||
    exceedsTokens(text, observation.toolThresholds?.[toolName] ?? observation.thresholdTokens ?? OBSERVATION_THRESHOLD);
  // What each tool result is shown as, by call id, output kind and length, with its raw text to compare:
  // a result is compressed (or fenced) once, and every later call shows the same output object.
  const shownResults = new Map<string, ShownResult>();
  const keyOf = (part: ToolResultPart, text: string): string =>
    `${part.toolCallId}\0${part.output.type}\0${text.length}`;
  const seenAs = (part: ToolResultPart, output: ToolResultOutput | undefined): ToolResultOutput | undefined => {
    outputs.set(part.output, {
      toolCallId: part.toolCallId,
      type: part.output.type,
      value: rawOf(part.output),
      output,
    });
    return output;
  };
  const keep = (part: ToolResultPart, text: string, output: ToolResultOutput | undefined) => {
    remember(shownResults, keyOf(part, text), { text, output }, REMEMBERED_RESULTS);
    return seenAs(part, output);
  };

  return {
    known(part) {
      // The AI SDK hands the same output object over at every step: known by it, nothing is read again.
      const seen = outputs.get(part.output);
      if (stillSeen(part, seen)) return { output: seen.output };
      const { text, compressible } = outputText(part.output);
      const known = shownResults.get(keyOf(part, text));
      if (known !== undefined && known.text === text) return { output: seenAs(part, known.output) };
      if (!compressible)
        return {
          output: keep(part, text, needsFence(part.toolName, text) ? fencedOutput(part.output, boundary()) : undefined),
        };
      // At or under T_obs and holding nothing that reads as a fence marker, C_obs and the fence both pass a
      // result on as it is: known without the compressor, so a first call over a long history awaits none.
      if (!needsFence(part.toolName, text)) return { output: keep(part, text, undefined) };
      return undefined;
    },
    async compute(part, before, task, signal) {
      const { text } = outputText(part.output);
      const upTo = before.length;
      const observationContext: ObservationContext = {
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
      const obs = await cObs.process(
        { toolCallId: part.toolCallId, toolName: part.toolName, input: undefined, output: text, isError: false },
        observationContext,
      );
      const fence = needsFence(part.toolName, text) ? boundary() : undefined;
      const result = obs.output === text ? await passedOn(service, sessionId, part, text, fence) : obs.output;
      if (typeof result !== 'string') return keep(part, text, result);
      return keep(part, text, result === text ? undefined : { type: 'text', value: result });
    },
  };
}

/** Appends the kind and value of each tool result output of `message` to `results` (see {@link Conversation}). */
function keepResults(message: LanguageModelV3Message, results: unknown[]): void {
  if (message.role === 'system') return;
  for (const part of message.content as readonly PartFields[]) {
    if (part.type !== 'tool-result') continue;
    results.push(part.output!.type, rawOf(part.output!));
  }
}

/** The tool message with each result shown as `shower` says, or the message itself when none changed. */
async function showResults(
  message: ToolMessage,
  before: LanguageModelV3Prompt,
  shower: ResultShower,
  made: MadeMessages,
  task: string,
  signal: AbortSignal | undefined,
): Promise<LanguageModelV3Message> {
  let content: ToolMessage['content'] | undefined;
  for (let index = 0; index < message.content.length; index++) {
    const part = message.content[index]!;
    let output: ToolResultOutput | undefined;
    if (part.type === 'tool-result') {
      // Awaited only for a result the compressor has to read: a known or small one is shown at once.
      const known = shower.known(part);
      output = known ? known.output : await shower.compute(part, before, task, signal);
    }
    if (output === undefined) {
      content?.push(part);
      continue;
    }
    content ??= message.content.slice(0, index);
    content.push({ ...(part as ToolResultPart), output });
  }
  return content ? made.add({ ...message, content }) : message;
}

/**
 * The messages this middleware made (tool messages with results replaced, summaries), each kept with its
 * form without handles, so a later call that shows it again strips nothing again.
 */
class MadeMessages {
  private readonly made = new WeakSet<LanguageModelV3Message>();
  private readonly handleFree = new WeakMap<LanguageModelV3Message, LanguageModelV3Message>();
  private readonly summaries = new WeakMap<ContextItem, LanguageModelV3Message>();

  /** Marks `message` as made here. */
  add(message: LanguageModelV3Message): LanguageModelV3Message {
    this.made.add(message);
    return message;
  }

  /** The user message a summary item is shown as, the same object each time the item is. */
  summary(item: ContextItem & { type: 'summary' }): LanguageModelV3Message {
    let message = this.summaries.get(item);
    if (message === undefined) {
      message = this.add({ role: 'user', content: [{ type: 'text', text: item.text }] });
      this.summaries.set(item, message);
    }
    return message;
  }

  /**
   * The prompt with the handle lines of the messages made here reduced to their size note (see
   * {@link withoutHandle}); the others (the caller's own) are left as they were. `at`, when known, lists the
   * positions of the made ones.
   */
  withoutHandles(prompt: LanguageModelV3Prompt, at?: readonly number[]): LanguageModelV3Prompt {
    if (at === undefined)
      return prompt.map((message) => (this.made.has(message) ? this.handleFreeOf(message) : message));
    const out = prompt.slice();
    for (const index of at) out[index] = this.handleFreeOf(out[index]!);
    return out;
  }

  private handleFreeOf(message: LanguageModelV3Message): LanguageModelV3Message {
    let free = this.handleFree.get(message);
    if (free === undefined) {
      free = handleFreeMessage(message);
      this.handleFree.set(message, free);
    }
    return free;
  }
}

/** A message made here with its handle lines reduced (a summary may quote a handle too). */
function handleFreeMessage(message: LanguageModelV3Message): LanguageModelV3Message {
  if (message.role === 'user') {
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
}

/** What the history part of the middleware works with. */
interface HistoryKeeper {
  cHist: ReturnType<typeof historyCompressor>;
  sessionId: string;
  agentName: string;
  ledger: Ledger;
  threshold: number | undefined;
  budget: number | undefined;
  made: MadeMessages;
}

/**
 * The history state of `prompt`: the last one with the events of the new messages appended, when `prompt`
 * is the last call's with messages appended; else (an edited conversation) its events again, keeping the
 * compactions whose messages are all still there. The first `reused` messages are those of the last call
 * (see {@link samePrefix}), so they give the same events and are not compared again.
 */
function historyOf(
  sessionId: string,
  previous: ConversationState | undefined,
  prompt: LanguageModelV3Prompt,
  reused: number,
): ConversationState {
  const seen = previous?.messages ?? [];
  let grows = previous !== undefined && seen.length <= prompt.length;
  for (let index = Math.min(reused, seen.length); grows && index < seen.length; index++)
    grows = sameEvents(seen[index]!, prompt[index]!);
  let state = previous;
  if (state && grows) {
    appendPromptEvents(prompt, seen.length, state.session.events, state.messageOf);
    for (let index = seen.length; index < prompt.length; index++) seen.push(prompt[index]!);
  } else {
    const { events, messageOf } = promptEvents(prompt);
    // An event is the same as before when its message is still at its place with the same content (an event id
    // names a place): its token count is kept, and so are the compactions from and to such events. Those over
    // messages that are gone or changed (an edited conversation) no longer apply.
    const before = state;
    const same = (id: string): boolean => {
      const at = messageOf.get(id);
      return at !== undefined && before?.messageOf.get(id) === at && sameEvents(before.messages[at]!, prompt[at]!);
    };
    const valid = (before?.session.events ?? []).filter(
      (e): e is CompactionEvent => e.kind === 'compaction' && same(e.fromEventId) && same(e.toEventId),
    );
    const tokens = new Map<string, number>();
    const kept = new Set(valid.map((e) => e.id));
    for (const [id, count] of before?.tokens ?? []) if (kept.has(id) || same(id)) tokens.set(id, count);
    state = {
      messages: [...prompt],
      session: promptSession(sessionId, [...events, ...valid]),
      messageOf,
      compactions: valid.length,
      tokens,
    };
  }
  state.session.version = state.session.events.length;
  return state;
}

/** The prompt with its history compressed when above T_hist (see {@link historyCompressor}), as messages. */
async function compressHistory(
  keeper: HistoryKeeper,
  conversation: Conversation,
  prompt: LanguageModelV3Prompt,
  reused: number,
  task: string,
  signal: AbortSignal | undefined,
): Promise<LanguageModelV3Prompt> {
  const { cHist, agentName, ledger, threshold, budget } = keeper;
  const state = historyOf(keeper.sessionId, conversation.history, prompt, reused);
  conversation.history = state;
  const { session } = state;
  const request: ContextRequest = { instruction: [], items: eventsToItems(session.events), tools: [] };
  // At or under T_hist the compressor leaves the request as it is: measured here from each item's count,
  // kept with the item, so a later call counts only the items that are new.
  // Counted only until the sum is over: a long history's first call need not count every item here.
  let underThreshold = budget === undefined;
  const limit = threshold ?? DEFAULT_HISTORY_THRESHOLD;
  for (let index = 0, sum = 0; underThreshold && index < request.items.length; index++) {
    sum += itemTokens(state, request.items[index]!);
    underThreshold = sum <= limit;
  }
  if (!underThreshold) {
    const context: ProcessorContext = {
      session,
      invocationId: 'ai-sdk',
      agentName,
      task,
      services: new Map(),
      signal: signal ?? new AbortController().signal,
      ledger,
      appendCompaction: async (compaction) => {
        session.events.push({
          id: crypto.randomUUID(),
          invocationId: 'ai-sdk',
          author: agentName,
          timestamp: Date.now(),
          kind: 'compaction',
          ...compaction,
        });
        state.compactions += 1;
      },
    };
    await cHist.process(request, context);
  }
  if (state.compactions === 0) return prompt;
  return toPrompt(prompt, request.items, state.messageOf, conversation.systems, keeper.made);
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
 * Writes items back as messages: the system messages (at `systems`) first, each kept message as it was,
 * summaries as user messages.
 */
function toPrompt(
  prompt: LanguageModelV3Prompt,
  items: readonly ContextItem[],
  messageOf: ReadonlyMap<string, number>,
  systems: readonly number[],
  made: MadeMessages,
): LanguageModelV3Prompt {
  const out: LanguageModelV3Prompt = systems.map((index) => prompt[index]!);
  const emitted = new Set<number>();
  for (const item of items) {
    if (item.type === 'summary') {
      out.push(made.summary(item));
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
