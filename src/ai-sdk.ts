/**
 * `pagewise/ai-sdk`: ACON context compression as AI SDK middleware, for `generateText` and `streamText`
 * users who do not run the pagewise runner.
 *
 * @example
 * import { generateText, wrapLanguageModel } from 'ai';
 * import { compressionMiddleware } from 'pagewise/ai-sdk';
 *
 * const model = wrapLanguageModel({ model: baseModel, middleware: compressionMiddleware() });
 */
export { compressionMiddleware } from './compression/middleware.js';
export type { CompressionMiddleware, CompressionMiddlewareOptions } from './compression/middleware.js';
export { DEFAULT_HISTORY_GUIDELINE, DEFAULT_OBSERVATION_GUIDELINE } from './compression/default-guidelines.js';
export { loadGuideline, parseGuideline } from './compression/guideline.js';
export type { Guideline } from './compression/guideline.js';
