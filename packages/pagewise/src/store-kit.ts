/**
 * `pagewise/store-kit`: what a session store or call log implementation needs beyond the `SessionStore` interface of
 * the root entry: the schema versions, the options of its listing and creation methods, the locking store's
 * contract and the call log's record. `@pagewise/sqlite` and `@pagewise/postgres` are built on it.
 */
export {
  SESSION_SCHEMA_VERSION,
  SharedStateConflictError,
  type CreateSessionOptions,
  type ListSessionsOptions,
  type LockingSessionStore,
} from './session/store.js';
export { CALL_LOG_SCHEMA, type CallLog, type CallTags, type ModelCallRecord } from './agents/call-log.js';
