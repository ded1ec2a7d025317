/**
 * pagewise tools as LangChain tools: the paging tools (`get_reports`, `page_in`, `page_out`,
 * `read_frame`, `save_result`, `list_results`, `calculate`) or any tool written for the pagewise runner.
 * The tool reads and writes the pagewise state of the call's LangGraph thread; its result (a receipt for
 * the paging tools) is what LangChain stores in its messages, while bodies stay in the page store. A
 * failure goes back to the model as a redacted error text instead of ending the run.
 */
import { randomUUID } from 'node:crypto';
import { ToolMessage } from '@langchain/core/messages';
import { tool as lcTool, type StructuredToolInterface } from '@langchain/core/tools';
import type { AnyTool } from 'pagewise';
import type { PagingService, PagingToolsOptions } from 'pagewise/paging';
import { adapterSteps, invalidArgumentsText } from 'pagewise/adapter-kit';
import { LangChainThreads, type ThreadConfigLike } from './threads.js';

/** Name of a paging tool. */
export type PagingToolName = adapterSteps.PagingToolName;

/** Options of {@link langchainTool}. */
export interface LangChainToolOptions {
  /** The thread sessions the tool's state lives in; share it with the middleware. Default: a new one. */
  threads?: LangChainThreads;
  /** Services the tool looks up by key (`ctx.services`). */
  services?: ReadonlyMap<string, unknown>;
  /**
   * End the agent loop after this tool (LangChain's `returnDirect`). Give it to a tool that escalates,
   * such as pagewise's `escalateTool`: LangChain has no escalate action of its own.
   */
  returnDirect?: boolean;
}

/** What LangChain passes a tool besides its input. */
interface ToolRunConfig extends ThreadConfigLike {
  toolCallId?: string;
  toolCall?: { id?: string };
  signal?: AbortSignal;
}

/**
 * Wraps a pagewise tool as a LangChain tool (its zod schema is the tool's schema).
 *
 * @example
 * const threads = new LangChainThreads();
 * const agent = createAgent({ model, tools: [langchainTool(myPagewiseTool, { threads })] });
 */
export function langchainTool(tool: AnyTool, options: LangChainToolOptions = {}): StructuredToolInterface {
  const threads = options.threads ?? new LangChainThreads();
  const services = options.services ?? new Map<string, unknown>();
  return lcTool(
    async (input: unknown, config?: ToolRunConfig) => {
      const parsed = tool.inputSchema.safeParse(input);
      if (!parsed.success) return invalidArgumentsText(tool.name, parsed.error.message);
      const threadId = threads.threadId(config);
      const givenId = config?.toolCallId ?? config?.toolCall?.id;
      const { output, isError } = await adapterSteps.runTool(threads, threadId, tool, parsed.data, {
        sessionId: threadId,
        userId: 'langchain',
        appName: 'langchain',
        agentName: 'langchain',
        toolCallId: givenId ?? randomUUID(),
        signal: config?.signal ?? new AbortController().signal,
        services,
        noTransfer: 'LangChain agents hand over through subagents or tools, not pagewise transfers.',
      });
      // A ToolMessage marks the failure as an error result, so compressors keep its first line.
      if (isError && givenId)
        return new ToolMessage({ content: output, tool_call_id: givenId, name: tool.name, status: 'error' });
      return output;
    },
    {
      name: tool.name,
      description: tool.description,
      schema: tool.inputSchema as never,
      ...(options.returnDirect ? { returnDirect: true } : {}),
    },
  ) as unknown as StructuredToolInterface;
}

/** The paging tools by name, as LangChain tools. */
export type LangChainPagingTools = Record<PagingToolName, StructuredToolInterface>;

/**
 * Creates the paging tools as LangChain tools bound to a paging service and the thread sessions. The
 * working set lives under `temp:` keys of the thread's session, paged out when the invocation ends.
 *
 * @example
 * const tools = createLangChainPagingTools(new PagingService({ source }), { threads });
 * createAgent({ model, tools: [tools.get_reports, tools.save_result], middleware: [pagingMiddleware({ service, threads, tools: [] })] });
 */
export function createLangChainPagingTools(
  service: PagingService,
  options: PagingToolsOptions & { threads?: LangChainThreads } = {},
): LangChainPagingTools {
  const threads = options.threads ?? new LangChainThreads();
  return adapterSteps.pagingToolsAs(service, options, (tool) => langchainTool(tool, { threads }));
}
