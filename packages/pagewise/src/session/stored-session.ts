/**
 * The parts of creating, reading and listing a session that a SQL store does the same way whatever its
 * database: the key and first state of a new session, the first versions of the shared keys it starts with,
 * and a stored session row read back (schema checked, state parsed, shared values merged, a damaged record
 * reported as a StorageError naming the session). The statements and locks stay the store's own.
 */
import { randomUUID } from 'node:crypto';
import { StorageError } from '../errors.js';
import type { SharedWrite } from './append.js';
import { parseStoredState, parseStoredValue } from './event-schema.js';
import { applyDelta, splitDelta } from './state.js';
import { READABLE_SESSION_SCHEMA_VERSIONS, type CreateSessionOptions } from './store.js';
import type { JsonValue, Session, SessionEvent, SessionKey, SessionSummary } from './types.js';

/** A session about to be created, as {@link newSession} prepares it from the options of `createSession`. */
export interface NewSession {
  /** The session's key; a random UUID as its id when the options give none. */
  key: SessionKey;
  /** Its session-scoped state: the unprefixed keys of the initial state (`null` values left out). */
  state: Record<string, JsonValue>;
  /** The `user:` and `app:` keys of the initial state with their values, user keys first. */
  shared: [string, JsonValue | null][];
  /** When it is created (ms since the epoch): its `createdAt` and `updatedAt`. */
  now: number;
}

/**
 * Prepares a session `createSession` is about to insert: its key, its session-scoped state, the shared keys
 * the initial state writes (`temp:` keys are dropped) and the time it is created at.
 *
 * @example
 * ```ts
 * import { newSession } from 'pagewise/store-kit';
 *
 * const created = newSession({ appName: 'app', userId: 'u1', state: { topic: 'tax', 'user:lang': 'en' } });
 * console.log(created.state, created.shared); // { topic: 'tax' } [ [ 'user:lang', 'en' ] ]
 * ```
 */
export function newSession(options: CreateSessionOptions): NewSession {
  const key: SessionKey = {
    appName: options.appName,
    userId: options.userId,
    sessionId: options.sessionId ?? randomUUID(),
  };
  const parts = splitDelta(options.state);
  const state: Record<string, JsonValue> = {};
  applyDelta(state, parts.session);
  return { key, state, shared: Object.entries({ ...parts.user, ...parts.app }), now: Date.now() };
}

/**
 * The writes of a new session's shared keys: each takes the version after the one stored (0 for a key never
 * written), so a key deleted and written again never reuses a version a reader may hold. Call it inside the
 * transaction that read `storedVersion`.
 */
export function firstSharedWrites(
  shared: readonly [string, JsonValue | null][],
  storedVersion: (key: string) => number,
): [string, SharedWrite][] {
  return shared.map(([key, value]) => [key, { value, version: storedVersion(key) + 1 }]);
}

/** The columns of a stored session row (snake_case; timestamps as numbers, or as pg gives bigint columns, text). */
export interface StoredSessionRow {
  app_name: string;
  user_id: string;
  session_id: string;
  /** The session-scoped state, as JSON text. */
  state: string;
  version: number;
  created_at: number | string;
  updated_at: number | string;
  schema_version: number;
}

/** A stored `user:` or `app:` key: its JSON text, `null` for a deleted key (a tombstone keeping the version). */
export interface StoredSharedValue {
  key: string;
  value: string | null;
  version: number;
}

/** What {@link sessionFromRow} reads besides the session row, called in this order once the row's schema is checked. */
export interface StoredSessionParts {
  /** The session's shared keys: the stored `user:` keys of its user and `app:` keys of its app. */
  shared(): Iterable<StoredSharedValue>;
  /** The session's events, in order. */
  events(): SessionEvent[];
}

/**
 * Reads a stored session back: refuses a schema version this build cannot read, parses the state, merges in
 * the shared keys (recording each one's version, deleted ones included) and takes the events. Anything that
 * fails to parse on the way is a StorageError naming the session.
 *
 * @throws StorageError when the row's schema version is not one of `READABLE_SESSION_SCHEMA_VERSIONS`, or when
 *   the state, a shared value or an event does not parse.
 */
export function sessionFromRow(
  key: SessionKey,
  row: Pick<StoredSessionRow, 'state' | 'version' | 'created_at' | 'updated_at' | 'schema_version'>,
  parts: StoredSessionParts,
): Session {
  if (!READABLE_SESSION_SCHEMA_VERSIONS.includes(row.schema_version)) {
    throw new StorageError(
      `Session ${key.sessionId} was written with schema version ${row.schema_version}, which this version of pagewise cannot read (it reads ${READABLE_SESSION_SCHEMA_VERSIONS.join(', ')}). Upgrade pagewise.`,
    );
  }
  try {
    const state = parseStoredState(row.state);
    const sharedVersions: Record<string, number> = {};
    for (const shared of parts.shared()) {
      sharedVersions[shared.key] = shared.version;
      if (shared.value !== null) state[shared.key] = parseStoredValue(shared.value);
    }
    const events = parts.events();
    const { appName, userId, sessionId } = key;
    return {
      appName,
      userId,
      sessionId,
      state,
      events,
      version: row.version,
      sharedVersions,
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    };
  } catch (error) {
    if (error instanceof StorageError) throw error;
    throw new StorageError(
      `Session ${key.sessionId} holds a record that does not parse: ${(error as Error).message}`,
      error,
    );
  }
}

/** A session row of a listing, with the number of events the session holds (a count, as a number or as text). */
export type StoredSessionListRow = Omit<StoredSessionRow, 'state' | 'schema_version'> & {
  event_count: number | string;
};

/** The summary `listSessions` returns for a row of a listing. */
export function sessionSummaryFromRow(row: StoredSessionListRow): SessionSummary {
  return {
    appName: row.app_name,
    userId: row.user_id,
    sessionId: row.session_id,
    version: row.version,
    eventCount: Number(row.event_count),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
