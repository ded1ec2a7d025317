/**
 * Runs pagewise context processors (history compression, paging-turn compaction, FIFO, ...) over another
 * framework's message list. The adapter reads its messages as session events, each remembering the
 * messages it came from; after the processors, messages whose events all survived unchanged are passed
 * through as they were (provider fields and all), changed items are rebuilt by the adapter, and
 * summaries become new messages. Compactions are remembered per conversation, so a summary is folded
 * forward as the conversation grows instead of being recomputed.
 *
 * A framework sends the whole history at every model call. With a codec that can read part of a list
 * (`readFrom` and `fields`), the events of the leading messages that hold what they held at the session's last
 * call are taken as they were (the same event objects, so their history items and token counts too), and only
 * the messages after them are read and fingerprinted.
 */
import { createHash, randomUUID } from 'node:crypto';
import { eventsToItems } from '../context/history.js';
import {
  findBrokenToolPair,
  type ContextItem,
  type ContextProcessor,
  type ContextRequest,
  type ProcessorContext,
} from '../context/request.js';
import { SystemError } from '../errors.js';
import type { CompactionEvent, Session, SessionEvent, ToolCallRecord } from '../session/types.js';
import type { Ledger } from '../tokens/ledger.js';

/** One history unit as the adapter reads it, before ids are given. */
export type BridgeEvent =
  | { kind: 'user'; text: string }
  | { kind: 'model'; text: string; toolCalls: ToolCallRecord[] }
  | { kind: 'tool-result'; toolCallId: string; toolName: string; output: string; isError: boolean };

/** A history unit with the indices of the framework messages it was read from. */
export interface SourcedEvent {
  event: BridgeEvent;
  /** Indices into the framework's message list. */
  sources: number[];
}

/** What a framework adapter supplies to {@link HistoryBridge.apply}. */
export interface BridgeCodec<M> {
  /** Reads the messages as events; messages that carry no history (system) are simply not sourced. */
  read(messages: readonly M[]): SourcedEvent[];
  /** Messages standing for one item a processor changed (a cleared tool result, ...). */
  rebuild(item: ContextItem): M[];
  /** A message that carries a summary of compacted history. */
  summary(text: string): M;
  /** Messages kept whatever the processors do (system messages), with the index they go back to. */
  pinned?(messages: readonly M[]): number[];
  /**
   * Reads `messages` from index `from` on, giving what {@link read} gives of the whole list for them: `from` is
   * the first source of an event of the whole list, and sources stay indices into the whole list. With
   * {@link fields}, lets the bridge read only the messages that changed since the last call.
   */
  readFrom?(messages: readonly M[], from: number): SourcedEvent[];
  /**
   * The values of a message that its events are read from (strings, numbers, or objects compared by their
   * contents): two messages with the same fields give the same events. Kept from call to call, so a field
   * replaced in place is seen; an object changed inside while kept is not, so give its parts as fields.
   */
  fields?(message: M): readonly unknown[];
}

/** What the processors may see of the run. */
export interface BridgeContext {
  sessionId: string;
  agentName: string;
  invocationId: string;
  /** The user message the current task started with. */
  task: string;
  ledger: Ledger;
  signal?: AbortSignal;
  services?: ReadonlyMap<string, unknown>;
}

const sha = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 24);

/** Whether two field values are the same: identical, or plain objects and arrays holding the same values. */
function sameFieldValue(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) if (!sameFieldValue(left[index], right[index])) return false;
    return true;
  }
  if (Array.isArray(right) || Object.getPrototypeOf(left) !== Object.getPrototypeOf(right)) return false;
  const before = left as Record<string, unknown>;
  const now = right as Record<string, unknown>;
  let count = 0;
  for (const key in before) {
    if (!Object.prototype.hasOwnProperty.call(before, key)) continue;
    if (!Object.prototype.hasOwnProperty.call(now, key) || !sameFieldValue(before[key], now[key])) return false;
    count += 1;
  }
  for (const key in now) if (Object.prototype.hasOwnProperty.call(now, key)) count -= 1;
  return count === 0;
}

function sameFields(left: readonly unknown[], right: readonly unknown[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index++) if (!sameFieldValue(left[index], right[index])) return false;
  return true;
}

/** Whether two read events are the same event from the same messages. */
function sameSourced(before: SourcedEvent, now: SourcedEvent): boolean {
  return sameFieldValue(before.sources, now.sources) && sameFieldValue(before.event, now.event);
}

function fingerprint(event: BridgeEvent): string {
  switch (event.kind) {
    case 'user':
      return `user${event.text}`;
    case 'model':
      return `model${event.text}${JSON.stringify(event.toolCalls)}`;
    case 'tool-result':
      return `tool${event.toolCallId}${event.output}`;
  }
}

/** What the bridge read of a session's messages at its last call (see {@link BridgeCodec.readFrom}). */
interface ReadState {
  /** The fields of each message, as {@link BridgeCodec.fields} gave them. */
  fields: (readonly unknown[])[];
  /** The events read, in order, with their sources. */
  sourced: SourcedEvent[];
  /** The session events made of them, one for one; only appended to or cut short, so items are kept. */
  events: SessionEvent[];
  /** The sources of each event, by id. */
  sourcesOf: Map<string, number[]>;
  invocationId: string;
  agentName: string;
}

/** Applies processors to framework messages, remembering compactions per conversation. */
export class HistoryBridge {
  private readonly compactions = new Map<string, CompactionEvent[]>();
  private readonly reads = new Map<string, ReadState>();

  constructor(
    private readonly processors: readonly ContextProcessor[],
    /** Conversations whose compactions are remembered (least recently used dropped first). */
    private readonly maxConversations = 64,
  ) {}

  /** Whether any processor is configured. */
  get active(): boolean {
    return this.processors.length > 0;
  }

  /**
   * The messages as session events, with the sources of each by event id: the events of the leading messages
   * whose fields are those of the session's last call are taken as they were, the others read. A state is
   * only appended to in place (a call still running holds its events); one cut short is copied.
   */
  private readEvents<M>(
    messages: readonly M[],
    codec: BridgeCodec<M>,
    ctx: BridgeContext,
  ): { events: SessionEvent[]; sourcesOf: Map<string, number[]> } {
    const fields = codec.fields && codec.readFrom ? messages.map((message) => codec.fields!(message)) : undefined;
    const previous = fields && this.reads.get(ctx.sessionId);
    const resume =
      previous && previous.invocationId === ctx.invocationId && previous.agentName === ctx.agentName
        ? resumePoint(previous, fields)
        : { kept: 0, from: 0 };
    let kept = resume.kept;
    let read = kept > 0 ? codec.readFrom!(messages, resume.from) : [];
    // Nothing read after the kept events: a codec may join what it read last to the event before (kept as it was).
    if (read.length === 0) kept = 0;
    if (kept === 0) read = codec.read(messages);
    // The events read again that are the last call's, with the same sources, stay the same objects.
    let again = 0;
    if (kept > 0)
      while (
        again < read.length &&
        kept + again < previous!.sourced.length &&
        sameSourced(previous!.sourced[kept + again]!, read[again]!)
      )
        again += 1;
    let state: ReadState;
    if (kept > 0 && kept + again === previous!.sourced.length) state = previous!;
    else {
      const keep = kept > 0 ? kept + again : 0;
      state = {
        fields: [],
        sourced: previous && keep > 0 ? previous.sourced.slice(0, keep) : [],
        events: previous && keep > 0 ? previous.events.slice(0, keep) : [],
        sourcesOf: new Map(),
        invocationId: ctx.invocationId,
        agentName: ctx.agentName,
      };
      for (let index = 0; index < keep; index++)
        state.sourcesOf.set(state.events[index]!.id, state.sourced[index]!.sources);
    }
    const base = { invocationId: ctx.invocationId, author: ctx.agentName, timestamp: 0 };
    for (let offset = kept > 0 ? again : 0; offset < read.length; offset++) {
      const { event, sources } = read[offset]!;
      const id = `${sources[0] ?? -1}.${kept + offset}:${sha(fingerprint(event))}`;
      state.sourcesOf.set(id, sources);
      state.sourced.push({ event, sources });
      state.events.push(
        event.kind === 'user'
          ? { ...base, id, kind: 'user', author: 'user', text: event.text }
          : event.kind === 'model'
            ? { ...base, id, kind: 'model', text: event.text, toolCalls: event.toolCalls }
            : { ...base, id, ...event },
      );
    }
    if (fields) {
      state.fields = fields;
      this.reads.delete(ctx.sessionId);
      this.reads.set(ctx.sessionId, state);
      while (this.reads.size > this.maxConversations) this.reads.delete(this.reads.keys().next().value as string);
    }
    return { events: state.events, sourcesOf: state.sourcesOf };
  }

  /**
   * Returns the messages the model should see. When no processor changes anything the input array
   * itself is returned.
   *
   * @throws SystemError when a processor separated a tool call from its result.
   */
  async apply<M>(messages: readonly M[], codec: BridgeCodec<M>, ctx: BridgeContext): Promise<readonly M[]> {
    if (this.processors.length === 0) return messages;
    const { events, sourcesOf } = this.readEvents(messages, codec, ctx);
    const base = { invocationId: ctx.invocationId, author: ctx.agentName, timestamp: 0 };
    const first = events[0];
    if (!first) return messages;
    const conversation = `${ctx.sessionId}:${first.id}`;
    // Compactions over messages that are gone (an edited conversation) no longer apply.
    const valid = (this.compactions.get(conversation) ?? []).filter(
      (c) => sourcesOf.has(c.fromEventId) && sourcesOf.has(c.toEventId),
    );
    const session: Session = {
      appName: 'adapter',
      userId: 'adapter',
      sessionId: ctx.sessionId,
      state: {},
      events: [...events, ...valid],
      version: events.length + valid.length,
      createdAt: 0,
      updatedAt: 0,
    };
    const original = eventsToItems(events);
    const request: ContextRequest = { instruction: [], items: eventsToItems(session.events), tools: [] };
    const context: ProcessorContext = {
      session,
      invocationId: ctx.invocationId,
      agentName: ctx.agentName,
      task: ctx.task,
      services: ctx.services ?? new Map(),
      signal: ctx.signal ?? new AbortController().signal,
      ledger: ctx.ledger,
      appendCompaction: async (compaction) => {
        const event: CompactionEvent = {
          ...base,
          id: randomUUID(),
          timestamp: Date.now(),
          kind: 'compaction',
          ...compaction,
        };
        session.events.push(event);
        valid.push(event);
      },
    };
    for (const processor of this.processors) {
      await processor.process(request, context);
      const broken = findBrokenToolPair(request.items);
      if (broken)
        throw new SystemError(
          'broken-tool-pair',
          `Context processor "${processor.name}" separated a tool call from its result: ${broken}. This is a bug in that processor.`,
        );
    }
    this.compactions.delete(conversation);
    this.compactions.set(conversation, valid);
    while (this.compactions.size > this.maxConversations)
      this.compactions.delete(this.compactions.keys().next().value as string);
    return rebuild(messages, codec, request.items, original, sourcesOf);
  }
}

/**
 * How many events of the last call's read stand as they were, and the message the read resumes at: the events
 * that start among the leading messages whose fields are unchanged, less the last of them (with any other
 * event read from its first message), which a later message may still join. `{ kept: 0 }` reads all again.
 */
function resumePoint(previous: ReadState, fields: readonly (readonly unknown[])[]): { kept: number; from: number } {
  const limit = Math.min(previous.fields.length, fields.length);
  let same = 0;
  while (same < limit && sameFields(previous.fields[same]!, fields[same]!)) same += 1;
  const { sourced } = previous;
  const firstSource = (index: number): number => sourced[index]!.sources[0] ?? Number.POSITIVE_INFINITY;
  let kept = sourced.length;
  while (kept > 0 && !(firstSource(kept - 1) < same)) kept -= 1;
  if (kept === 0) return { kept: 0, from: 0 };
  const from = firstSource(kept - 1);
  while (kept > 0 && firstSource(kept - 1) >= from) kept -= 1;
  const lastSources = kept > 0 ? sourced[kept - 1]!.sources : [];
  // Events read from messages after the resume point are not kept.
  if (kept === 0 || lastSources[lastSources.length - 1]! >= from) return { kept: 0, from: 0 };
  return { kept, from };
}

function rebuild<M>(
  messages: readonly M[],
  codec: BridgeCodec<M>,
  items: readonly ContextItem[],
  original: readonly ContextItem[],
  sourcesOf: ReadonlyMap<string, number[]>,
): readonly M[] {
  const originals = new Set(original);
  const unchanged = new Set(items.filter((it) => originals.has(it)));
  // A message passes through as it was only when every event read from it survived unchanged.
  const intact = new Map<number, boolean>();
  for (const it of original) {
    for (const messageIndex of sourcesOf.get(it.eventId ?? '') ?? [])
      intact.set(messageIndex, (intact.get(messageIndex) ?? true) && unchanged.has(it));
  }
  const pinned = codec.pinned?.(messages) ?? [];
  const out: M[] = pinned.map((i) => messages[i]!);
  const emitted = new Set<number>(pinned);
  let changed = items.length !== original.length;
  for (const item of items) {
    const sources = item.eventId === undefined ? undefined : sourcesOf.get(item.eventId);
    if (item.type === 'summary') {
      out.push(codec.summary(item.text));
      changed = true;
      continue;
    }
    if (!sources) continue;
    if (sources.every((s) => intact.get(s))) {
      for (const messageIndex of sources) {
        if (emitted.has(messageIndex)) continue;
        emitted.add(messageIndex);
        out.push(messages[messageIndex]!);
      }
      continue;
    }
    changed = true;
    out.push(...codec.rebuild(item));
  }
  return changed ? out : messages;
}
