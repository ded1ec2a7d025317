/**
 * pagewise: keeps the context of long-horizon LLM agents small and useful. Public API: re-exports only.
 */
export * from './errors.js';
export * from './session/types.js';
export * from './session/state.js';
export * from './session/store.js';
export { InMemorySessionStore } from './session/memory-store.js';
export {
  SqliteSessionStore,
  openSqliteDatabase,
  defaultDatabasePath,
  type SqliteStoreOptions,
} from './stores/sqlite/sqlite-store.js';
export { migrate as migrateSqlite, LATEST_SQLITE_SCHEMA } from './stores/sqlite/migrations.js';
export { SqlitePageStore, type SqlitePageStoreOptions } from './stores/sqlite/sqlite-page-store.js';
export * from './tokens/tokenizer.js';
export * from './tokens/ledger.js';
export * from './context/request.js';
export * from './context/observation.js';
export { eventsToItems, groupTurns } from './context/history.js';
export * from './context/processors.js';
export * from './models/resolve.js';
export * from './models/retry.js';
export * from './models/offline.js';
export * from './models/prompt-view.js';
export * from './agents/tool.js';
export * from './agents/agent.js';
export * from './agents/builtin-tools.js';
export * from './agents/runner.js';
export * from './paging/index.js';
export * from './compression/index.js';
export * from './sources/index.js';
export * from './bench/index.js';
export * from './optimize/index.js';
export * from './distributed/index.js';
export * from './stores/postgres/index.js';
export { refreshSession } from './session/append.js';
