/**
 * `@pagewise/langchain`: instruction paging and ACON compression inside LangChain.js `createAgent`.
 * The paging tools as LangChain tools, the paged instruction rendered into the system message by
 * middleware, observation and history compression as middleware with handles that `page_in` follows,
 * and pagewise state kept per LangGraph thread (`configurable.thread_id`) in a pagewise session store.
 *
 * @example
 * import { createAgent } from 'langchain';
 * import { observationCompressor } from 'pagewise/compression';
 * import { PagingService } from 'pagewise/paging';
 * import { LangChainThreads, observationMiddleware, pagingMiddleware } from '@pagewise/langchain';
 *
 * const service = new PagingService({ source });
 * const threads = new LangChainThreads();
 * const agent = createAgent({
 *   model,
 *   systemPrompt: 'Answer from the reports.',
 *   tools: [fetchCatalogue],
 *   middleware: [
 *     observationMiddleware({ processors: [observationCompressor({ service })], threads }),
 *     pagingMiddleware({ service, threads }),
 *   ],
 * });
 * await agent.invoke({ messages: [{ role: 'user', content: 'Which region grew most?' }] }, { configurable: { thread_id: 'chat-1' } });
 */
export { LangChainThreads } from './threads.js';
export type { LangChainThreadsOptions, StateWrites, ThreadConfigLike, ThreadRun } from './threads.js';
export { createLangChainPagingTools, langchainTool } from './tools.js';
export type { LangChainPagingTools, LangChainToolOptions, PagingToolName } from './tools.js';
export {
  historyMiddleware,
  historyPageUri,
  observationMiddleware,
  pagewiseInstructionMiddleware,
  pagingMiddleware,
} from './middleware.js';
export type {
  HistoryMiddlewareOptions,
  InstructionMiddlewareOptions,
  ObservationMiddlewareOptions,
  PagewiseMiddleware,
  PagingMiddlewareOptions,
} from './middleware.js';
export { contentText, langchainMessagesCodec, langchainRequestToCallOptions } from './messages.js';
export type { LangChainToolLike } from './messages.js';
