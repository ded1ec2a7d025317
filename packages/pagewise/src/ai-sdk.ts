/**
 * `pagewise/ai-sdk`: pagewise for `generateText`, `streamText` and `ToolLoopAgent` users who do not run
 * the pagewise runner. ACON context compression as AI SDK middleware, and instruction paging through
 * `prepareStep` with the paging tools as AI SDK tools.
 *
 * @example
 * import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
 * import { compressionMiddleware, createAiSdkPaging } from 'pagewise/ai-sdk';
 *
 * const compression = compressionMiddleware();
 * const paging = createAiSdkPaging({ service: compression.service, instruction: 'Answer from the documents.' });
 * const model = wrapLanguageModel({ model: baseModel, middleware: compression });
 * await generateText({ model, tools: { ...myTools, ...paging.tools }, prepareStep: paging.prepareStep, stopWhen: stepCountIs(30), prompt });
 */
export { compressionMiddleware } from './compression/middleware.js';
export { handleOf } from './compression/transcript.js';
export type { CompressionMiddleware, CompressionMiddlewareOptions } from './compression/middleware.js';
export { DEFAULT_HISTORY_GUIDELINE, DEFAULT_OBSERVATION_GUIDELINE } from './compression/default-guidelines.js';
export { loadGuideline, parseGuideline } from './compression/guideline.js';
export type { Guideline } from './compression/guideline.js';
export { aiSdkTool, createAiSdkPaging } from './adapters/ai-sdk/paging.js';
export type { AiSdkPaging, AiSdkPagingOptions, AiSdkToolBinding, PagingToolName } from './adapters/ai-sdk/paging.js';
export { modelMessagesCodec, toolOutputText } from './adapters/ai-sdk/messages.js';
export { measureCallOptions } from './adapters/measure.js';
