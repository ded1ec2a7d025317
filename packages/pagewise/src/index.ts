/**
 * pagewise: keeps the context of long-horizon LLM agents small and useful.
 *
 * The root entry holds what an agent needs at run time: agents, tools, the runner, sessions and the memory store,
 * models, errors and the token ledger. The features have their own subpaths: `pagewise/paging` (instruction
 * paging), `pagewise/compression` (ACON), `pagewise/sources` (documents and search), `pagewise/context` (the request
 * pipeline), `pagewise/cost` (prompt caching and prices), `pagewise/telemetry`, `pagewise/store-kit` (for store
 * implementations), `pagewise/ai-sdk` and `pagewise/testing`. It loads no native module, no server client and no
 * chart library; those live in `@pagewise/sqlite`, `@pagewise/postgres`, `@pagewise/distributed`,
 * `@pagewise/documents`, `@pagewise/lab` and the adapters.
 */

// Errors and secrets.
export {
  AbortedError,
  AccessDeniedError,
  ConfigurationError,
  ContextWindowExceededError,
  DatabaseCorruptError,
  ImmutablePageError,
  IntegrityError,
  LimitExceededError,
  MissingApiKeyError,
  ModelBehaviorError,
  NotFoundError,
  PagewiseError,
  StorageBusyError,
  StorageError,
  SystemError,
  VersionConflictError,
  redactError,
  redactSecrets,
  secretsFromEnv,
  type ErrorFault,
  type Secret,
} from './errors.js';

// Sessions, events and state.
export type {
  CompactionEvent,
  EscalateEvent,
  EventKind,
  JsonValue,
  ModelEvent,
  RunErrorEvent,
  Session,
  SessionEvent,
  SessionKey,
  SessionSummary,
  StateDelta,
  ToolCallRecord,
  ObservationCompression,
  ToolResultEvent,
  TransferEvent,
  UserEvent,
} from './session/types.js';
export { APP_PREFIX, TEMP_PREFIX, USER_PREFIX, scopeOf, type StateScope } from './session/state.js';
export { type SessionStore } from './session/store.js';
export { InMemorySessionStore } from './session/memory-store.js';

// Tokens and the ledger.
export { countTokens, encodingForModel, type EncodingName } from './tokens/tokenizer.js';
export {
  Ledger,
  PROMPT_PARTS,
  summarizeLedger,
  type CallKind,
  type CompressionRecord,
  type LedgerEntry,
  type LedgerSummary,
  type LedgerSummaryProperty,
  type PartTokens,
  type PromptPart,
} from './tokens/ledger.js';

// Models.
export {
  DEFAULT_CONTEXT_WINDOW,
  contextWindowFor,
  modelLabel,
  resolveModel,
  type ModelSpec,
  type ResolveModelOptions,
} from './models/resolve.js';
export { isRetryableError, type RetryOptions } from './models/retry.js';
export { ProviderError, type ProviderErrorCode } from './models/provider-error.js';
export {
  OFFLINE_DISCLAIMER,
  OfflineModel,
  createOfflineModel,
  type OfflineDecision,
  type OfflineModelOptions,
  type OfflinePolicy,
} from './models/offline.js';

// Agents, tools and the runner.
export { tool, type AnyTool, type StateAccess, type Tool, type ToolActions, type ToolContext } from './agents/tool.js';
export { Agent, type AgentConfig, type InstructionContext, type InstructionProvider } from './agents/agent.js';
export { escalateTool, transferTool } from './agents/builtin-tools.js';
export {
  DEFAULT_LIMITS,
  Runner,
  SideEffectConflictError,
  type ResumeInput,
  type RunInput,
  type RunLimits,
  type RunnerOptions,
  type RunResult,
  type RunStreamPart,
  type StopReason,
} from './agents/runner.js';
