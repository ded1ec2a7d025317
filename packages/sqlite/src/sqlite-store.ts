/**
 * The embedded SQLite SessionStore (better-sqlite3, WAL): one file holds sessions, events and shared
 * user/app state. An append and its delta commit in one transaction, checked against the version.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { DatabaseCorruptError, StorageError, VersionConflictError, scopeOf, type SessionStore } from 'pagewise';
import {
  SESSION_SCHEMA_VERSION,
  type CreateSessionOptions,
  type ListSessionsOptions,
  commitToSession,
  planAppend,
  type AppendPlan,
  type SharedValue,
  type SharedWrite,
  decodeEvent,
  encodeEvent,
  encodeEventBody,
  uuidFromBytes,
  uuidToBytes,
  type EventIdentity,
  parseStoredState,
  parseStoredValue,
  deepFreeze,
  firstSharedWrites,
  newSession,
  sessionFromRow,
  sessionSummaryFromRow,
  type StoredSessionListRow,
  type StoredSessionRow,
} from 'pagewise/store-kit';
import type { JsonValue, Session, SessionEvent, SessionKey, SessionSummary } from 'pagewise';
import { EVENT_KEY_SPAN, migrate, missingMigrations, sqliteMigrationDialect } from './migrations.js';
import { DEFAULT_BUSY_TIMEOUT_MS, guarded, translateSqliteError } from './sqlite-errors.js';

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
  /**
   * Milliseconds a write waits for another process's write lock before it fails with the retryable
   * `StorageBusyError`. Default {@link DEFAULT_BUSY_TIMEOUT_MS}. Ignored with `database`.
   */
  busyTimeoutMs?: number;
  /**
   * Event bodies of at least this many bytes are stored deflated, when that saves an eighth or more
   * (large tool results, documents). Off by default (0): deflated rows are not matched by text queries
   * on the `events` view, such as the inspector's search for compactions.
   */
  compressEventsAbove?: number;
  /**
   * Open an existing database read-only, as a reader of someone's store (`pagewise replay` of a session file)
   * should: nothing is created, migrated or written, and a write fails with a StorageError. The file must
   * exist and carry every migration of this version. Ignored with `database`.
   */
  readOnly?: boolean;
}

/** Options of {@link openSqliteDatabase}. */
export interface OpenSqliteOptions {
  /** See {@link SqliteStoreOptions.busyTimeoutMs}. */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) a pagewise SQLite database with WAL and the current schema.
 *
 * @throws StorageError when the file cannot be opened; DatabaseCorruptError (naming the file and how to
 *   recover) when it is not a database, is damaged, or its tables disagree with its migration record;
 *   StorageBusyError (retryable) when other processes held it locked past the busy timeout.
 */
export function openSqliteDatabase(
  file: string = defaultDatabasePath(),
  options: OpenSqliteOptions = {},
): Database.Database {
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new TypeError(`busyTimeoutMs must be a non-negative integer, got ${busyTimeoutMs}.`);
  }
  let db: Database.Database;
  try {
    // `timeout` is SQLite's busy timeout, in force before the first statement (WAL switch included).
    db = new Database(file, { timeout: busyTimeoutMs });
  } catch (error) {
    throw new StorageError(
      `Cannot open the SQLite database ${file}: ${(error as Error).message}. Check the path and its permissions.`,
      error,
    );
  }
  try {
    walMode(db, busyTimeoutMs);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
  } catch (error) {
    db.close();
    throw openError(error, file, busyTimeoutMs);
  }
  return db;
}

/**
 * Opens an existing pagewise database read-only: no file, folder, table or migration is created.
 *
 * @throws StorageError when the file is missing or unreadable, is a SQLite database pagewise did not write (no
 *   migration record), or lacks migrations of this version; DatabaseCorruptError when it is not a database.
 */
function openSqliteReadOnly(file: string, busyTimeoutMs: number): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
  } catch (error) {
    throw new StorageError(
      `Cannot open the SQLite database ${file} read-only: ${(error as Error).message}. Check the path and its permissions.`,
      error,
    );
  }
  let recorded: readonly number[];
  try {
    const tables = db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
      )
      .all();
    if (tables.length === 0) {
      db.close();
      throw new StorageError(
        `${file} is a SQLite database that pagewise did not write: it has no schema_migrations table. Pass a file a SqliteSessionStore wrote.`,
      );
    }
    recorded = sqliteMigrationDialect(db).recordedVersions();
  } catch (error) {
    if (db.open) db.close();
    if (error instanceof StorageError) throw error;
    throw translateSqliteError(error, file, busyTimeoutMs);
  }
  const missing = missingMigrations(recorded);
  if (missing.length > 0) {
    db.close();
    throw new StorageError(
      `${file} was written by an older pagewise: it lacks schema migration(s) ${missing.join(', ')}, and a read-only open does not migrate. Open it once read-write (a SqliteSessionStore without readOnly, or a pagewise command given this file, such as \`pagewise sessions list --db ${file}\`) to migrate it.`,
    );
  }
  return db;
}

/**
 * Switches a connection to WAL. Several processes opening a new file at once can find the switch
 * busy without SQLite's busy handler waiting for it, so it is retried (briefly sleeping) until the
 * busy timeout has passed, as any other statement would wait.
 */
function walMode(db: Database.Database, busyTimeoutMs: number): void {
  const until = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= until) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

function openError(error: unknown, file: string, busyTimeoutMs: number): unknown {
  const typed = translateSqliteError(error, file, busyTimeoutMs);
  if (typed !== error) return typed;
  // A migration creating a table that is already there: the migration record was lost or damaged.
  if (/already exists/.test((error as Error)?.message ?? '')) {
    return new DatabaseCorruptError(
      file,
      `its tables disagree with its migration record: ${(error as Error).message}`,
      error,
    );
  }
  return error;
}

/** What the append transaction returns: the plan, and the stored rows of its events from event number `from`. */
interface AppendResult {
  plan: AppendPlan;
  rows: StoredRow[];
  from: number;
}

/**
 * A stored event as its row holds it: the text of its body and, for rows written since schema 8, the
 * identity kept in columns beside it (undefined for older rows, whose body holds the whole event).
 */
interface StoredRow {
  text: string;
  identity: EventIdentity | undefined;
}

/** Whether two stored rows are the same event as stored. */
function sameRow(left: StoredRow, right: StoredRow): boolean {
  if (left.text !== right.text) return false;
  if (!left.identity || !right.identity) return left.identity === right.identity;
  return (
    left.identity.id === right.identity.id &&
    left.identity.invocationId === right.identity.invocationId &&
    left.identity.author === right.identity.author &&
    left.identity.timestamp === right.identity.timestamp
  );
}

/** An event row as the read of a session's events gives it. */
interface EventRow {
  body: string | Buffer;
  id: string | Buffer | null;
  invocation_id: string | null;
  author: string | null;
  ts: number | null;
}

/** The stored row of an event row read back: its body's text and its identity columns, when it has them. */
function storedRowOf(row: EventRow): StoredRow {
  const text = bodyText(row.body);
  if (row.ts === null) return { text, identity: undefined };
  const id = row.id === null || typeof row.id === 'string' ? row.id : uuidFromBytes(row.id);
  // A NULL beside a timestamp is damage: the event it gives fails validation, naming the field.
  const identity = { id, invocationId: row.invocation_id, author: row.author, timestamp: row.ts };
  return { text, identity: identity as EventIdentity };
}

const cacheKeyOf = (k: SessionKey): string => `${k.appName}\u0000${k.userId}\u0000${k.sessionId}`;

/**
 * Per session, the stored text of each event and the event parsed from it. Loading a session reads every
 * row as before; a row whose text is exactly the text an event was parsed and validated from gives that
 * event (frozen, shared between loads) without parsing it again, and anything else (written by another
 * process, altered on disk) is parsed and validated as before. Events this store appends join the cache
 * as the text it stored, not yet parsed: the next load parses them as it would any row (and refuses one
 * that does not parse), and keeps them parsed from then on. An append, on every step's path, parses
 * nothing. Bounded by the characters it holds; the least recently loaded sessions go first.
 */
class StoredEventCache {
  private readonly sessions = new Map<string, { rows: StoredRow[]; events: (SessionEvent | undefined)[] }>();
  private chars = 0;

  constructor(private readonly maxChars: number) {}

  /** The events of these rows, reusing what was parsed from the same row before. */
  read(key: string, rows: StoredRow[]): SessionEvent[] {
    const old = this.sessions.get(key);
    const events = rows.map((row, index) => {
      const known = old?.events[index];
      return known && sameRow(old.rows[index]!, row) ? known : deepFreeze(decodeEvent(row.text, row.identity));
    });
    // The session's list is the caller's to append to; the cache keeps its own.
    this.put(key, rows, events.slice());
    return events;
  }

  /**
   * Records the text of events appended at event number `from`, when the cache holds all before it; they
   * are parsed by the next load that reads them.
   */
  appended(key: string, from: number, rows: StoredRow[]): void {
    const entry = this.sessions.get(key);
    if (!entry) return;
    if (entry.rows.length !== from) return this.forget(key);
    for (const row of rows) {
      entry.rows.push(row);
      entry.events.push(undefined);
      this.chars += row.text.length;
    }
    this.trim();
  }

  forget(key: string): void {
    const entry = this.sessions.get(key);
    if (!entry) return;
    this.chars -= entry.rows.reduce((n, row) => n + row.text.length, 0);
    this.sessions.delete(key);
  }

  private put(key: string, rows: StoredRow[], events: (SessionEvent | undefined)[]): void {
    this.forget(key);
    this.sessions.set(key, { rows, events });
    this.chars += rows.reduce((n, row) => n + row.text.length, 0);
    this.trim();
  }

  private trim(): void {
    for (const cacheKey of this.sessions.keys()) {
      if (this.chars <= this.maxChars) break;
      this.forget(cacheKey);
    }
  }
}

/** The text of a stored event body: as stored, or inflated when the row holds it deflated. */
function bodyText(body: string | Buffer): string {
  return typeof body === 'string' ? body : inflateRawSync(body).toString('utf8');
}

/** What a body is stored as: its text, or the text deflated when that is large and saves enough. */
function storedBody(text: string, compressAbove: number): string | Buffer {
  if (compressAbove <= 0 || text.length < compressAbove / 4) return text;
  const bytes = Buffer.byteLength(text);
  if (bytes < compressAbove) return text;
  const deflated = deflateRawSync(text);
  return deflated.length <= bytes - bytes / 8 ? deflated : text;
}

/** The statements {@link NameIds} uses. */
interface NameStatements {
  iidOf: Database.Statement<[string], { iid: number }>;
  insertInvocation: Database.Statement;
  aidOf: Database.Statement<[string], { aid: number }>;
  insertAuthor: Database.Statement;
}

/**
 * The integer ids of invocation ids and authors within one append transaction, each added to its table on
 * first use: an append's events mostly share both, so each is looked up once. Not kept across appends:
 * an id added by a transaction that then rolls back is not in the file.
 */
class NameIds {
  private readonly invocations = new Map<string, number>();
  private readonly authors = new Map<string, number>();

  constructor(private readonly stmts: NameStatements) {}

  invocation(invocationId: string): number {
    let iid = this.invocations.get(invocationId);
    if (iid === undefined) {
      iid =
        this.stmts.iidOf.get(invocationId)?.iid ??
        Number(this.stmts.insertInvocation.run(invocationId).lastInsertRowid);
      this.invocations.set(invocationId, iid);
    }
    return iid;
  }

  author(author: string): number {
    let aid = this.authors.get(author);
    if (aid === undefined) {
      aid = this.stmts.aidOf.get(author)?.aid ?? Number(this.stmts.insertAuthor.run(author).lastInsertRowid);
      this.authors.set(author, aid);
    }
    return aid;
  }
}

interface SharedRow {
  key: string;
  /** JSON text; NULL for a deleted key (a tombstone that keeps the version). */
  value: string | null;
  version: number;
}

/** The session row as an append reads it, with the integer id of its event rows (NULL if never assigned). */
interface AppendRow {
  version: number;
  state: string;
  updated_at: number;
  sid: number | null;
}

/** The parameters both session-row updates of an append start with: the new row, then the session's key. */
function sessionRowWrite(
  session: Session,
  write: { version: number; state: string; updatedAt: number },
): [number, string, number, number, string, string, string] {
  return [
    write.version,
    write.state,
    write.updatedAt,
    SESSION_SCHEMA_VERSION,
    session.appName,
    session.userId,
    session.sessionId,
  ];
}

/** What an append of this store left in a session: the integer id of its rows, its version and state text. */
interface LastWrite {
  sid: number;
  version: number;
  state: string;
}

/** A SessionStore in one SQLite file. Safe for several processes (SQLite locking, WAL). */
export class SqliteSessionStore implements SessionStore {
  readonly db: Database.Database;
  private readonly ownsDb: boolean;
  private readonly stmts;
  /** The append transaction, built once: its wrapper is on every step's path. */
  private readonly appendTx: (session: Session, events: readonly SessionEvent[]) => AppendResult;
  /**
   * Per session, what this store's last append left in it (see {@link LastWrite}): the next append from
   * that version plans from it without reading the session row, and its update of the row checks that
   * the row and the session's integer id still are exactly that.
   */
  private readonly lastWrites = new Map<string, LastWrite>();
  /** Events this store read or wrote, with the stored text of each (see {@link StoredEventCache}). */
  private readonly eventCache = new StoredEventCache(32 * 1024 * 1024);
  private readonly compressAbove: number;

  constructor(options: SqliteStoreOptions = {}) {
    const compressAbove = options.compressEventsAbove ?? 0;
    if (!Number.isInteger(compressAbove) || compressAbove < 0)
      throw new TypeError(`compressEventsAbove must be a non-negative integer (bytes; 0: off), got ${compressAbove}.`);
    this.compressAbove = compressAbove;
    this.ownsDb = !options.database;
    this.db =
      options.database ??
      (options.readOnly
        ? openSqliteReadOnly(options.path ?? defaultDatabasePath(), options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS)
        : openSqliteDatabase(options.path, options));
    const db = this.db;
    this.stmts = guarded(db, () => ({
      getSession: db.prepare<[string, string, string], StoredSessionRow>(
        'SELECT * FROM sessions WHERE app_name = ? AND user_id = ? AND session_id = ?',
      ),
      insertSession: db.prepare(
        'INSERT INTO sessions (app_name, user_id, session_id, state, version, created_at, updated_at, schema_version) VALUES (?, ?, ?, ?, 0, ?, ?, ?)',
      ),
      sidOf: db.prepare<[string, string, string], { sid: number }>(
        'SELECT sid FROM session_ids WHERE app_name = ? AND user_id = ? AND session_id = ?',
      ),
      insertSid: db.prepare(
        'INSERT INTO session_ids (app_name, user_id, session_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      events: db.prepare<[string, string, string], EventRow>(
        'SELECT e.body, e.id, i.invocation_id, a.author, e.ts FROM session_ids k JOIN event_rows e ON e.k >= k.sid * 4294967296 AND e.k < (k.sid + 1) * 4294967296 LEFT JOIN invocations i ON i.iid = e.iid LEFT JOIN authors a ON a.aid = e.aid WHERE k.app_name = ? AND k.user_id = ? AND k.session_id = ? ORDER BY e.k',
      ),
      insertEvent: db.prepare(
        'INSERT INTO event_rows (k, body, id, iid, aid, ts) VALUES (? * 4294967296 + ?, ?, ?, ?, ?, ?)',
      ),
      iidOf: db.prepare<[string], { iid: number }>('SELECT iid FROM invocations WHERE invocation_id = ?'),
      insertInvocation: db.prepare('INSERT INTO invocations (invocation_id) VALUES (?)'),
      aidOf: db.prepare<[string], { aid: number }>('SELECT aid FROM authors WHERE author = ?'),
      insertAuthor: db.prepare('INSERT INTO authors (author) VALUES (?)'),
      sessionForAppend: db.prepare<[string, string, string], AppendRow>(
        'SELECT s.version, s.state, s.updated_at, k.sid FROM sessions s LEFT JOIN session_ids k ON k.app_name = s.app_name AND k.user_id = s.user_id AND k.session_id = s.session_id WHERE s.app_name = ? AND s.user_id = ? AND s.session_id = ?',
      ),
      bumpSession: db.prepare(
        'UPDATE sessions SET version = ?, state = ?, updated_at = ?, schema_version = ? WHERE app_name = ? AND user_id = ? AND session_id = ? AND version = ?',
      ),
      // The session as this store last wrote it: same version, same state text, and its key still
      // names the same integer id (no other process deleted it and created it again under a new one).
      bumpLastWrite: db.prepare(
        'UPDATE sessions SET version = ?, state = ?, updated_at = ?, schema_version = ? WHERE app_name = ? AND user_id = ? AND session_id = ? AND version = ? AND state = ? AND (SELECT k.sid FROM session_ids k WHERE k.app_name = sessions.app_name AND k.user_id = sessions.user_id AND k.session_id = sessions.session_id) = ?',
      ),
      userState: db.prepare<[string, string], SharedRow>(
        'SELECT key, value, version FROM user_state WHERE app_name = ? AND user_id = ?',
      ),
      appState: db.prepare<[string], SharedRow>('SELECT key, value, version FROM app_state WHERE app_name = ?'),
      userValue: db.prepare<[string, string, string], Omit<SharedRow, 'key'>>(
        'SELECT value, version FROM user_state WHERE app_name = ? AND user_id = ? AND key = ?',
      ),
      appValue: db.prepare<[string, string], Omit<SharedRow, 'key'>>(
        'SELECT value, version FROM app_state WHERE app_name = ? AND key = ?',
      ),
      setUser: db.prepare(
        'INSERT INTO user_state (app_name, user_id, key, value, version) VALUES (?, ?, ?, ?, ?) ON CONFLICT (app_name, user_id, key) DO UPDATE SET value = excluded.value, version = excluded.version',
      ),
      setApp: db.prepare(
        'INSERT INTO app_state (app_name, key, value, version) VALUES (?, ?, ?, ?) ON CONFLICT (app_name, key) DO UPDATE SET value = excluded.value, version = excluded.version',
      ),
      list: db.prepare<[string], StoredSessionListRow>(
        'SELECT s.*, (SELECT COUNT(*) FROM session_ids k JOIN event_rows e ON e.k >= k.sid * 4294967296 AND e.k < (k.sid + 1) * 4294967296 WHERE k.app_name = s.app_name AND k.user_id = s.user_id AND k.session_id = s.session_id) AS event_count FROM sessions s WHERE s.app_name = ? ORDER BY s.created_at, s.session_id',
      ),
      listUser: db.prepare<[string, string], StoredSessionListRow>(
        'SELECT s.*, (SELECT COUNT(*) FROM session_ids k JOIN event_rows e ON e.k >= k.sid * 4294967296 AND e.k < (k.sid + 1) * 4294967296 WHERE k.app_name = s.app_name AND k.user_id = s.user_id AND k.session_id = s.session_id) AS event_count FROM sessions s WHERE s.app_name = ? AND s.user_id = ? ORDER BY s.created_at, s.session_id',
      ),
      deleteEvents: db.prepare('DELETE FROM event_rows WHERE k >= ? * 4294967296 AND k < (? + 1) * 4294967296'),
      deleteSid: db.prepare('DELETE FROM session_ids WHERE app_name = ? AND user_id = ? AND session_id = ?'),
      deleteSession: db.prepare('DELETE FROM sessions WHERE app_name = ? AND user_id = ? AND session_id = ?'),
    }));
    this.appendTx = db.transaction((session: Session, events: readonly SessionEvent[]) =>
      this.appendInTransaction(session, events),
    ).immediate;
  }

  /** The integer id of a session's rows, assigned on first use. Call inside a transaction. */
  private sidOf(appName: string, userId: string, sessionId: string): number {
    const found = this.stmts.sidOf.get(appName, userId, sessionId);
    if (found) return found.sid;
    this.stmts.insertSid.run(appName, userId, sessionId);
    return this.stmts.sidOf.get(appName, userId, sessionId)!.sid;
  }

  /** The stored value and version of a shared key (version 0: never written). Call inside a transaction. */
  private sharedValue(appName: string, userId: string, key: string): SharedValue {
    const row =
      scopeOf(key) === 'user' ? this.stmts.userValue.get(appName, userId, key) : this.stmts.appValue.get(appName, key);
    return { value: row?.value == null ? undefined : parseStoredValue(row.value), version: row?.version ?? 0 };
  }

  /** Writes shared keys with their new versions; a deletion leaves a tombstone (NULL value). */
  private writeShared(appName: string, userId: string, writes: Iterable<[string, SharedWrite]>): void {
    for (const [stateKey, sharedWrite] of writes) {
      const value = sharedWrite.value === null ? null : JSON.stringify(sharedWrite.value);
      if (scopeOf(stateKey) === 'user') this.stmts.setUser.run(appName, userId, stateKey, value, sharedWrite.version);
      else this.stmts.setApp.run(appName, stateKey, value, sharedWrite.version);
    }
  }

  private readRow(row: StoredSessionRow): Session {
    const key = { appName: row.app_name, userId: row.user_id, sessionId: row.session_id };
    return sessionFromRow(key, row, {
      shared: () => [...this.stmts.userState.all(key.appName, key.userId), ...this.stmts.appState.all(key.appName)],
      events: () =>
        this.eventCache.read(
          cacheKeyOf(key),
          this.stmts.events.all(key.appName, key.userId, key.sessionId).map(storedRowOf),
        ),
    });
  }

  async createSession(options: CreateSessionOptions): Promise<Session> {
    const { key, state: sessionState, shared, now } = newSession(options);
    // IMMEDIATE: the write lock is taken (waiting up to the busy timeout) before the existence check
    // reads, so the transaction never has to upgrade a read snapshot another writer made stale.
    const create = this.db.transaction(() => {
      if (this.stmts.getSession.get(key.appName, key.userId, key.sessionId)) {
        throw new TypeError(`Session "${key.sessionId}" already exists; pick another id or omit it.`);
      }
      this.stmts.insertSession.run(
        key.appName,
        key.userId,
        key.sessionId,
        JSON.stringify(sessionState),
        now,
        now,
        SESSION_SCHEMA_VERSION,
      );
      this.stmts.insertSid.run(key.appName, key.userId, key.sessionId);
      const writes = firstSharedWrites(
        shared,
        (stateKey) => this.sharedValue(key.appName, key.userId, stateKey).version,
      );
      this.writeShared(key.appName, key.userId, writes);
    });
    guarded(this.db, () => create.immediate());
    return (await this.getSession(key))!;
  }

  async getSession(key: SessionKey): Promise<Session | undefined> {
    // One read transaction, so the session row, its events and the shared state are one snapshot.
    const read = this.db.transaction(() => {
      const row = this.stmts.getSession.get(key.appName, key.userId, key.sessionId);
      return row ? this.readRow(row) : undefined;
    });
    return guarded(this.db, () => read());
  }

  /**
   * The app names that have at least one session, sorted: what {@link listSessions} can be asked for when a
   * reader of the whole file (`pagewise replay <file.db>`) knows no app name.
   */
  async listAppNames(): Promise<string[]> {
    const rows = guarded(this.db, () =>
      this.db.prepare<[], { app_name: string }>('SELECT DISTINCT app_name FROM sessions ORDER BY app_name').all(),
    );
    return rows.map((row) => row.app_name);
  }

  async listSessions(options: ListSessionsOptions): Promise<SessionSummary[]> {
    const rows = guarded(this.db, () =>
      options.userId === undefined
        ? this.stmts.list.all(options.appName)
        : this.stmts.listUser.all(options.appName, options.userId),
    );
    return rows.map(sessionSummaryFromRow);
  }

  async deleteSession(key: SessionKey): Promise<boolean> {
    this.eventCache.forget(cacheKeyOf(key));
    this.lastWrites.delete(cacheKeyOf(key));
    const remove = this.db.transaction(() => {
      const sid = this.stmts.sidOf.get(key.appName, key.userId, key.sessionId)?.sid;
      if (sid !== undefined) this.stmts.deleteEvents.run(sid, sid);
      this.stmts.deleteSid.run(key.appName, key.userId, key.sessionId);
      return this.stmts.deleteSession.run(key.appName, key.userId, key.sessionId).changes > 0;
    });
    return guarded(this.db, () => remove.immediate());
  }

  async appendEvent(session: Session, event: SessionEvent): Promise<SessionEvent> {
    return (await this.appendEvents(session, [event]))[0]!;
  }

  async appendEvents(session: Session, events: readonly SessionEvent[]): Promise<SessionEvent[]> {
    // IMMEDIATE takes the write lock up front, so the checks and the writes see the same database.
    const { plan, rows, from } = guarded(this.db, () => this.appendTx(session, events));
    this.eventCache.appended(cacheKeyOf(session), from, rows);
    commitToSession(session, events, plan);
    return plan.events;
  }

  /**
   * The body of the append transaction: version check, plan, session row, event rows, shared keys. When
   * this store made the session's current version, the plan starts from the state it wrote then, and
   * the update of the session row is the check: it changes the row only if the row, and the integer id
   * its key names, are still what this store left (exactly what a read of them would have found);
   * otherwise the row is read and checked as for any other session.
   */
  private appendInTransaction(session: Session, events: readonly SessionEvent[]): AppendResult {
    const { appName, userId, sessionId } = session;
    const cacheKey = cacheKeyOf(session);
    const last = this.lastWrites.get(cacheKey);
    const fast =
      last && last.version === session.version && events.length > 0 ? this.fastPlan(session, events, last) : undefined;
    if (last && fast) {
      const { plan, write } = fast;
      const changed = this.stmts.bumpLastWrite.run(
        ...sessionRowWrite(session, write),
        last.version,
        last.state,
        last.sid,
      ).changes;
      if (changed === 1) return this.finishAppend(cacheKey, session, plan, write);
    }
    const row = this.stmts.sessionForAppend.get(appName, userId, sessionId);
    if (!row) throw new VersionConflictError(sessionId, session.version, -1);
    if (row.version !== session.version) throw new VersionConflictError(sessionId, session.version, row.version);
    // A state text this store wrote was serialized from a state it had already checked; any other
    // text (written elsewhere, or altered) is validated.
    const plan = this.plan(
      session,
      events,
      last?.state === row.state ? (JSON.parse(row.state) as Record<string, JsonValue>) : parseStoredState(row.state),
    );
    const sid = row.sid ?? this.sidOf(appName, userId, sessionId);
    const write = this.nextWrite(sessionId, sid, row.version, events, plan, row.updated_at);
    this.stmts.bumpSession.run(...sessionRowWrite(session, write), row.version);
    return this.finishAppend(cacheKey, session, plan, write);
  }

  /**
   * The plan and row of an append from the state this store last wrote, or undefined when planning from
   * it fails: the row may have changed since, and the read of it below then gives the error that applies
   * (a version conflict, not a conflict computed on a stale state); if it has not, planning again throws
   * the same error.
   */
  private fastPlan(session: Session, events: readonly SessionEvent[], last: LastWrite) {
    try {
      const plan = this.plan(session, events, JSON.parse(last.state) as Record<string, JsonValue>);
      return { plan, write: this.nextWrite(session.sessionId, last.sid, session.version, events, plan) };
    } catch {
      return undefined;
    }
  }

  private plan(session: Session, events: readonly SessionEvent[], sessionState: Record<string, JsonValue>): AppendPlan {
    const { appName, userId } = session;
    return planAppend(session, events, { sessionState, shared: (k) => this.sharedValue(appName, userId, k) });
  }

  /** What an append from `version` leaves in the session row; refuses one past the events a session holds. */
  private nextWrite(
    sessionId: string,
    sid: number,
    version: number,
    events: readonly SessionEvent[],
    plan: AppendPlan,
    updatedAt = 0,
  ): LastWrite & { from: number; updatedAt: number } {
    if (version + events.length > EVENT_KEY_SPAN)
      throw new StorageError(
        `Session ${sessionId} would hold more than ${EVENT_KEY_SPAN} events, the most a SQLite session stores; compact it or start a new session.`,
      );
    return {
      sid,
      from: version,
      version: version + events.length,
      state: JSON.stringify(plan.sessionState),
      updatedAt: events.length ? events[events.length - 1]!.timestamp : updatedAt,
    };
  }

  /** The event rows and shared keys of an append whose session row is written; remembers what it left. */
  private finishAppend(
    cacheKey: string,
    session: Session,
    plan: AppendPlan,
    write: LastWrite & { from: number },
  ): AppendResult {
    const names = new NameIds(this.stmts);
    const rows = plan.events.map((event, index): StoredRow => {
      const body = encodeEventBody(event);
      if (body === undefined) {
        // An event outside the compact layout keeps its whole JSON object in the body, as rows did before.
        const text = encodeEvent(event);
        this.stmts.insertEvent.run(
          write.sid,
          write.from + index,
          storedBody(text, this.compressAbove),
          null,
          null,
          null,
          null,
        );
        return { text, identity: undefined };
      }
      const { id, invocationId, author, timestamp } = event;
      this.stmts.insertEvent.run(
        write.sid,
        write.from + index,
        storedBody(body, this.compressAbove),
        uuidToBytes(id) ?? id,
        names.invocation(invocationId),
        names.author(author),
        timestamp,
      );
      return { text: body, identity: { id, invocationId, author, timestamp } };
    });
    this.writeShared(session.appName, session.userId, plan.shared);
    // Bounded: a long-lived store serving many sessions keeps only the most recent ones.
    if (this.lastWrites.size >= 1024) this.lastWrites.clear();
    // Harmless if the commit then fails: it is trusted only while the row holds exactly it.
    this.lastWrites.set(cacheKey, { sid: write.sid, version: write.version, state: write.state });
    return { plan, rows, from: write.from };
  }

  async close(): Promise<void> {
    if (this.ownsDb && this.db.open) this.db.close();
  }
}
