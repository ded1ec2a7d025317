/**
 * `@pagewise/mastra`: instruction paging and ACON compression inside Mastra agents. The paging tools as
 * Mastra tools, the paged instruction rendered on every step by an input processor, observation and
 * history compression as processors with handles that `page_in` follows, and pagewise state kept per
 * Mastra memory thread (resource and thread ids) in a pagewise session store.
 *
 * @example
 * import { Agent } from '@mastra/core/agent';
 * import { observationCompressor } from 'pagewise/compression';
 * import { PagingService } from 'pagewise/paging';
 * import { MastraThreads, observationProcessor, pagingProcessor } from '@pagewise/mastra';
 *
 * const service = new PagingService({ source });
 * const threads = new MastraThreads();
 * const obs = observationProcessor({ processors: [observationCompressor({ service })], threads });
 * const agent = new Agent({
 *   id: 'analyst',
 *   name: 'analyst',
 *   instructions: 'Answer from the reports.',
 *   model,
 *   tools: { fetch_catalogue: fetchCatalogue },
 *   memory,
 *   inputProcessors: [obs, pagingProcessor({ service, threads })],
 *   outputProcessors: [obs],
 * });
 * await agent.generate('Which region grew most?', { memory: { thread: 'chat-1', resource: 'user-1' } });
 */
export { MastraThreads } from './threads.js';
export type { MastraRunLike, MastraThreadKey, MastraThreadsOptions, StateWrites, ThreadRun } from './threads.js';
export { createMastraPagingTools, mastraTool } from './tools.js';
export type { MastraPagingTools, MastraTool, MastraToolOptions, PagingToolName } from './tools.js';
export {
  historyPageUri,
  historyProcessor,
  observationProcessor,
  PAGEWISE_SYSTEM_TAG,
  pagewiseInstructionProcessor,
  pagingProcessor,
} from './processors.js';
export type {
  HistoryProcessorOptions,
  InstructionProcessor,
  InstructionProcessorOptions,
  ObservationProcessorOptions,
  PagewiseProcessor,
  PagingProcessorOptions,
} from './processors.js';
