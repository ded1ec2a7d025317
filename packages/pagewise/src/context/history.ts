/**
 * Turns session events into history items. Compaction events replace the range of events they cover
 * with their summary; raw events stay in the session, untouched.
 */
import type { CompactionEvent, SessionEvent } from '../session/types.js';
import type { EncodingName } from '../tokens/tokenizer.js';
import { itemTokenCount, presetItemTokens, type ContextItem } from './request.js';

const itemCache = new WeakMap<SessionEvent, ContextItem | null>();

const ENCODINGS: readonly EncodingName[] = ['o200k_base', 'cl100k_base'];

/**
 * The history item of one event (null for events the model does not see), converted once per event
 * object; token counts stored with the event are preset for it.
 */
export function eventToItem(event: SessionEvent): ContextItem | null {
  let item = itemCache.get(event);
  if (item !== undefined) return item;
  item = convertEvent(event);
  itemCache.set(event, item);
  // Counts stored with the event (see SessionEvent.tokens) stand for counting its item again.
  const stored = event.tokens;
  if (item && stored)
    for (const encoding of ENCODINGS) {
      const tokens = stored[encoding];
      if (tokens !== undefined) presetItemTokens(item, encoding, tokens);
    }
  return item;
}

/**
 * Lets the events a store returned for `built` (its copies, as an append makes them) find the history
 * items already converted for `built`, so an event a step appends is converted once, not again when the
 * next request is built from the session. An item is shared only with a copy holding the very values
 * the item was made from (and the same stored token counts); any other is converted as before.
 */
export function shareItems(built: readonly SessionEvent[], stored: readonly SessionEvent[]): void {
  if (built.length !== stored.length) return;
  for (let index = 0; index < built.length; index++) {
    const from = built[index]!;
    const to = stored[index]!;
    if (from === to || itemCache.has(to)) continue;
    const item = itemCache.get(from);
    if (item !== undefined && sameItemSource(from, to)) itemCache.set(to, item);
  }
}

/** Whether `copy` holds every value {@link convertEvent} and {@link eventToItem} read from `source`, by identity. */
function sameItemSource(source: SessionEvent, copy: SessionEvent): boolean {
  if (source.kind !== copy.kind || source.id !== copy.id || source.tokens !== copy.tokens) return false;
  switch (source.kind) {
    case 'user':
      return source.text === (copy as typeof source).text;
    case 'model':
      return source.text === (copy as typeof source).text && source.toolCalls === (copy as typeof source).toolCalls;
    case 'tool-result': {
      const result = copy as typeof source;
      return (
        source.toolCallId === result.toolCallId &&
        source.toolName === result.toolName &&
        source.output === result.output &&
        source.isError === result.isError
      );
    }
    default:
      return false;
  }
}

/**
 * Writes into each event the token count of its history item under `encoding` (see
 * `SessionEvent.tokens`), so a process that loads the session later reads the count instead of
 * counting the text. Events without a history item (transfers, compactions, empty responses) are left
 * as they are. Returns the same events, changed in place: call it on events not yet appended. With
 * `keepTokenIds` (a session whose requests the prompt-cache model observes) the texts' token ids are kept
 * too, so the model's encoding of the same texts at the next request is a lookup.
 */
export function withTokenCounts<T extends SessionEvent>(
  events: T[],
  encoding: EncodingName,
  keepTokenIds = false,
): T[] {
  for (const event of events) {
    if (event.kind === 'compaction') continue;
    const item = eventToItem(event);
    if (item) event.tokens = { ...event.tokens, [encoding]: itemTokenCount(item, encoding, keepTokenIds) };
  }
  return events;
}

function convertEvent(event: SessionEvent): ContextItem | null {
  let item: ContextItem | null;
  switch (event.kind) {
    case 'user':
      item = { type: 'user', text: event.text, eventId: event.id };
      break;
    case 'model':
      item =
        event.text || event.toolCalls.length > 0
          ? { type: 'assistant', text: event.text, toolCalls: event.toolCalls, eventId: event.id }
          : null;
      break;
    case 'tool-result':
      item = {
        type: 'tool-result',
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        output: event.output,
        isError: event.isError,
        eventId: event.id,
      };
      break;
    default:
      item = null;
  }
  return item;
}

/**
 * Builds history items from events. For each compaction event not itself covered by a later one, the
 * events from `fromEventId` to `toEventId` are replaced by one summary item at the position of the first.
 *
 * Events are append-only, so the items of a list already converted are kept (per events array) and a
 * later call converts only the events appended since; a compaction among them, or a list that changed
 * other than by appending, is converted again in full. The returned array is the caller's to change.
 */
export function eventsToItems(events: readonly SessionEvent[]): ContextItem[] {
  let cached = historyCache.get(events);
  if (!cached || !extends_(cached, events)) {
    cached = { count: 0, first: undefined, last: undefined, items: [] };
    historyCache.set(events, cached);
  }
  if (cached.count < events.length) {
    let compacted = false;
    for (let index = cached.count; index < events.length && !compacted; index++)
      compacted = events[index]!.kind === 'compaction';
    if (compacted) cached.items = convertAll(events);
    else for (let index = cached.count; index < events.length; index++) pushItem(cached.items, events[index]!);
    cached.count = events.length;
    cached.first = events[0];
    cached.last = events[events.length - 1];
  }
  return cached.items.slice();
}

interface ConvertedHistory {
  /** Events converted so far. */
  count: number;
  first: SessionEvent | undefined;
  last: SessionEvent | undefined;
  items: ContextItem[];
}

const historyCache = new WeakMap<readonly SessionEvent[], ConvertedHistory>();

/** Whether `events` is the converted list with events appended (same first and last converted event). */
function extends_(cached: ConvertedHistory, events: readonly SessionEvent[]): boolean {
  return (
    cached.count <= events.length &&
    (cached.count === 0 || (events[0] === cached.first && events[cached.count - 1] === cached.last))
  );
}

function pushItem(items: ContextItem[], event: SessionEvent): void {
  const item = eventToItem(event);
  if (item) items.push(item);
}

function convertAll(events: readonly SessionEvent[]): ContextItem[] {
  const index = new Map<string, number>();
  const compactions: { ev: CompactionEvent; from: number; to: number }[] = [];
  events.forEach((event, position) => {
    index.set(event.id, position);
    if (event.kind === 'compaction') {
      const from = index.get(event.fromEventId);
      const to = index.get(event.toEventId);
      if (from !== undefined && to !== undefined && from <= to) compactions.push({ ev: event, from, to });
    }
  });
  if (compactions.length === 0) {
    const plain: ContextItem[] = [];
    for (const event of events) pushItem(plain, event);
    return plain;
  }
  const covered = new Array<boolean>(events.length).fill(false);
  const summaryAt = new Map<number, CompactionEvent>();
  // Later compactions win over earlier ones they overlap (an accumulated summary covers the old one).
  for (let latest = compactions.length - 1; latest >= 0; latest--) {
    const { ev, from, to } = compactions[latest]!;
    if (covered[from] || covered[to]) continue;
    for (let position = from; position <= to; position++) covered[position] = true;
    summaryAt.set(from, ev);
  }
  const items: ContextItem[] = [];
  for (let position = 0; position < events.length; position++) {
    const summary = summaryAt.get(position);
    if (summary) items.push(summaryItem(summary));
    if (!covered[position]) pushItem(items, events[position]!);
  }
  return items;
}

const summaryCache = new WeakMap<CompactionEvent, ContextItem>();

function summaryItem(event: CompactionEvent): ContextItem {
  let item = summaryCache.get(event);
  if (!item) {
    item = { type: 'summary', text: event.summary, eventId: event.id };
    summaryCache.set(event, item);
  }
  return item;
}

/** Groups items into turns: a user or summary item alone, or an assistant item with its tool results. */
export function groupTurns(items: readonly ContextItem[]): ContextItem[][] {
  const turns: ContextItem[][] = [];
  for (const item of items) {
    const last = turns[turns.length - 1];
    if (item.type === 'tool-result' && last) last.push(item);
    else turns.push([item]);
  }
  return turns;
}
