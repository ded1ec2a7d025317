/**
 * The PostgreSQL stores: sessions and pages in one shared database, for many workers at once.
 * Public API: re-exports only.
 */
export {
  PgDatabase,
  openPgDatabase,
  resolveDatabaseUrl,
  redactDatabaseUrl,
  DATABASE_URL_ENV,
  PG_CONNECT_TIMEOUT_MS,
  type PgDatabaseOptions,
  type PgStoreOptions,
} from './pg-database.js';
export { PgSessionStore } from './pg-session-store.js';
export { PgPageStore } from './pg-page-store.js';
export { PgCallLog, type PgCallLogOptions } from './pg-call-log.js';
export {
  PG_MIGRATIONS,
  LATEST_PG_SCHEMA,
  migratePostgres,
  type PgMigration,
  type PgMigrationResult,
} from './migrations.js';
