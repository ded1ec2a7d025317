/**
 * `pagewise/sqlite`: sessions, pages and recorded compressor calls in one SQLite file (better-sqlite3), for a
 * single machine. Importing it loads the native module; the root entry does not.
 *
 * @example
 * import { Runner } from 'pagewise';
 * import { SqliteSessionStore } from 'pagewise/sqlite';
 * const runner = new Runner({ agent, model: 'offline', store: new SqliteSessionStore({ path: './agent.db' }) });
 */
export {
  SqliteSessionStore,
  defaultDatabasePath,
  openSqliteDatabase,
  type OpenSqliteOptions,
  type SqliteStoreOptions,
} from './sqlite-store.js';
export { DEFAULT_BUSY_TIMEOUT_MS } from './sqlite-errors.js';
export { LATEST_SQLITE_SCHEMA, migrate as migrateSqlite } from './migrations.js';
export { SqlitePageStore, type SqlitePageStoreOptions } from './sqlite-page-store.js';
export { SqliteCallLog, type SqliteCallLogOptions } from './sqlite-call-log.js';
export { SqliteCompressorCallStore, type SqliteCompressorCallStoreOptions } from './sqlite-compressor-calls.js';
