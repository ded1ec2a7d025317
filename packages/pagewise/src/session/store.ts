/**
 * The SessionStore contract: durable sessions whose events are appended with their state deltas
 * atomically and version-checked. Implementations: memory, SQLite, PostgreSQL.
 */
import { VersionConflictError } from '../errors.js';
import type { Session, SessionEvent, SessionKey, SessionSummary, JsonValue } from './types.js';

/** Options to create a session. */
export interface CreateSessionOptions {
  appName: string;
  userId: string;
  /** A caller-chosen id; a random one otherwise. */
  sessionId?: string;
  /** Initial state; `user:` and `app:` keys update the shared scopes, `temp:` keys are ignored. */
  state?: Record<string, JsonValue>;
}

/** Options to list sessions. */
export interface ListSessionsOptions {
  appName: string;
  /** Only this user's sessions; all users of the app otherwise. */
  userId?: string;
}

/** Durable storage of sessions and their events. */
export interface SessionStore {
  createSession(options: CreateSessionOptions): Promise<Session>;
  /** The session with its events and merged state, or undefined when absent. */
  getSession(key: SessionKey): Promise<Session | undefined>;
  listSessions(options: ListSessionsOptions): Promise<SessionSummary[]>;
  /** Deletes the session and its events; shared `user:`/`app:` state stays. Returns false if absent. */
  deleteSession(key: SessionKey): Promise<boolean>;
  /**
   * Appends `event` and applies its delta atomically: {@link SessionStore.appendEvents} with one event.
   */
  appendEvent(session: Session, event: SessionEvent): Promise<SessionEvent>;
  /**
   * Appends `events` in order as one unit: all of them are stored with their deltas, or none is.
   *
   * Refused, changing nothing, with {@link VersionConflictError} when `session.version` is not the stored
   * version (another writer appended to this session), and with {@link SharedStateConflictError} when an
   * event's `reads` names a `user:`/`app:` key whose version has moved since (writes by earlier events
   * of the same batch count). Both are retryable: reload the session, recompute, append again.
   *
   * On success the in-memory `session` is updated too (events, state including `temp:` keys, version,
   * shared versions); the version grows by `events.length`. `temp:` keys are never persisted. Returns
   * the events as persisted.
   */
  appendEvents(session: Session, events: readonly SessionEvent[]): Promise<SessionEvent[]>;
  /** Releases connections and file handles. */
  close(): Promise<void>;
}

/**
 * An optional capability of stores that can append under pessimistic locks (PostgreSQL). Optimistic
 * retries can starve a writer that keeps losing to fresh writers of the same session or shared key;
 * appending while holding the locks guarantees it finishes.
 */
export interface LockingSessionStore extends SessionStore {
  /**
   * In one transaction: locks the session row and the shared keys `lockKeys`, loads the stored session
   * into `session` (in place, keeping its `temp:` keys), calls `build`, and appends the events it
   * returns as {@link SessionStore.appendEvents} would. Other writers of that session and those keys
   * wait meanwhile, so `build` must be quick, free of side effects, and must not itself write to this
   * session or those keys through another connection (it would wait on its own locks).
   */
  appendEventsLocked(
    session: Session,
    lockKeys: readonly string[],
    build: () => Promise<readonly SessionEvent[]>,
  ): Promise<SessionEvent[]>;
}

/** True when `store` implements {@link LockingSessionStore}. */
export function canAppendLocked(store: SessionStore): store is LockingSessionStore {
  return typeof (store as Partial<LockingSessionStore>).appendEventsLocked === 'function';
}

/**
 * Schema version of persisted session records and events. 2 added `reads` and `increments` to events
 * and versioned, tombstoned `user:`/`app:` keys; 3 writes events in the leaner compact form of
 * `event-codec.ts` (usage as an array, finish reasons as numbers, raw text after the array), which a
 * build that reads only 1 and 2 would fail to decode. Records of 1 and 2 read as they are.
 */
export const SESSION_SCHEMA_VERSION = 3;
/** Schema versions this build can still read. */
export const READABLE_SESSION_SCHEMA_VERSIONS: readonly number[] = [1, 2, 3];

/**
 * A `user:` or `app:` key that an appended event was computed from has been changed by another writer
 * (usually another session of the same user) since it was read. Retryable: reload the session and
 * recompute the event; the runner re-runs the tool call for tools without side effects.
 */
export class SharedStateConflictError extends VersionConflictError {
  constructor(
    sessionId: string,
    sessionVersion: number,
    /** The shared key that moved. */
    readonly key: string,
    /** The version the event was computed from. */
    readonly expectedKeyVersion: number,
    /** The version stored now. */
    readonly actualKeyVersion: number,
  ) {
    super(sessionId, sessionVersion, sessionVersion);
    this.message =
      `Shared state key "${key}" is at version ${actualKeyVersion}, but the event appended to session ${sessionId} was computed from version ${expectedKeyVersion}: ` +
      'another session changed it meanwhile. Reload the session and recompute the event (the runner re-runs tool calls without side effects).';
  }
}
