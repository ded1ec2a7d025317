/**
 * `pagewise inspect` as a library: a local, read-only web inspector over the stores the runner writes
 * (SQLite, PostgreSQL) and `pagewise bench --out` folders.
 */
export { startInspector, createInspectorApp, INSPECT_CSP, type Inspector, type InspectorOptions } from './server.js';
export { openStore, openSqliteReadOnly, openPostgresReadOnly, type InspectDb, type Dialect } from './db.js';
export {
  InspectData,
  pagedUris,
  type SessionFilter,
  type SessionListRow,
  type SessionHeader,
  type SeqEvent,
  type CallSummary,
  type CallDetail,
  type PageView,
} from './data.js';
export { escapeHtml, html, SafeHtml } from './html.js';
