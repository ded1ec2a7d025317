/**
 * The embedded SQLite SessionStore (better-sqlite3, WAL): one file holds sessions, events and shared
 * user/app state. An append and its delta commit in one transaction, checked against the version.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { StorageError, VersionConflictError } from '../../errors.js';
import { parseStoredEvent, parseStoredState } from '../../session/event-schema.js';
import { applyDelta, persistableDelta, splitDelta } from '../../session/state.js';
import {
  READABLE_SESSION_SCHEMA_VERSIONS,
  SESSION_SCHEMA_VERSION,
  type CreateSessionOptions,
  type ListSessionsOptions,
  type SessionStore,
} from '../../session/store.js';
import type { JsonValue, Session, SessionEvent, SessionKey, SessionSummary, StateDelta } from '../../session/types.js';
import { migrate } from './migrations.js';

/** The default database file: `.pagewise/pagewise.db` under the working directory. */
export function defaultDatabasePath(cwd = process.cwd()): string {
  return path.join(cwd, '.pagewise', 'pagewise.db');
}

/** Options of {@link SqliteSessionStore}. */
export interface SqliteStoreOptions {
  /** Database file, `:memory:` for a private in-memory database. Default: {@link defaultDatabasePath}. */
  path?: string;
  /** An open database to share with other stores (the page store), instead of `path`. */
  database?: Database.Database;
}

/** Opens (creating if needed) a pagewise SQLite database with WAL and the current schema. */
export function openSqliteDatabase(file: string = defaultDatabasePath()): Database.Database {
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  let db: Database.Database;
  try {
    db = new Database(file);
  } catch (error) {
    throw new StorageError(`Cannot open the SQLite database ${file}: ${(error as Error).message}. Check the path and its permissions.`, error);
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

interface SessionRow {
  app_name: string;
  user_id: string;
  session_id: string;
  state: string;
  version: number;
  created_at: number;
  updated_at: number;
  schema_version: number;
}

/** A SessionStore in one SQLite file. Safe for several processes (SQLite locking, WAL). */
export class SqliteSessionStore implements SessionStore {
  readonly db: Database.Database;
  private readonly ownsDb: boolean;
  private readonly stmts;

  constructor(options: SqliteStoreOptions = {}) {
    this.ownsDb = !options.database;
    this.db = options.database ?? openSqliteDatabase(options.path);
    const db = this.db;
    this.stmts = {
      getSession: db.prepare<[string, string, string], SessionRow>(
        'SELECT * FROM sessions WHERE app_name = ? AND user_id = ? AND session_id = ?',
      ),
      insertSession: db.prepare(
        'INSERT INTO sessions (app_name, user_id, session_id, state, version, created_at, updated_at, schema_version) VALUES (?, ?, ?, ?, 0, ?, ?, ?)',
      ),
      events: db.prepare<[string, string, string], { body: string; schema_version: number }>(
        'SELECT body, schema_version FROM events WHERE app_name = ? AND user_id = ? AND session_id = ? ORDER BY seq',
      ),
      insertEvent: db.prepare(
        'INSERT INTO events (app_name, user_id, session_id, seq, event_id, body, schema_version) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      bumpSession: db.prepare(
        'UPDATE sessions SET version = version + 1, state = ?, updated_at = ? WHERE app_name = ? AND user_id = ? AND session_id = ? AND version = ?',
      ),
      userState: db.prepare<[string, string], { key: string; value: string }>('SELECT key, value FROM user_state WHERE app_name = ? AND user_id = ?'),
      appState: db.prepare<[string], { key: string; value: string }>('SELECT key, value FROM app_state WHERE app_name = ?'),
      setUser: db.prepare('INSERT INTO user_state (app_name, user_id, key, value) VALUES (?, ?, ?, ?) ON CONFLICT (app_name, user_id, key) DO UPDATE SET value = excluded.value'),
      delUser: db.prepare('DELETE FROM user_state WHERE app_name = ? AND user_id = ? AND key = ?'),
      setApp: db.prepare('INSERT INTO app_state (app_name, key, value) VALUES (?, ?, ?) ON CONFLICT (app_name, key) DO UPDATE SET value = excluded.value'),
      delApp: db.prepare('DELETE FROM app_state WHERE app_name = ? AND key = ?'),
      list: db.prepare<[string], SessionRow & { event_count: number }>(
        'SELECT s.*, (SELECT COUNT(*) FROM events e WHERE e.app_name = s.app_name AND e.user_id = s.user_id AND e.session_id = s.session_id) AS event_count FROM sessions s WHERE s.app_name = ? ORDER BY s.created_at, s.session_id',
      ),
      listUser: db.prepare<[string, string], SessionRow & { event_count: number }>(
        'SELECT s.*, (SELECT COUNT(*) FROM events e WHERE e.app_name = s.app_name AND e.user_id = s.user_id AND e.session_id = s.session_id) AS event_count FROM sessions s WHERE s.app_name = ? AND s.user_id = ? ORDER BY s.created_at, s.session_id',
      ),
      deleteEvents: db.prepare('DELETE FROM events WHERE app_name = ? AND user_id = ? AND session_id = ?'),
      deleteSession: db.prepare('DELETE FROM sessions WHERE app_name = ? AND user_id = ? AND session_id = ?'),
    };
  }

  private applyShared(appName: string, userId: string, delta: { user: StateDelta; app: StateDelta }): void {
    for (const [k, v] of Object.entries(delta.user)) {
      if (v === null) this.stmts.delUser.run(appName, userId, k);
      else this.stmts.setUser.run(appName, userId, k, JSON.stringify(v));
    }
    for (const [k, v] of Object.entries(delta.app)) {
      if (v === null) this.stmts.delApp.run(appName, k);
      else this.stmts.setApp.run(appName, k, JSON.stringify(v));
    }
  }

  private readRow(row: SessionRow): Session {
    if (!READABLE_SESSION_SCHEMA_VERSIONS.includes(row.schema_version)) {
      throw new StorageError(
        `Session ${row.session_id} was written with schema version ${row.schema_version}, which this version of pagewise cannot read (it reads ${READABLE_SESSION_SCHEMA_VERSIONS.join(', ')}). Upgrade pagewise.`,
      );
    }
    const key = { appName: row.app_name, userId: row.user_id, sessionId: row.session_id };
    try {
      const state = parseStoredState(row.state);
      for (const r of this.stmts.userState.all(key.appName, key.userId)) state[r.key] = JSON.parse(r.value) as JsonValue;
      for (const r of this.stmts.appState.all(key.appName)) state[r.key] = JSON.parse(r.value) as JsonValue;
      const events = this.stmts.events.all(key.appName, key.userId, key.sessionId).map((r) => parseStoredEvent(r.body));
      return { ...key, state, events, version: row.version, createdAt: row.created_at, updatedAt: row.updated_at };
    } catch (error) {
      if (error instanceof StorageError) throw error;
      throw new StorageError(`Session ${key.sessionId} holds a record that does not parse: ${(error as Error).message}`, error);
    }
  }

  async createSession(options: CreateSessionOptions): Promise<Session> {
    const key: SessionKey = { appName: options.appName, userId: options.userId, sessionId: options.sessionId ?? randomUUID() };
    const parts = splitDelta(options.state);
    const sessionState: Record<string, JsonValue> = {};
    applyDelta(sessionState, parts.session);
    const now = Date.now();
    this.db.transaction(() => {
      if (this.stmts.getSession.get(key.appName, key.userId, key.sessionId)) {
        throw new TypeError(`Session "${key.sessionId}" already exists; pick another id or omit it.`);
      }
      this.stmts.insertSession.run(key.appName, key.userId, key.sessionId, JSON.stringify(sessionState), now, now, SESSION_SCHEMA_VERSION);
      this.applyShared(key.appName, key.userId, parts);
    })();
    return (await this.getSession(key))!;
  }

  async getSession(key: SessionKey): Promise<Session | undefined> {
    const row = this.stmts.getSession.get(key.appName, key.userId, key.sessionId);
    return row ? this.readRow(row) : undefined;
  }

  async listSessions(options: ListSessionsOptions): Promise<SessionSummary[]> {
    const rows = options.userId === undefined ? this.stmts.list.all(options.appName) : this.stmts.listUser.all(options.appName, options.userId);
    return rows.map((r) => ({
      appName: r.app_name,
      userId: r.user_id,
      sessionId: r.session_id,
      version: r.version,
      eventCount: r.event_count,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    }));
  }

  async deleteSession(key: SessionKey): Promise<boolean> {
    return this.db.transaction(() => {
      this.stmts.deleteEvents.run(key.appName, key.userId, key.sessionId);
      return this.stmts.deleteSession.run(key.appName, key.userId, key.sessionId).changes > 0;
    })();
  }

  async appendEvent(session: Session, event: SessionEvent): Promise<SessionEvent> {
    const persisted: SessionEvent = { ...event, delta: persistableDelta(event.delta) };
    if (persisted.delta === undefined) delete persisted.delta;
    const parts = splitDelta(persisted.delta);
    const body = JSON.stringify(persisted);
    this.db
      .transaction(() => {
        const row = this.stmts.getSession.get(session.appName, session.userId, session.sessionId);
        if (!row) throw new VersionConflictError(session.sessionId, session.version, -1);
        if (row.version !== session.version) throw new VersionConflictError(session.sessionId, session.version, row.version);
        const state = parseStoredState(row.state);
        applyDelta(state, parts.session);
        this.stmts.insertEvent.run(session.appName, session.userId, session.sessionId, row.version, persisted.id, body, SESSION_SCHEMA_VERSION);
        this.stmts.bumpSession.run(JSON.stringify(state), persisted.timestamp, session.appName, session.userId, session.sessionId, row.version);
        this.applyShared(session.appName, session.userId, parts);
      })
      .immediate();
    applyDelta(session.state, event.delta);
    session.events.push(persisted);
    session.version += 1;
    session.updatedAt = persisted.timestamp;
    return persisted;
  }

  async close(): Promise<void> {
    if (this.ownsDb && this.db.open) this.db.close();
  }
}
