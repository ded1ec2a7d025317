/**
 * `pagewise/compression`: ACON's observation and history compression driven by natural-language guidelines, the
 * backends that do the compressing (extractive, LLM), and `compressText` / `compressMessages` for use outside an
 * agent.
 */
export {
  formatGuideline,
  loadGuideline,
  parseGuideline,
  renderGuideline,
  type Guideline,
  type GuidelineTarget,
} from './compression/guideline.js';
export { DEFAULT_HISTORY_GUIDELINE, DEFAULT_OBSERVATION_GUIDELINE } from './compression/default-guidelines.js';
export {
  compressorPrompt,
  type CompressionContext,
  type CompressionInput,
  type CompressorBackend,
} from './compression/backend.js';
export {
  extractiveBackend,
  extractiveCompressor,
  type ExtractiveBackendOptions,
  type ExtractiveCompressorOptions,
} from './compression/extractive-backend.js';
export {
  compressorSystemPrompt,
  llmBackend,
  llmCompressor,
  type LlmBackendOptions,
  type LlmCompressorOptions,
} from './compression/llm-backend.js';
export {
  resolveBackend,
  resolveCompressor,
  type CompressorSpec,
  type ResolveBackendOptions,
  type ResolveCompressorOptions,
} from './compression/resolve-backend.js';
export {
  ACON_OBSERVATION_THRESHOLD,
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
export { handleOf } from './compression/transcript.js';
