/**
 * `pagewise/internal`: what pagewise's own packages share beyond the public surface. Not a public API:
 * names here may change in any release.
 */
export { HistoryBridge } from './adapters/history-bridge.js';
export type { BridgeCodec, SourcedEvent } from './adapters/history-bridge.js';
export { clearTempKeys, deltaStateAccess, recordStateAccess } from './adapters/record-state.js';
export type { StateWrites } from './adapters/record-state.js';
export { callLogRow } from './agents/call-log.js';
export { guidelineValues } from './compression/backend.js';
export { randomUnits, truncateHead, truncateTail } from './compression/baselines-text.js';
export { PLACEHOLDER_RULES, placeholdersOf } from './compression/guideline.js';
export { summaryBody } from './compression/history.js';
export { isOfflineModel } from './compression/resolve-compressor.js';
export { ExtractiveRulesSchema, parseExtractiveRules } from './compression/rules.js';
export type { AlwaysKeep, ExtractiveRules } from './compression/rules.js';
export { handleOf, unfenceQuoted } from './compression/transcript.js';
export { eventsToItems, groupTurns } from './context/history.js';
export { itemText, latestObservationStart, measureRequest, toolDefinitionText } from './context/request.js';
export { DEFAULT_PRICES, PRICES_CHECKED } from './tokens/prices.js';
export { promptCacheRulesForSpec } from './tokens/cache-rules.js';
export type { ModelPrice } from './tokens/prices.js';
export { withRetry } from './models/retry.js';
export {
  COMPRESSOR_CALL_SCHEMA,
  CompressorCallBodySchema,
  InMemoryCompressorCallStore,
  checkSuccess,
  matchesCallFilter,
} from './compression/call-store.js';
export type {
  CompressorCallFilter,
  CompressorCallInput,
  CompressorCallRecord,
  CompressorCallStore,
} from './compression/call-store.js';
export { toolPageUri } from './paging/auto-paging.js';
export { PAGE_SCHEMA_VERSION, pageInfo, pageInfoFromRow, putOutcome, toPage } from './paging/page-store.js';
export { commitToSession, planAppend, refreshSession, sharedKeys, sharedKeysOf } from './session/append.js';
export type { AppendPlan, SharedKeys, SharedValue, SharedWrite } from './session/append.js';
export { parseStoredEvent, parseStoredState, parseStoredValue } from './session/event-schema.js';
export { deepFreeze } from './session/frozen.js';
export { applyDelta, splitDelta } from './session/state.js';
export { READABLE_SESSION_SCHEMA_VERSIONS } from './session/store.js';
export { integerOption, throwIfAborted } from './sources/guards.js';
export { htmlToReadableText } from './sources/html.js';
export { titleFromText } from './sources/title.js';
export { canonicalValue, jsonScalars, uniqueValues } from './util/canonical-value.js';
export { DATA_DIR_ENV, findDataPath, missingDataHint, userCacheDir, userDataDir } from './util/data-dir.js';
export { scanJson } from './util/json-scan.js';
export { ownValue, setOwn } from './util/own-field.js';
export { seededRandom, seededShuffle } from './util/random.js';
export { splitSystem } from './adapters/measure.js';
export {
  FENCE_BOUNDARY_DIGITS,
  neutralize,
  parseFencedPages,
  seededFenceBoundary,
  type ParsedFencedPage,
} from './paging/fence.js';
export { hashBody } from './paging/page-store.js';
export { WANT_READ_KEY } from './paging/service.js';
export { hasCjk, wordTokens } from './text/words.js';
export { queryTerms } from './text/query-terms.js';
export { isIdentifierToken } from './text/identifiers.js';
export { isStopword } from './text/stopwords.js';
export { sentenceSpans, splitSentences } from './text/sentences.js';
export {
  compressExtractive,
  compressWithProbe,
  type ExtractiveResult,
  type FeatureProbe,
} from './compression/extractive.js';
export { FEATURE_NAMES, FEATURES_VERSION, learnedScore, type LearnedParams } from './compression/features.js';
export { EXTRACTIVE_PARAMS } from './compression/extractive-params.js';
export { eventSchema } from './session/event-schema.js';
export { invalidArgumentsText, toolFailureText } from './adapters/tool-error.js';
export { compressorPrompt } from './compression/backend.js';
export { emptyParts } from './tokens/ledger.js';
export {
  decodeEvent,
  encodeEvent,
  encodeEventBody,
  storedEventId,
  uuidFromBytes,
  uuidToBytes,
  type EventIdentity,
} from './session/event-codec.js';
