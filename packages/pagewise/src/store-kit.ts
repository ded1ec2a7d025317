/**
 * `pagewise/store-kit`: what a session store, page store, call log or compressor call store needs beyond the
 * interfaces of the public entries, so that every store reads and writes the same rows and commits the same way.
 * `@pagewise/sqlite` and `@pagewise/postgres` are built on it; the memory stores of the core follow the same rules.
 * What each part is for: docs/stores.md, "Building a store".
 */
// Schemas: numbered migrations, applied in order by one runner over a store's dialect, synchronous or not.
export {
  pendingMigrations,
  runMigrations,
  runMigrationsSync,
  type MigrationDialect,
  type MigrationResult,
  type MigrationRunOptions,
  type SchemaMigration,
} from './util/schema-migrations.js';
// Sessions: schema versions, the listing and creation options, the locking store's contract.
export {
  READABLE_SESSION_SCHEMA_VERSIONS,
  SESSION_SCHEMA_VERSION,
  SharedStateConflictError,
  type CreateSessionOptions,
  type ListSessionsOptions,
  type LockingSessionStore,
} from './session/store.js';
// Sessions: one atomic, version-checked append, planned against what is stored, then applied to the caller's copy.
export {
  commitToSession,
  planAppend,
  refreshSession,
  sharedKeys,
  sharedKeysOf,
  type AppendPlan,
  type SharedKeys,
  type SharedValue,
  type SharedWrite,
  type StoredView,
} from './session/append.js';
export { applyDelta, splitDelta } from './session/state.js';
export { deepFreeze } from './session/frozen.js';
// Sessions: the stored text of events and state, and the schema every row is parsed with on the way back.
export {
  decodeEvent,
  encodeEvent,
  encodeEventBody,
  storedEventId,
  uuidFromBytes,
  uuidToBytes,
  type EventIdentity,
} from './session/event-codec.js';
export { eventSchema, parseStoredState, parseStoredValue } from './session/event-schema.js';
// Sessions: a new session's key and first state, a stored row read back, a row of a listing.
export {
  firstSharedWrites,
  newSession,
  sessionFromRow,
  sessionSummaryFromRow,
  type NewSession,
  type StoredSessionListRow,
  type StoredSessionParts,
  type StoredSessionRow,
  type StoredSharedValue,
} from './session/stored-session.js';
// Pages: the row a page store keeps and the outcome of a write.
export {
  PAGE_SCHEMA_VERSION,
  hashBody,
  pageInfo,
  pageInfoFromRow,
  pageRowValues,
  putOutcome,
  toPage,
  type StoredPageRow,
} from './paging/page-store.js';
// Call logs: the record, its schema version and its row.
export { CALL_LOG_SCHEMA, callLogRow, type CallLog, type CallTags, type ModelCallRecord } from './agents/call-log.js';
// Compressor calls: the store the guideline optimizer reads, its schema, filter and the in-memory reference.
export {
  COMPRESSOR_CALL_SCHEMA,
  CompressorCallBodySchema,
  InMemoryCompressorCallStore,
  checkSuccess,
  matchesCallFilter,
  type CompressorCallFilter,
  type CompressorCallInput,
  type CompressorCallRecord,
  type CompressorCallStore,
} from './compression/call-store.js';
