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
import { redactError, type AnyTool, type ToolContext } from 'pagewise';
import { createPagingTools, PAGING_TOOL_NAMES, type PagingService, type PagingToolsOptions } from 'pagewise/paging';
import { invalidArgumentsText, toolFailureText } from 'pagewise/internal';
import { LangChainThreads, type ThreadConfigLike } from './threads.js';

/** Name of a paging tool. */
export type PagingToolName = (typeof PAGING_TOOL_NAMES)[number];

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
export function langchainTool(t: AnyTool, options: LangChainToolOptions = {}): StructuredToolInterface {
  const threads = options.threads ?? new LangChainThreads();
  const services = options.services ?? new Map<string, unknown>();
  return lcTool(
    async (input: unknown, config?: ToolRunConfig) => {
      const parsed = t.inputSchema.safeParse(input);
      if (!parsed.success) return invalidArgumentsText(t.name, parsed.error.message);
      const signal = config?.signal ?? new AbortController().signal;
      const threadId = threads.threadId(config);
      const givenId = config?.toolCallId ?? config?.toolCall?.id;
      const toolCallId = givenId ?? randomUUID();
      const run = await threads.current(threadId);
      const writes = threads.writes(run);
      const ctx: ToolContext = {
        state: writes.access,
        invocationId: run.invocationId,
        sessionId: threadId,
        userId: 'langchain',
        appName: 'langchain',
        agentName: 'langchain',
        toolCallId,
        idempotencyKey: `${threadId}:${toolCallId}`,
        signal,
        services,
        actions: {
          transferToAgent: () => {
            throw new Error('LangChain agents hand over through subagents or tools, not pagewise transfers.');
          },
          escalate: () => {},
        },
      };
      let output: string;
      let isError = false;
      try {
        const value = await t.execute(parsed.data, ctx);
        output = typeof value === 'string' ? value : JSON.stringify(value ?? 'OK');
      } catch (error) {
        if (signal.aborted) throw redactError(error);
        output = toolFailureText(t.name, error);
        isError = true;
      }
      // The writes of a failed call are dropped, as the pagewise runner drops them.
      await threads.recordToolResult(threadId, run, {
        toolCallId,
        toolName: t.name,
        output,
        isError,
        delta: isError ? {} : writes.delta,
      });
      // A ToolMessage marks the failure as an error result, so compressors keep its first line.
      if (isError && givenId)
        return new ToolMessage({ content: output, tool_call_id: givenId, name: t.name, status: 'error' });
      return output;
    },
    {
      name: t.name,
      description: t.description,
      schema: t.inputSchema as never,
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
  const tools = createPagingTools(service, options);
  const out = {} as LangChainPagingTools;
  for (const name of PAGING_TOOL_NAMES) out[name] = langchainTool(tools[name], { threads });
  return out;
}
