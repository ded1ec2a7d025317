/**
 * The SessionStore contract: durable sessions whose events are appended with their state deltas
 * atomically and version-checked. Implementations: memory, SQLite, PostgreSQL.
 */
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
   * Appends `event` and applies its delta atomically, if `session.version` equals the stored version;
   * otherwise throws VersionConflictError and changes nothing. On success the in-memory `session` is
   * updated too (events, state including `temp:` keys, version). `temp:` keys are never persisted.
   */
  appendEvent(session: Session, event: SessionEvent): Promise<SessionEvent>;
  /** Releases connections and file handles. */
  close(): Promise<void>;
}

/** Schema version of persisted session records and events. */
export const SESSION_SCHEMA_VERSION = 1;
/** Schema versions this build can still read. */
export const READABLE_SESSION_SCHEMA_VERSIONS: readonly number[] = [1];
