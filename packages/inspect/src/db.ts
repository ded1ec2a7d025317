/**
 * Read-only access to a pagewise database for the inspector: one small query interface over SQLite
 * (opened read-only) and PostgreSQL (every transaction read-only), so the views share their SQL.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { ConfigurationError, StorageError } from 'pagewise';

/** The SQL dialect of an {@link InspectDb}. */
export type Dialect = 'sqlite' | 'postgres';

/** A read-only database: rows of a query with `?` placeholders. */
export interface InspectDb {
  readonly dialect: Dialect;
  /** A label without secrets, for the page header and messages. */
  readonly label: string;
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** Opens a SQLite file read-only; a missing file is a typed error, never a new empty database. */
export function openSqliteReadOnly(file: string): InspectDb {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new ConfigurationError(
      'store-not-found',
      `Cannot open the SQLite store ${file} read-only: ${(error as Error).message}. Check the --store path.`,
      error,
    );
  }
  db.pragma('busy_timeout = 5000');
  return {
    dialect: 'sqlite',
    label: `sqlite:${file}`,
    async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      requireSingleSelect(sql);
      try {
        return db.prepare(sql).all(...params) as T[];
      } catch (error) {
        throw new StorageError(`The inspector's query failed on ${file}: ${(error as Error).message}`, error);
      }
    },
    async close() {
      db.close();
    },
  };
}

/** Opens a PostgreSQL pool whose sessions are read-only (the server refuses any write). */
export function openPostgresReadOnly(url: string, schema?: string): InspectDb {
  let label: string;
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    label = parsed.toString();
  } catch (error) {
    throw new ConfigurationError('invalid-store', `--store is not a valid PostgreSQL URL.`, error);
  }
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new ConfigurationError('bad-schema', `Schema "${schema}" must be a lower-case SQL identifier.`);
  const options = ['-c default_transaction_read_only=on', ...(schema ? [`-c search_path=${schema}`] : [])].join(' ');
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    application_name: 'pagewise-inspect',
    options,
    connectionTimeoutMillis: 10_000,
    statement_timeout: 30_000,
  });
  pool.on('error', () => undefined);
  return {
    dialect: 'postgres',
    label,
    async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      requireSingleSelect(sql);
      let placeholder = 0;
      const text = sql.replace(/\?/g, () => `$${++placeholder}`);
      let client: pg.PoolClient | undefined;
      try {
        client = await pool.connect();
        // The session default alone can be lifted by the query (`BEGIN READ WRITE`, `set_config`): each query
        // runs in its own read-only transaction, sent with the extended protocol (one statement, no `;`
        // chains), and rolled back, which also undoes any setting it changed.
        await client.query('BEGIN TRANSACTION READ ONLY');
        try {
          const query = { text, values: params as unknown[], queryMode: 'extended' } as pg.QueryConfig;
          return (await client.query(query)).rows as T[];
        } finally {
          await client.query('ROLLBACK');
        }
      } catch (error) {
        throw new StorageError(`The inspector's query failed on ${label}: ${(error as Error).message}`, error);
      } finally {
        client?.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}

/**
 * Refuses anything but one `SELECT` (or `WITH … SELECT`) statement, before it reaches the server: the
 * inspector only reads, and {@link InspectDb.all} is exported, so a caller's text is untrusted too.
 *
 * @throws ConfigurationError for another statement or more than one.
 */
export function requireSingleSelect(sql: string): void {
  // Comments removed, and a single trailing semicolon: what remains must start as a read and hold no `;`.
  const text = sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .trim()
    .replace(/;\s*$/, '');
  if (!/^(select|with)\b/i.test(text) || text.includes(';'))
    throw new ConfigurationError(
      'read-only',
      `The inspector is read-only: it runs one SELECT statement per query; refused: ${JSON.stringify(sql.slice(0, 80))}.`,
    );
}

/** Opens `--store`: `sqlite:<file>`, a bare file path, or a `postgres://` URL. */
export function openStore(spec: string, schema?: string): InspectDb {
  if (/^postgres(ql)?:\/\//i.test(spec)) return openPostgresReadOnly(spec, schema);
  return openSqliteReadOnly(spec.replace(/^sqlite:/i, ''));
}
