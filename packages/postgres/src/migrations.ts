/**
 * Versioned schema migrations of the PostgreSQL database, applied in order and recorded in
 * `schema_migrations`. Many workers may start at once: an advisory lock makes exactly one of them
 * migrate while the others wait and then find nothing to do.
 */
import type { ClientBase, PoolClient } from 'pg';
import { runMigrations, type MigrationDialect, type MigrationResult, type SchemaMigration } from 'pagewise/store-kit';

/** One migration: its version and the SQL that brings the schema from the previous version to it. */
export type PgMigration = SchemaMigration;

/**
 * The migrations, oldest first. Append new versions; never edit a released one. Timestamps are ms since
 * the epoch (bigint); state values and event bodies are JSON text, validated when read back, because
 * jsonb would refuse the `\u0000` escapes that tool output may contain.
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE sessions (
        app_name text NOT NULL, user_id text NOT NULL, session_id text NOT NULL,
        state text NOT NULL, version integer NOT NULL, created_at bigint NOT NULL, updated_at bigint NOT NULL,
        schema_version integer NOT NULL,
        PRIMARY KEY (app_name, user_id, session_id)
      );
      CREATE INDEX sessions_by_app_created ON sessions (app_name, created_at, session_id);
      CREATE TABLE events (
        app_name text NOT NULL, user_id text NOT NULL, session_id text NOT NULL, seq integer NOT NULL,
        event_id text NOT NULL, body text NOT NULL, schema_version integer NOT NULL,
        PRIMARY KEY (app_name, user_id, session_id, seq)
      );
      -- value NULL: deleted (a tombstone keeping the version) or, at version 0, a placeholder row that
      -- exists only so an append can lock a key it read while absent.
      CREATE TABLE user_state (
        app_name text NOT NULL, user_id text NOT NULL, key text NOT NULL, value text, version integer NOT NULL,
        PRIMARY KEY (app_name, user_id, key)
      );
      CREATE TABLE app_state (
        app_name text NOT NULL, key text NOT NULL, value text, version integer NOT NULL,
        PRIMARY KEY (app_name, key)
      );
    `,
  },
  {
    version: 2,
    sql: `
      CREATE TABLE page_bodies (hash text PRIMARY KEY, body bytea NOT NULL, bytes integer NOT NULL, tokens integer NOT NULL);
      CREATE TABLE pages (
        namespace text NOT NULL, uri text NOT NULL, title text NOT NULL, media_type text NOT NULL,
        hash text NOT NULL REFERENCES page_bodies (hash), fetched_at bigint NOT NULL, meta text NOT NULL,
        schema_version integer NOT NULL,
        PRIMARY KEY (namespace, uri)
      );
      CREATE INDEX pages_by_hash ON pages (hash);
    `,
  },
  {
    // The call log: each agent model call as sent, for `pagewise inspect`.
    version: 3,
    sql: `
      CREATE TABLE model_calls (
        id bigserial PRIMARY KEY, app_name text NOT NULL, user_id text NOT NULL, session_id text NOT NULL,
        invocation_id text NOT NULL, event_id text NOT NULL, agent text NOT NULL, model text NOT NULL,
        prompt_tokens integer NOT NULL, completion_tokens integer NOT NULL, tags text NOT NULL, body text NOT NULL,
        created_at bigint NOT NULL, schema_version integer NOT NULL
      );
      CREATE INDEX model_calls_session ON model_calls (app_name, user_id, session_id, id);
    `,
  },
  {
    // Event rows that cost about what they hold: the session's key once, in its session row, as an
    // integer sid, instead of three strings, the event id and a schema version on every row (and the
    // strings again in the primary-key index); bodies written from here on in the compact form of
    // session/event-codec.ts (rows copied here keep their JSON object form, which reads as before). Only
    // rows of a session that exists are copied: the store writes no other, and could not read one. The
    // view keeps the old table's shape for readers that query it.
    version: 4,
    sql: `
      ALTER TABLE sessions ADD COLUMN sid bigserial;
      ALTER TABLE sessions ADD CONSTRAINT sessions_sid_key UNIQUE (sid);
      CREATE TABLE event_rows (sid bigint NOT NULL, seq integer NOT NULL, body text NOT NULL, PRIMARY KEY (sid, seq));
      INSERT INTO event_rows (sid, seq, body)
        SELECT s.sid, e.seq, e.body FROM events e JOIN sessions s USING (app_name, user_id, session_id);
      DROP TABLE events;
      CREATE VIEW events AS
        SELECT s.app_name, s.user_id, s.session_id, e.seq, e.body, s.schema_version
        FROM event_rows e JOIN sessions s ON s.sid = e.sid;
    `,
  },
];

/** The newest schema version this build writes. */
export const LATEST_PG_SCHEMA = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;

/** The outcome of {@link migratePostgres}: the versions it applied, in order, and the version after it. */
export type PgMigrationResult = MigrationResult;

/**
 * How the migration runner reads and writes a PostgreSQL schema's record of applied migrations,
 * `schema_migrations`: the whole run is one transaction, holding an advisory lock on the schema's name until it
 * ends, so that of several migrators starting together one applies the migrations and the others, let in after
 * its commit, find them recorded. The client's `search_path` must already point at `schema`, when one is given.
 */
export function pgMigrationDialect(client: ClientBase, schema?: string): MigrationDialect<true> {
  return {
    begin: async () => {
      await client.query('BEGIN');
      // Released at commit or rollback.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`pagewise-migrate:${schema ?? ''}`]);
      if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)',
      );
    },
    recordedVersions: async () =>
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((row) => row.version),
    apply: async (migration) => {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
        migration.version,
        Date.now(),
      ]);
      // The lock taken in `begin` kept every other migrator out since the versions were read.
      return true;
    },
    commit: async () => {
      await client.query('COMMIT');
    },
    rollback: async () => {
      await client.query('ROLLBACK');
    },
  };
}

/**
 * Applies every migration not yet recorded, in one transaction on `client`, creating `schema` first when
 * one is given. The client's `search_path` must already point at that schema.
 */
export async function migratePostgres(client: PoolClient, schema?: string): Promise<PgMigrationResult> {
  return runMigrations(pgMigrationDialect(client, schema), PG_MIGRATIONS);
}

/** The highest migration version recorded, 0 when the schema has never been migrated. */
export async function schemaVersion(client: PoolClient): Promise<number> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
  if (!exists.rows[0]?.t) return 0;
  const latest = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
  return latest.rows[0]?.v ?? 0;
}
