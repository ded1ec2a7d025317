/**
 * `pagewise/openai-agents`: instruction paging and ACON compression on the OpenAI Agents SDK. Paging
 * tools as SDK function tools with the working set in the run context, the paged instruction as the
 * agent's dynamic `instructions`, a `callModelInputFilter` running pagewise processors, and a Session
 * wrapper that stores compressed history with its raw text recoverable.
 *
 * @example
 * import { Agent, run } from '@openai/agents';
 * import { PagingService } from 'pagewise/paging';
 * import { createOpenAiPagingTools, pagedInstructions, pagingContext, pagewiseInputFilter } from 'pagewise/openai-agents';
 *
 * const paging = new PagingService({ source });
 * const tools = createOpenAiPagingTools(paging);
 * const agent = new Agent({ name: 'analyst', instructions: pagedInstructions({ base: 'Answer from the reports.', service: paging }), tools: [tools.get_reports, tools.save_result] });
 * await run(agent, question, { context: pagingContext(), callModelInputFilter: pagewiseInputFilter() });
 */
export {
  createOpenAiPagingTools,
  durableState,
  endPagingRun,
  openAiAgentsTool,
  pagedInstructions,
  pagingContext,
} from './paging.js';
export type { OpenAiPagingTools, PagedInstructionsOptions, PagewiseRunState, PagingContext } from './paging.js';
export { compressResults, lastUserText, pagewiseInputFilter } from './filter.js';
export type { ItemCompressionContext, PagewiseInputFilter, PagewiseInputFilterOptions } from './filter.js';
export { historyPageUri, PagewiseSession } from './session.js';
export type { PagewiseSessionOptions } from './session.js';
export { isStepBlockItem, itemsCodec, readItems, resultOutputText, stepBlockItem } from './items.js';
