/**
 * Turns session events into history items. Compaction events replace the range of events they cover
 * with their summary; raw events stay in the session, untouched.
 */
import type { CompactionEvent, SessionEvent } from '../session/types.js';
import type { ContextItem } from './request.js';

const itemCache = new WeakMap<SessionEvent, ContextItem | null>();

function eventToItem(event: SessionEvent): ContextItem | null {
  let item = itemCache.get(event);
  if (item !== undefined) return item;
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
  itemCache.set(event, item);
  return item;
}

/**
 * Builds history items from events. For each compaction event not itself covered by a later one, the
 * events from `fromEventId` to `toEventId` are replaced by one summary item at the position of the first.
 */
export function eventsToItems(events: readonly SessionEvent[]): ContextItem[] {
  const index = new Map<string, number>();
  const compactions: { ev: CompactionEvent; from: number; to: number }[] = [];
  events.forEach((e, i) => {
    index.set(e.id, i);
    if (e.kind === 'compaction') {
      const from = index.get(e.fromEventId);
      const to = index.get(e.toEventId);
      if (from !== undefined && to !== undefined && from <= to) compactions.push({ ev: e, from, to });
    }
  });
  const covered = new Array<boolean>(events.length).fill(false);
  const summaryAt = new Map<number, CompactionEvent>();
  // Later compactions win over earlier ones they overlap (an accumulated summary covers the old one).
  for (let c = compactions.length - 1; c >= 0; c--) {
    const { ev, from, to } = compactions[c]!;
    if (covered[from] || covered[to]) continue;
    for (let i = from; i <= to; i++) covered[i] = true;
    summaryAt.set(from, ev);
  }
  const items: ContextItem[] = [];
  for (let i = 0; i < events.length; i++) {
    const summary = summaryAt.get(i);
    if (summary) items.push({ type: 'summary', text: summary.summary, eventId: summary.id });
    if (covered[i]) continue;
    const item = eventToItem(events[i]!);
    if (item) items.push(item);
  }
  return items;
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
