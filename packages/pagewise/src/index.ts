/**
 * pagewise: keeps the context of long-horizon LLM agents small and useful.
 *
 * The root entry holds what an agent needs at run time: the runtime (agents, tools, runner, sessions, the
 * memory store, models, the token ledger, the context pipeline), instruction paging, compression and
 * document sources. It loads no native module, no server client and no chart library; those live in
 * their own entries: `@pagewise/sqlite`, `@pagewise/postgres`, `@pagewise/distributed`,
 * `@pagewise/documents`, `@pagewise/lab` and the adapters, and the subpaths `pagewise/testing` and `pagewise/ai-sdk`.
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
export {
  SESSION_SCHEMA_VERSION,
  SharedStateConflictError,
  type CreateSessionOptions,
  type ListSessionsOptions,
  type LockingSessionStore,
  type SessionStore,
} from './session/store.js';
export { InMemorySessionStore } from './session/memory-store.js';

// Tokens and the ledger.
export { countTokens, encodingForModel, type EncodingName } from './tokens/tokenizer.js';
export {
  Ledger,
  PROMPT_PARTS,
  billedPromptTokens,
  callCostUsd,
  prefixRewriteCostUsd,
  summarizeLedger,
  type BilledPromptTokens,
  type CallKind,
  type CompressionRecord,
  type LedgerCache,
  type LedgerEntry,
  type LedgerSummary,
  type LedgerSummaryProperty,
  type PartTokens,
  type PromptPart,
} from './tokens/ledger.js';

// The prompt-cache model and prices.
export { PROMPT_CACHE_RULES, promptCacheRulesFor, type PromptCacheRules } from './tokens/cache-rules.js';
export { PromptCache, type CacheSegment, type PromptCacheUsage, type PromptContinuity } from './tokens/prompt-cache.js';
export { promptSegments } from './tokens/prompt-segments.js';
export { locatePromptToken, type LocatedPart, type PromptTokenLocation } from './tokens/prompt-locate.js';
export { DEFAULT_PRICES, PRICES_CHECKED, type ModelPrice } from './tokens/prices.js';

// The context pipeline.
export {
  isPerStep,
  renderPrompt,
  STEP_BLOCK_HEADER,
  stepBlockText,
  systemText,
  type ContextItem,
  type ContextProcessor,
  type ContextRequest,
  type InstructionSection,
  type ProcessorContext,
  type RequestField,
  type ToolDefinition,
} from './context/request.js';
export { isStepBlock, STEP_BLOCK_MARK } from './models/step-block.js';
export {
  ANTHROPIC_BREAKPOINT,
  promptCacheKey,
  withCacheHints,
  type CacheSession,
  type CacheHintOptions,
} from './models/cache-hints.js';
export type { ObservationContext, ObservationProcessor, ToolObservation } from './context/observation.js';
export {
  clearToolResults,
  fifoHistory,
  naiveHistory,
  type ClearToolResultsOptions,
  type FifoOptions,
} from './context/processors.js';

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
export { CALL_LOG_SCHEMA, type CallLog, type CallTags, type ModelCallRecord } from './agents/call-log.js';
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

// Instruction paging.
export {
  InMemoryPageStore,
  isHandleUri,
  verifiedBody,
  type Page,
  type PageInfo,
  type PageInput,
  type PageStore,
} from './paging/page-store.js';
export {
  MAX_REPORTS_PER_READ,
  PageLoadError,
  PagingService,
  RESULT_PREFIX,
  type PageInMode,
  type PagingOptions,
  type WorkingSetEntry,
} from './paging/service.js';
export { PAGING_TOOL_NAMES, createPagingTools, savedResults, type PagingToolsOptions } from './paging/tools.js';
export { pagedInstruction, type PagedInstructionOptions } from './paging/instruction.js';
export { autoPaging, type AutoPagingOptions } from './paging/auto-paging.js';
export {
  compactPagingTurns,
  SAVED_RESULT_ELIDED,
  SHOWN_PAGES_ELIDED,
  type CompactPagingTurnsOptions,
} from './paging/paging-history.js';
export {
  fenceBoundary,
  renderFencedNotes,
  renderFencedPages,
  type FencedNotes,
  type FencedPage,
  type RenderFencedPagesOptions,
} from './paging/fence.js';
export { ExpressionError, evaluate as evaluateExpression } from './paging/calculate.js';

// Compression (ACON).
export {
  formatGuideline,
  loadGuideline,
  parseGuideline,
  renderGuideline,
  type Guideline,
  type GuidelineTarget,
} from './compression/guideline.js';
export { DEFAULT_HISTORY_GUIDELINE, DEFAULT_OBSERVATION_GUIDELINE } from './compression/default-guidelines.js';
export type { CompressionContext, CompressionInput, CompressorBackend } from './compression/backend.js';
export { extractiveCompressor, type ExtractiveCompressorOptions } from './compression/extractive-backend.js';
export { compressorSystemPrompt, llmCompressor, type LlmCompressorOptions } from './compression/llm-backend.js';
export {
  resolveCompressor,
  type CompressorSpec,
  type ResolveCompressorOptions,
} from './compression/resolve-compressor.js';
export {
  DEFAULT_OBSERVATION_THRESHOLD,
  OBSERVATION_THRESHOLD,
  observationCompressor,
  type ObservationCompressor,
  type ObservationCompressorOptions,
} from './compression/observation.js';
export {
  DEFAULT_HISTORY_BATCH_RATIO,
  DEFAULT_HISTORY_THRESHOLD,
  historyCompressor,
  type HistoryCompressorOptions,
  type HistoryMode,
} from './compression/history.js';
export { promptingSummarizer, type PromptingSummarizerOptions } from './compression/prompting.js';
export { type ExtractiveOptions } from './compression/extractive.js';
export {
  compressMessages,
  compressText,
  type CompressCallOptions,
  type CompressionBudget,
  type CompressMessagesOptions,
  type CompressMessagesResult,
  type CompressTextOptions,
  type CompressTextResult,
} from './compression/api.js';
export { DEFAULT_EXTRACTIVE_RULES } from './compression/rules.js';

// Document sources.
export type {
  DocumentSource,
  ListableSource,
  LoadedDocument,
  LoaderFunction,
  LoaderResult,
  LoadOptions,
} from './sources/source.js';
export { DEFAULT_MAX_DOCUMENT_BYTES, combineSources, loaderSource } from './sources/source.js';
export { createFolderSource, type FolderSourceOptions } from './sources/folder-source.js';
export { createHttpSource, type HttpSourceOptions } from './sources/http-source.js';
export {
  CorpusIndex,
  createSearchTool,
  type CorpusSearchResult,
  type SearchToolOptions,
} from './sources/corpus-index.js';

// Telemetry (OpenTelemetry GenAI spans through @opentelemetry/api; a no-op without a provider).
export { PAGE_IN_TOOLS, pagewiseTelemetry, type TelemetryOptions } from './telemetry/tracing.js';
export type { InvocationInfo, InvocationTelemetry, ModelCallContent, RunTelemetry } from './telemetry/types.js';
