/**
 * Runs pagewise context processors (history compression, paging-turn compaction, FIFO, ...) over another
 * framework's message list. The adapter reads its messages as session events, each remembering the
 * messages it came from; after the processors, messages whose events all survived unchanged are passed
 * through as they were (provider fields and all), changed items are rebuilt by the adapter, and
 * summaries become new messages. Compactions are remembered per conversation, so a summary is folded
 * forward as the conversation grows instead of being recomputed.
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

/** Applies processors to framework messages, remembering compactions per conversation. */
export class HistoryBridge {
  private readonly compactions = new Map<string, CompactionEvent[]>();

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
   * Returns the messages the model should see. When no processor changes anything the input array
   * itself is returned.
   *
   * @throws SystemError when a processor separated a tool call from its result.
   */
  async apply<M>(messages: readonly M[], codec: BridgeCodec<M>, ctx: BridgeContext): Promise<readonly M[]> {
    if (this.processors.length === 0) return messages;
    const sourced = codec.read(messages);
    const events: SessionEvent[] = [];
    const base = { invocationId: ctx.invocationId, author: ctx.agentName, timestamp: 0 };
    const sourcesOf = new Map<string, number[]>();
    sourced.forEach(({ event, sources }, index) => {
      const id = `${sources[0] ?? -1}.${index}:${sha(fingerprint(event))}`;
      sourcesOf.set(id, sources);
      events.push(
        event.kind === 'user'
          ? { ...base, id, kind: 'user', author: 'user', text: event.text }
          : event.kind === 'model'
            ? { ...base, id, kind: 'model', text: event.text, toolCalls: event.toolCalls }
            : { ...base, id, ...event },
      );
    });
    const first = events[0];
    if (!first) return messages;
    const conversation = `${ctx.sessionId}:${first.id}`;
    const known = new Set(events.map((e) => e.id));
    // Compactions over messages that are gone (an edited conversation) no longer apply.
    const valid = (this.compactions.get(conversation) ?? []).filter(
      (c) => known.has(c.fromEventId) && known.has(c.toEventId),
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

function rebuild<M>(
  messages: readonly M[],
  codec: BridgeCodec<M>,
  items: readonly ContextItem[],
  original: readonly ContextItem[],
  sourcesOf: ReadonlyMap<string, number[]>,
): readonly M[] {
  const unchanged = new Set(items.filter((it) => original.includes(it)));
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
