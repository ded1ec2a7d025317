/**
 * pagewise's own sessions: the JSON of a `Session` (as `pagewise sessions show --json` or any store
 * returns it), or every session of a store. Raw events are replayed; compaction events are left out, so
 * the replay starts from the history as it was before any history compression. Tool results are what
 * the session recorded: if an observation compressor ran, they are its output (the raw result is a page).
 */
import { z } from 'zod';
import type { SessionStore, Session, SessionEvent } from 'pagewise';
import type { ContextItem } from 'pagewise/context';
import { eventsToItems } from 'pagewise/internal';
import { eventSchema } from 'pagewise/store-kit';
import type { ReplayTrace } from '../trace.js';
import { parseAt } from './shared.js';

const SessionShape = z
  .object({ appName: z.string(), userId: z.string(), sessionId: z.string(), events: z.array(z.unknown()) })
  .loose();

/** Whether `value` looks like a stored session. */
export function isPagewiseSession(value: unknown): boolean {
  const record = value as Record<string, unknown> | null;
  return !!record && typeof record.sessionId === 'string' && Array.isArray(record.events);
}

/** A session's events as a trace. */
export function sessionTrace(
  session: Pick<Session, 'appName' | 'userId' | 'sessionId' | 'events'>,
  source: string,
): ReplayTrace {
  const events = session.events.filter((e) => e.kind !== 'compaction');
  const items: ContextItem[] = eventsToItems(events).map((item) => {
    // Event ids belong to the stored session; the replay builds its own events.
    const { eventId: _eventId, ...rest } = item;
    return rest as ContextItem;
  });
  return {
    id: `${session.appName}/${session.userId}/${session.sessionId}`,
    format: 'pagewise-session',
    source,
    system: '',
    items,
  };
}

/** Reads a session's JSON (already parsed) into a trace, every event checked against the event schema. */
export function readPagewiseSession(value: unknown, meta: { source: string }): ReplayTrace {
  const session = parseAt(SessionShape, value, meta.source);
  const events = session.events.map(
    (raw, index) => parseAt(eventSchema, raw, meta.source, `events[${index}]`) as SessionEvent,
  );
  return sessionTrace({ ...session, events }, meta.source);
}

/**
 * Every session of `appName` in `store` (one user's when `userId` is given), as traces.
 *
 * @example
 * const traces = await tracesFromStore(new SqliteSessionStore(db), { appName: 'support' });
 */
export async function tracesFromStore(
  store: SessionStore,
  options: { appName: string; userId?: string },
): Promise<ReplayTrace[]> {
  const traces: ReplayTrace[] = [];
  for (const summary of await store.listSessions(options)) {
    const session = await store.getSession(summary);
    if (session) traces.push(sessionTrace(session, `store:${summary.appName}/${summary.userId}/${summary.sessionId}`));
  }
  return traces;
}
