/**
 * Versioned schema migrations of the SQLite database, applied in order on open and recorded in
 * `schema_migrations`, so a database written by an older pagewise is upgraded in place.
 */
import type Database from 'better-sqlite3';
import { pendingMigrations, runMigrationsSync, type MigrationDialect, type SchemaMigration } from 'pagewise/store-kit';

/** The migrations, oldest first. Append new versions; never edit a released one. */
export const SQLITE_MIGRATIONS: readonly SchemaMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE sessions (
        app_name TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL,
        state TEXT NOT NULL, version INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
        schema_version INTEGER NOT NULL,
        PRIMARY KEY (app_name, user_id, session_id)
      );
      CREATE TABLE events (
        app_name TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL, seq INTEGER NOT NULL,
        event_id TEXT NOT NULL, body TEXT NOT NULL, schema_version INTEGER NOT NULL,
        PRIMARY KEY (app_name, user_id, session_id, seq)
      );
      CREATE TABLE user_state (app_name TEXT NOT NULL, user_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (app_name, user_id, key));
      CREATE TABLE app_state (app_name TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (app_name, key));
    `,
  },
  {
    version: 2,
    sql: `
      CREATE TABLE page_bodies (hash TEXT PRIMARY KEY, body TEXT NOT NULL, bytes INTEGER NOT NULL, tokens INTEGER NOT NULL);
      CREATE TABLE pages (
        namespace TEXT NOT NULL, uri TEXT NOT NULL, title TEXT NOT NULL, media_type TEXT NOT NULL,
        hash TEXT NOT NULL REFERENCES page_bodies(hash), fetched_at INTEGER NOT NULL, meta TEXT NOT NULL,
        schema_version INTEGER NOT NULL,
        PRIMARY KEY (namespace, uri)
      );
    `,
  },
  {
    // Versioned shared state: every write of a user:/app: key bumps its version, so an append can
    // check that the keys its tool read are unchanged. A deletion keeps the row with a NULL value (a
    // tombstone), so a key deleted and written again never reuses a version a reader may hold.
    version: 3,
    sql: `
      CREATE TABLE user_state_v3 (
        app_name TEXT NOT NULL, user_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT, version INTEGER NOT NULL,
        PRIMARY KEY (app_name, user_id, key)
      );
      INSERT INTO user_state_v3 (app_name, user_id, key, value, version) SELECT app_name, user_id, key, value, 1 FROM user_state;
      DROP TABLE user_state;
      ALTER TABLE user_state_v3 RENAME TO user_state;
      CREATE TABLE app_state_v3 (
        app_name TEXT NOT NULL, key TEXT NOT NULL, value TEXT, version INTEGER NOT NULL,
        PRIMARY KEY (app_name, key)
      );
      INSERT INTO app_state_v3 (app_name, key, value, version) SELECT app_name, key, value, 1 FROM app_state;
      DROP TABLE app_state;
      ALTER TABLE app_state_v3 RENAME TO app_state;
    `,
  },
  {
    // Recorded compressor calls, for guideline optimization and distillation. `success` stays NULL
    // until the episode the call served is scored, so an unfinished episode never counts as a success.
    version: 4,
    sql: `
      CREATE TABLE compressor_calls (
        id TEXT PRIMARY KEY, episode_id TEXT NOT NULL, task_id TEXT NOT NULL, target TEXT NOT NULL,
        guideline_id TEXT NOT NULL, guideline_version INTEGER NOT NULL, guideline_hash TEXT NOT NULL,
        backend TEXT NOT NULL, body TEXT NOT NULL, success REAL, created_at INTEGER NOT NULL,
        schema_version INTEGER NOT NULL
      );
      CREATE INDEX compressor_calls_episode ON compressor_calls (episode_id);
      CREATE INDEX compressor_calls_target ON compressor_calls (target, success);
    `,
  },
  {
    // The call log: each agent model call as sent, for `pagewise inspect`. Token figures are columns so
    // session listings aggregate them in SQL; the request and response are a versioned JSON body.
    version: 5,
    sql: `
      CREATE TABLE model_calls (
        id INTEGER PRIMARY KEY AUTOINCREMENT, app_name TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL,
        invocation_id TEXT NOT NULL, event_id TEXT NOT NULL, agent TEXT NOT NULL, model TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, tags TEXT NOT NULL, body TEXT NOT NULL,
        created_at INTEGER NOT NULL, schema_version INTEGER NOT NULL
      );
      CREATE INDEX model_calls_session ON model_calls (app_name, user_id, session_id, id);
    `,
  },
  {
    // Event rows that cost about what they hold: the session key once per session (an integer id
    // instead of three strings and an event id on every row and again in its primary-key index), rows
    // clustered by (session, seq) without a separate rowid, bodies in the compact form of
    // session/event-codec.ts (rows copied here keep their JSON object form, which reads as before).
    // The view keeps the old table's shape for readers that query it.
    version: 6,
    sql: `
      CREATE TABLE session_ids (
        sid INTEGER PRIMARY KEY, app_name TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL,
        UNIQUE (app_name, user_id, session_id)
      );
      INSERT INTO session_ids (app_name, user_id, session_id)
        SELECT app_name, user_id, session_id FROM sessions
        UNION SELECT app_name, user_id, session_id FROM events;
      CREATE TABLE event_rows (
        sid INTEGER NOT NULL, seq INTEGER NOT NULL, body NOT NULL, schema_version INTEGER NOT NULL,
        PRIMARY KEY (sid, seq)
      ) WITHOUT ROWID;
      INSERT INTO event_rows (sid, seq, body, schema_version)
        SELECT k.sid, e.seq, e.body, e.schema_version FROM events e
        JOIN session_ids k ON k.app_name = e.app_name AND k.user_id = e.user_id AND k.session_id = e.session_id;
      DROP TABLE events;
      CREATE VIEW events AS
        SELECT k.app_name, k.user_id, k.session_id, e.seq, e.body, e.schema_version
        FROM event_rows e JOIN session_ids k ON k.sid = e.sid;
    `,
  },
  {
    // Event rows keyed by one integer, sid * 2^32 + seq (EVENT_KEY_SPAN), in SQLite's rowid: a rowid table
    // appended to at its end fills its pages (SQLite's quick balance) where the (sid, seq) key of a
    // WITHOUT ROWID table split them and left part of every page empty; and no schema version
    // per row, which repeated the session's (the view reports the session's). A session keeps its rows
    // together, in order, as before.
    version: 7,
    sql: `
      CREATE TABLE event_rows_v7 (k INTEGER PRIMARY KEY, body NOT NULL);
      INSERT INTO event_rows_v7 (k, body) SELECT sid * 4294967296 + seq, body FROM event_rows ORDER BY sid, seq;
      DROP VIEW events;
      DROP TABLE event_rows;
      ALTER TABLE event_rows_v7 RENAME TO event_rows;
      CREATE VIEW events AS
        SELECT k.app_name, k.user_id, k.session_id, e.k - k.sid * 4294967296 AS seq, e.body, s.schema_version
        FROM session_ids k
        JOIN event_rows e ON e.k >= k.sid * 4294967296 AND e.k < (k.sid + 1) * 4294967296
        LEFT JOIN sessions s ON s.app_name = k.app_name AND s.user_id = k.user_id AND s.session_id = k.session_id;
    `,
  },
  {
    // An event's identity in columns of its own instead of inside its body: the event id as its 16 bytes
    // when it is a lowercase UUID (else as text), the invocation id and the author once each in a table of
    // their own (an invocation's many events refer to it by an integer), the timestamp as an integer. The
    // body (session/event-codec.ts's encodeEventBody) is then the rest. Rows written before keep NULL in
    // these columns and their whole event in the body, and read as before.
    version: 8,
    sql: `
      CREATE TABLE invocations (iid INTEGER PRIMARY KEY, invocation_id TEXT NOT NULL UNIQUE);
      CREATE TABLE authors (aid INTEGER PRIMARY KEY, author TEXT NOT NULL UNIQUE);
      ALTER TABLE event_rows ADD COLUMN id;
      ALTER TABLE event_rows ADD COLUMN iid INTEGER;
      ALTER TABLE event_rows ADD COLUMN aid INTEGER;
      ALTER TABLE event_rows ADD COLUMN ts INTEGER;
      DROP VIEW events;
      CREATE VIEW events AS
        SELECT k.app_name, k.user_id, k.session_id, e.k - k.sid * 4294967296 AS seq, e.body, s.schema_version,
          e.id, i.invocation_id, a.author, e.ts
        FROM session_ids k
        JOIN event_rows e ON e.k >= k.sid * 4294967296 AND e.k < (k.sid + 1) * 4294967296
        LEFT JOIN sessions s ON s.app_name = k.app_name AND s.user_id = k.user_id AND s.session_id = k.session_id
        LEFT JOIN invocations i ON i.iid = e.iid
        LEFT JOIN authors a ON a.aid = e.aid;
    `,
  },
];

/**
 * How many event numbers each session's key range holds: an event row's key is `sid * EVENT_KEY_SPAN + seq`
 * (schema 7), the literal 4294967296 in the SQL.
 */
export const EVENT_KEY_SPAN = 2 ** 32;

/** The newest schema version this build writes. */
export const LATEST_SQLITE_SCHEMA = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]!.version;

/**
 * How the migration runner reads and writes a SQLite database's record of applied migrations,
 * `schema_migrations`, created on the first read-write open. Each migration commits in a transaction of its
 * own, begun with the write lock (`BEGIN IMMEDIATE`), so that processes opening the file together apply it once.
 */
export function sqliteMigrationDialect(db: Database.Database): MigrationDialect<false> {
  return {
    begin: () => {
      db.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)',
      );
    },
    recordedVersions: () =>
      db
        .prepare<[], { version: number }>('SELECT version FROM schema_migrations')
        .all()
        .map((row) => row.version),
    apply: (migration) =>
      db
        .transaction(() => {
          // Another process may have migrated between the runner's read and this write lock.
          if (db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version)) return false;
          db.exec(migration.sql);
          db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(
            migration.version,
            Date.now(),
          );
          return true;
        })
        .immediate(),
  };
}

/**
 * The migrations this build knows that the versions recorded in a database lack, for a reader that must not
 * migrate (a read-only open) to name them.
 */
export function missingMigrations(recorded: Iterable<number>): number[] {
  return pendingMigrations(SQLITE_MIGRATIONS, recorded).map((migration) => migration.version);
}

/**
 * Applies every migration not yet recorded, each in its own transaction; with `upTo`, only those up to
 * that version (to build a database as an older version left it, for tests that read old files).
 * Returns how many this call applied.
 */
export function migrate(db: Database.Database, upTo = LATEST_SQLITE_SCHEMA): number {
  return runMigrationsSync(sqliteMigrationDialect(db), SQLITE_MIGRATIONS, { upTo }).applied.length;
}
