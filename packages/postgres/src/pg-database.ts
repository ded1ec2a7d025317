/**
 * The PostgreSQL connection shared by the session and page stores: the URL (from the `url` option or
 * PAGEWISE_DATABASE_URL), a connection pool, an optional schema, migrations applied once on first use,
 * and transactions retried when PostgreSQL itself reports a transient serialization failure or deadlock.
 */
import pg from 'pg';
import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import { ConfigurationError, StorageBusyError, StorageError } from 'pagewise';
import { LATEST_PG_SCHEMA, migratePostgres, schemaVersion, type PgMigrationResult } from './migrations.js';

/** The environment variable that holds the PostgreSQL URL when no `url` option is given. */
export const DATABASE_URL_ENV = 'PAGEWISE_DATABASE_URL';

/** Default milliseconds to open a connection, from TCP connect to the server's first ready-for-query. */
export const PG_CONNECT_TIMEOUT_MS = 10_000;

/** Options of {@link openPgDatabase}. */
export interface PgDatabaseOptions {
  /** `postgres://user:password@host:port/database`. Default: `$PAGEWISE_DATABASE_URL`. */
  url?: string;
  /**
   * A schema (lower-case SQL identifier) to keep pagewise's tables in, created if absent; the server's
   * default `search_path` otherwise. Useful to give each app, or each test run, its own tables.
   */
  schema?: string;
  /** Pool size. Default 10. */
  maxConnections?: number;
  /**
   * Milliseconds to get a connection: TCP connect, TLS, authentication and the server's first
   * ready-for-query, or the wait for a free pooled connection. A peer that accepts the connection and
   * never answers fails after this long with a StorageError naming the host, instead of hanging.
   * Default {@link PG_CONNECT_TIMEOUT_MS}.
   */
  connectTimeoutMs?: number;
  /**
   * Apply pending migrations on first use (default). With `false`, the schema must already be current
   * (run `pagewise db migrate`), e.g. when the app's database role may not run DDL.
   */
  migrate?: boolean;
  /** Where PAGEWISE_DATABASE_URL is read from. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Options of the PostgreSQL stores: a database to share, or the options to open one. */
export interface PgStoreOptions extends PgDatabaseOptions {
  /** An open database to share with other stores (session and page store); `close()` leaves it open. */
  database?: PgDatabase;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The URL with its password replaced, safe for messages and logs. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * The PostgreSQL URL to use: `url` if given, else PAGEWISE_DATABASE_URL.
 *
 * @throws ConfigurationError naming PAGEWISE_DATABASE_URL when neither is set or the URL is not a
 *   `postgres://` or `postgresql://` URL.
 */
export function resolveDatabaseUrl(
  url?: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const source = url !== undefined ? 'The `url` option' : `${DATABASE_URL_ENV}`;
  const raw = url ?? env[DATABASE_URL_ENV];
  if (!raw) {
    throw new ConfigurationError(
      'missing-database-url',
      `No PostgreSQL URL: set ${DATABASE_URL_ENV} (e.g. postgres://pagewise@127.0.0.1:5432/pagewise) or pass \`url\`.`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigurationError(
      'bad-database-url',
      `${source} is not a URL. Set ${DATABASE_URL_ENV} to postgres://user[:password]@host[:port]/database.`,
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new ConfigurationError(
      'bad-database-url',
      `${source} has the scheme "${parsed.protocol}", not postgres: or postgresql:. Set ${DATABASE_URL_ENV} to postgres://user[:password]@host[:port]/database.`,
    );
  }
  return raw;
}

/** SQLSTATEs after which PostgreSQL expects the whole transaction to be run again. */
const TRANSIENT_CODES = new Set(['40001', '40P01']);
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  '28P01',
  '28000',
  '3D000',
  '57P03',
]);

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A pool of connections to one PostgreSQL database (and schema), migrated on first use. */
export class PgDatabase {
  /** The connection pool; stores borrow a client per operation. */
  readonly pool: Pool;
  /** The schema the tables live in, when one was chosen. */
  readonly schema: string | undefined;
  /** The URL without its password, for messages. */
  readonly label: string;
  /** `host:port` of the server, for messages. */
  readonly host: string;
  /** See {@link PgDatabaseOptions.connectTimeoutMs}. */
  readonly connectTimeoutMs: number;
  private readonly migrateOnStart: boolean;
  private readying: Promise<void> | undefined;
  private closed = false;

  constructor(options: PgDatabaseOptions = {}) {
    const url = resolveDatabaseUrl(options.url, options.env);
    this.label = redactDatabaseUrl(url);
    this.host = hostOf(url);
    this.connectTimeoutMs = options.connectTimeoutMs ?? PG_CONNECT_TIMEOUT_MS;
    if (!Number.isInteger(this.connectTimeoutMs) || this.connectTimeoutMs < 1) {
      throw new ConfigurationError(
        'invalid-option',
        `connectTimeoutMs must be a positive integer, got ${this.connectTimeoutMs}.`,
      );
    }
    if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
      throw new ConfigurationError(
        'bad-schema',
        `Schema "${options.schema}" must be a lower-case SQL identifier (letters, digits, "_"; at most 63).`,
      );
    }
    if (options.schema !== undefined && new URL(url).searchParams.has('options')) {
      throw new ConfigurationError(
        'bad-schema',
        `${DATABASE_URL_ENV} carries an "options" parameter and a schema is set too; keep search_path in one place.`,
      );
    }
    this.schema = options.schema;
    this.migrateOnStart = options.migrate ?? true;
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: this.connectTimeoutMs,
      application_name: 'pagewise',
      ...(this.schema ? { options: `-c search_path=${this.schema}` } : {}),
    });
    // An idle connection that breaks is dropped by the pool and replaced on next use; without a
    // listener the error event would end the process.
    this.pool.on('error', () => undefined);
  }

  /** Borrows a client, turning connection failures into a StorageError that says what to check. */
  async connect(): Promise<PoolClient> {
    if (this.closed) throw new StorageError(`The PostgreSQL store for ${this.label} is closed; open a new one.`);
    try {
      return await this.pool.connect();
    } catch (error) {
      throw this.connectionError(error);
    }
  }

  private connectionError(error: unknown): Error {
    const message = (error as Error | null)?.message ?? '';
    // pg-pool's words for its two waits: a new connection that never got ready, and no free connection.
    if (/due to connection timeout|timeout expired/.test(message)) {
      return new StorageError(
        `PostgreSQL at ${this.host} (${this.label}) accepted no usable connection within ${this.connectTimeoutMs} ms: it did not complete the connection handshake. Check that a PostgreSQL server (not another service) answers there and that ${DATABASE_URL_ENV} (or \`url\`) names the right host and port; raise the limit with the \`connectTimeoutMs\` option.`,
        error,
        { code: 'database-timeout', retryable: true },
      );
    }
    if (/timeout exceeded when trying to connect/.test(message)) {
      return new StorageBusyError(
        this.label,
        `All pooled connections to PostgreSQL at ${this.host} stayed busy for ${this.connectTimeoutMs} ms. Repeat the call, or raise \`maxConnections\` or \`connectTimeoutMs\`.`,
        error,
      );
    }
    const code = sqlState(error);
    if (code && CONNECTION_CODES.has(code)) {
      return new StorageError(
        `Cannot connect to PostgreSQL at ${this.label}: ${(error as Error).message}. Check that the server is running and that ${DATABASE_URL_ENV} (or \`url\`) names the right host, database and user.`,
        error,
      );
    }
    return error as Error;
  }

  /** Applies pending migrations, once per database object; every store operation awaits it first. */
  ready(): Promise<void> {
    this.readying ??= this.prepare().catch((error: unknown) => {
      // Let the next call try again: the server may just have been starting.
      this.readying = undefined;
      throw error;
    });
    return this.readying;
  }

  private async prepare(): Promise<void> {
    if (this.migrateOnStart) {
      await this.migrate();
      return;
    }
    const client = await this.connect();
    try {
      const version = await schemaVersion(client);
      if (version < LATEST_PG_SCHEMA) {
        throw new ConfigurationError(
          'database-not-migrated',
          `The PostgreSQL schema at ${this.label} is at version ${version}; this pagewise needs ${LATEST_PG_SCHEMA}. Run \`pagewise db migrate\` (with ${DATABASE_URL_ENV} set), or open the store with migrate: true.`,
        );
      }
    } finally {
      client.release();
    }
  }

  /** Applies every pending migration now and reports what was done. */
  async migrate(): Promise<PgMigrationResult> {
    const client = await this.connect();
    try {
      return await migratePostgres(client, this.schema);
    } catch (error) {
      throw this.connectionError(error);
    } finally {
      client.release();
    }
  }

  /** Runs one statement outside a transaction, once migrations are done. */
  async query<R extends QueryResultRow>(text: string, params: unknown[] = []): Promise<QueryResult<R>> {
    await this.ready();
    if (this.closed) throw new StorageError(`The PostgreSQL store for ${this.label} is closed; open a new one.`);
    try {
      return await this.pool.query<R>(text, params);
    } catch (error) {
      throw this.connectionError(error);
    }
  }

  /**
   * Runs `work` in a transaction and commits it. Errors thrown by `work` roll back and propagate; a
   * serialization failure or deadlock reported by PostgreSQL (and any SQLSTATE in `retryOn`) reruns
   * the whole transaction, which is safe because `work` only talks to the database.
   */
  async transaction<T>(
    work: (client: PoolClient) => Promise<T>,
    options: { readOnly?: boolean; retryOn?: readonly string[] } = {},
  ): Promise<T> {
    await this.ready();
    const begin = options.readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN';
    const maxAttempts = 8;
    for (let attempt = 1; ; attempt++) {
      const client = await this.connect();
      let broken = false;
      try {
        await client.query(begin);
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        const code = sqlState(error);
        const transient = code !== undefined && (TRANSIENT_CODES.has(code) || options.retryOn?.includes(code));
        if (!transient) throw this.connectionError(error);
        if (attempt >= maxAttempts) {
          throw new StorageBusyError(
            this.label,
            `PostgreSQL at ${this.label} kept reporting ${code} (${(error as Error).message}) after ${attempt} attempts. Retry later or reduce concurrency.`,
            error,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      } finally {
        client.release(broken);
      }
    }
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

/** `host:port` of a PostgreSQL URL (port 5432 when not given). */
function hostOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
}

/** Opens a pool to the PostgreSQL database named by `options.url` or PAGEWISE_DATABASE_URL. */
export function openPgDatabase(options: PgDatabaseOptions = {}): PgDatabase {
  return new PgDatabase(options);
}
