/**
 * The part of an append every store shares: checking a batch's shared-key reads against the stored
 * versions, folding its deltas and increments into what each table must change, and updating the
 * caller's in-memory session once the store has committed. Keeping it in one place keeps the stores'
 * semantics identical.
 */
import { SharedStateConflictError } from './store.js';
import { persistableDelta, scopeOf, TEMP_PREFIX } from './state.js';
import type { JsonValue, Session, SessionEvent } from './types.js';
import { ownValue, setOwn } from '../util/own-field.js';

/** The shared keys a batch reads or writes, by scope, sorted: the rows a store locks, in this order. */
export interface SharedKeys {
  user: string[];
  app: string[];
}

/** Splits `keys` into their `user:` and `app:` keys, sorted; other keys are left out. */
export function sharedKeys(keys: Iterable<string>): SharedKeys {
  const user = new Set<string>();
  const app = new Set<string>();
  for (const key of keys) {
    const scope = scopeOf(key);
    if (scope === 'user') user.add(key);
    else if (scope === 'app') app.add(key);
  }
  // A fixed lock order (users before app, keys sorted) is what keeps concurrent appends deadlock-free.
  return { user: [...user].sort(), app: [...app].sort() };
}

/** The `user:` and `app:` keys that `events` read (their `reads`) or write (deltas, increments). */
export function sharedKeysOf(events: readonly SessionEvent[]): SharedKeys {
  return sharedKeys(
    events.flatMap((event) => [
      ...Object.keys(event.reads ?? {}),
      ...Object.keys(event.delta ?? {}),
      ...Object.keys(event.increments ?? {}),
    ]),
  );
}

/** A shared key as it is stored: its value (`undefined`: absent or deleted) and version (0: never written). */
export interface SharedValue {
  value: JsonValue | undefined;
  version: number;
}

/** A shared key as a batch leaves it: its final value (`null`: deleted) and its new version. */
export interface SharedWrite {
  value: JsonValue | null;
  version: number;
}

/** What a store holds now, read inside its append transaction, for {@link planAppend}. */
export interface StoredView {
  /** The session's stored state (session-scope keys only). Not modified. */
  sessionState: Readonly<Record<string, JsonValue>>;
  /** The stored value and version of a `user:`/`app:` key. */
  shared(key: string): SharedValue;
}

/** What a store must write for one batch. */
export interface AppendPlan {
  /** The events as persisted: `temp:` keys removed from their deltas and increments. */
  events: SessionEvent[];
  /** The session's stored state after the batch. */
  sessionState: Record<string, JsonValue>;
  /** Every shared key the batch writes, with its final value and version. */
  shared: Map<string, SharedWrite>;
}

function persistableIncrements(increments: Record<string, number> | undefined): Record<string, number> | undefined {
  let out: Record<string, number> | undefined;
  for (const [key, by] of Object.entries(increments ?? {})) if (scopeOf(key) !== 'temp') setOwn((out ??= {}), key, by);
  return out;
}

function addTo(key: string, current: JsonValue | undefined, by: number): number {
  if (current !== undefined && typeof current !== 'number') {
    throw new TypeError(
      `Cannot increment state key "${key}": it holds ${Array.isArray(current) ? 'an array' : typeof current}, not a number. Use set() for non-numeric values.`,
    );
  }
  if (!Number.isFinite(by))
    throw new TypeError(`Cannot increment state key "${key}" by ${by}: the amount must be a finite number.`);
  return (current ?? 0) + by;
}

/**
 * A copy of `event` with its delta and increments as stored (absent when undefined). An event without
 * either (most of them) is copied by one spread: deleting a key from the copy would turn it into a
 * slow dictionary object that every later reader (encoding, copying, converting) pays for.
 */
/** Per event kind, the fields that must be strings: what the history renders and counts. */
const TEXT_FIELDS: Readonly<Record<SessionEvent['kind'], readonly string[]>> = {
  user: ['text'],
  model: ['text'],
  'tool-result': ['toolCallId', 'toolName', 'output'],
  transfer: ['from', 'to'],
  escalate: ['reason'],
  compaction: ['fromEventId', 'toEventId', 'summary'],
  error: ['code', 'message'],
};

/**
 * Refuses an event whose kind is unknown or whose text fields are not strings, before anything is
 * stored: such an event would otherwise be stored and break every later read of the session's history
 * far from its cause (a tool result given as an object, as histories imported from elsewhere hold).
 */
function checkEventShape(event: SessionEvent): void {
  const fields = Object.hasOwn(TEXT_FIELDS, event.kind) ? TEXT_FIELDS[event.kind] : undefined;
  if (!fields) throw new TypeError(`Event ${String(event.id)} has an unknown kind ${JSON.stringify(event.kind)}.`);
  if (typeof event.id !== 'string') throw new TypeError(`An event of kind ${event.kind} has no string id.`);
  for (const field of fields) {
    const value = (event as unknown as Record<string, unknown>)[field];
    if (typeof value !== 'string')
      throw new TypeError(
        `Event ${event.id} (${event.kind}): ${field} must be a string, got ${value === null ? 'null' : typeof value}.` +
          (event.kind === 'tool-result' && field === 'output'
            ? ' A tool result is stored as the text the model reads: serialize structured output first (e.g. JSON.stringify).'
            : ''),
      );
  }
}

function persistedEvent(
  event: SessionEvent,
  delta: SessionEvent['delta'],
  increments: SessionEvent['increments'],
): SessionEvent {
  if (!Object.hasOwn(event, 'delta') && !Object.hasOwn(event, 'increments')) return { ...event };
  const out: SessionEvent = { ...event, delta, increments };
  if (delta === undefined) delete out.delta;
  if (increments === undefined) delete out.increments;
  return out;
}

/**
 * Checks `events` in order against what the store holds and plans the writes. Each event's reads are
 * checked after the writes of the events before it in the batch, so a batch is judged exactly as if
 * its events were appended one by one. Increments add to the value stored now, whatever it became
 * since the event was computed: that is what lets concurrent increments all count.
 *
 * @throws SharedStateConflictError when a read key has moved; the store must then change nothing.
 * @throws TypeError when `reads` names a key that is not `user:`/`app:` (session keys are covered by the
 *   session version, `temp:` keys are never stored), or an increment meets a value that is not a number.
 */
export function planAppend(session: Session, events: readonly SessionEvent[], stored: StoredView): AppendPlan {
  const shared = new Map<string, SharedWrite>();
  const current = (key: string): SharedValue => {
    const write = shared.get(key);
    return write ? { value: write.value ?? undefined, version: write.version } : stored.shared(key);
  };
  const sessionState: Record<string, JsonValue> = { ...stored.sessionState };
  const persisted: SessionEvent[] = [];
  for (const event of events) checkEventShape(event);
  for (const event of events) {
    for (const [key, expected] of Object.entries(event.reads ?? {})) {
      const scope = scopeOf(key);
      if (scope !== 'user' && scope !== 'app') {
        throw new TypeError(
          `Event ${event.id} lists "${key}" in reads; only user: and app: keys are version-checked there (session keys are covered by the session version).`,
        );
      }
      const actual = current(key).version;
      if (actual !== expected)
        throw new SharedStateConflictError(session.sessionId, session.version, key, expected, actual);
    }
    const delta = persistableDelta(event.delta);
    const increments = persistableIncrements(event.increments);
    persisted.push(persistedEvent(event, delta, increments));
    for (const [key, value] of Object.entries(delta ?? {})) {
      if (scopeOf(key) !== 'session') shared.set(key, { value, version: current(key).version + 1 });
      else if (value === null) delete sessionState[key];
      else setOwn(sessionState, key, value);
    }
    for (const [key, by] of Object.entries(increments ?? {})) {
      if (scopeOf(key) === 'session') setOwn(sessionState, key, addTo(key, ownValue(sessionState, key), by));
      else {
        const currentValue = current(key);
        shared.set(key, { value: addTo(key, currentValue.value, by), version: currentValue.version + 1 });
      }
    }
  }
  return { events: persisted, sessionState, shared };
}

/**
 * Brings the caller's session up to date after a store committed `plan`: events appended, `temp:`
 * writes applied in memory (they live there for the invocation), stored keys set to the values the
 * store computed, versions advanced.
 */
export function commitToSession(session: Session, events: readonly SessionEvent[], plan: AppendPlan): void {
  const touched = new Set<string>();
  events.forEach((event, index) => {
    for (const [key, value] of Object.entries(event.delta ?? {})) {
      if (scopeOf(key) !== 'temp') touched.add(key);
      else if (value === null) delete session.state[key];
      else setOwn(session.state, key, value);
    }
    for (const [key, by] of Object.entries(event.increments ?? {})) {
      if (scopeOf(key) !== 'temp') touched.add(key);
      else setOwn(session.state, key, addTo(key, ownValue(session.state, key), by));
    }
    session.events.push(plan.events[index]!);
  });
  for (const key of touched) {
    const write = plan.shared.get(key);
    const value = write ? write.value : Object.hasOwn(plan.sessionState, key) ? plan.sessionState[key]! : null;
    if (value === null) delete session.state[key];
    else setOwn(session.state, key, value);
  }
  session.version += events.length;
  const versions = (session.sharedVersions ??= {});
  for (const [key, write] of plan.shared) setOwn(versions, key, write.version);
  const last = events[events.length - 1];
  if (last) session.updatedAt = last.timestamp;
}

/**
 * Replaces `session`'s stored part (events, persisted state, versions) with `fresh`, a newer load of
 * the same session, in place, keeping its `temp:` keys: they belong to the running invocation and are
 * in no store. Used to retry after a conflict.
 */
export function refreshSession(session: Session, fresh: Session): void {
  for (const key of Object.keys(session.state)) if (!key.startsWith(TEMP_PREFIX)) delete session.state[key];
  for (const [key, value] of Object.entries(fresh.state))
    if (!key.startsWith(TEMP_PREFIX)) setOwn(session.state, key, value);
  session.events.length = 0;
  for (const event of fresh.events) session.events.push(event);
  session.version = fresh.version;
  session.sharedVersions = { ...fresh.sharedVersions };
  session.updatedAt = fresh.updatedAt;
}
