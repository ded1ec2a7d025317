/**
 * `pagewise/adk`: instruction paging and ACON compression on Google ADK JS. Paging tools as ADK
 * `FunctionTool`s with the working set in ADK `temp:` state, the paged instruction as an ADK
 * `InstructionProvider`, compression and ledger as an ADK plugin, and an ADK model over any AI SDK
 * model. Sessions stay in ADK's own session services.
 *
 * @example
 * import { LlmAgent, InMemoryRunner } from '@google/adk';
 * import { PagingService } from 'pagewise/paging';
 * import { adkPagedInstruction, createAdkPagingTools, PagewiseAdkPlugin } from 'pagewise/adk';
 *
 * const paging = new PagingService({ source });
 * const tools = createAdkPagingTools(paging);
 * const analyst = new LlmAgent({
 *   name: 'analyst',
 *   model: 'gemini-2.5-flash',
 *   instruction: adkPagedInstruction({ base: 'Answer from the reports.', service: paging }),
 *   tools: [tools.get_reports, tools.save_result],
 * });
 */
export { adkStateAccess, adkStateRecord } from './state.js';
export { adkTool, createAdkPagingTools } from './tools.js';
export type { AdkPagingTools, AdkToolOptions } from './tools.js';
export { adkInstruction, adkPagedInstruction } from './instruction.js';
export { PagewiseAdkPlugin } from './plugin.js';
export type { PagewiseAdkPluginOptions } from './plugin.js';
export { AiSdkLlm, genaiSchemaToJson, llmRequestToCallOptions } from './ai-sdk-llm.js';
export { contentsCodec, functionResponseText, readContents } from './contents.js';
export type { AdkContent } from './contents.js';
export { measureCallOptions } from 'pagewise/ai-sdk';
export { splitSystem } from 'pagewise/adapter-kit';
