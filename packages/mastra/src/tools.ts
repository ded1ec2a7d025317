/**
 * pagewise tools as Mastra tools (`createTool`): the paging tools (`get_reports`, `page_in`,
 * `page_out`, `read_frame`, `save_result`, `list_results`, `calculate`) or any tool written for the
 * pagewise runner. The tool reads and writes the pagewise state of the call's Mastra memory thread; its
 * result (a receipt for the paging tools) is what Mastra stores in its messages and memory, while bodies
 * stay in the page store. A failure reaches the model as a tool error whose text has every secret from
 * the environment redacted.
 */
import { randomUUID } from 'node:crypto';
import { createTool, type Tool, type ToolExecutionContext } from '@mastra/core/tools';
import type { z } from 'zod';
import type { AnyTool } from 'pagewise';
import type { PagingService, PagingToolsOptions } from 'pagewise/paging';
import { adapterSteps, invalidArgumentsText } from 'pagewise/adapter-kit';
import { MastraThreads } from './threads.js';

/** Name of a paging tool. */
export type PagingToolName = adapterSteps.PagingToolName;

/** A Mastra tool as `createTool` returns it (any input and output). */
export type MastraTool = Tool<any, any, any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Options of {@link mastraTool}. */
export interface MastraToolOptions {
  /** The thread sessions the tool's state lives in; share it with the processors. Default: a new one. */
  threads?: MastraThreads;
  /** Services the tool looks up by key (`ctx.services`). */
  services?: ReadonlyMap<string, unknown>;
}

/**
 * Wraps a pagewise tool as a Mastra tool (its zod schema is the tool's input schema). Mastra has no
 * escalate action: give the agent call `stopWhen: hasToolCall('escalate')` to end the loop after
 * pagewise's `escalateTool`.
 *
 * @example
 * const threads = new MastraThreads();
 * new Agent({ id: 'a', name: 'a', instructions, model, tools: { my_tool: mastraTool(myPagewiseTool, { threads }) } });
 */
export function mastraTool(tool: AnyTool, options: MastraToolOptions = {}): MastraTool {
  const threads = options.threads ?? new MastraThreads();
  const services = options.services ?? new Map<string, unknown>();
  return createTool({
    id: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as z.ZodType,
    execute: async (input: unknown, context?: ToolExecutionContext) => {
      const parsed = tool.inputSchema.safeParse(input);
      if (!parsed.success) throw new Error(invalidArgumentsText(tool.name, parsed.error.message));
      const key = threads.keyOf(context);
      const { output, isError } = await adapterSteps.runTool(threads, key, tool, parsed.data, {
        sessionId: key.threadId,
        userId: key.resourceId,
        appName: 'mastra',
        agentName: context?.agent?.agentId ?? 'mastra',
        toolCallId: context?.agent?.toolCallId ?? randomUUID(),
        signal: context?.abortSignal ?? new AbortController().signal,
        services,
        noTransfer: 'Mastra agents hand over through agent networks or tools, not pagewise transfers.',
      });
      // Thrown, so Mastra marks the result as an error (compressors keep its first line); the text is redacted.
      if (isError) throw new Error(output);
      return output;
    },
  });
}

/** The paging tools by name, as Mastra tools. */
export type MastraPagingTools = Record<PagingToolName, MastraTool>;

/**
 * Creates the paging tools as Mastra tools bound to a paging service and the thread sessions. The
 * working set lives under `temp:` keys of the thread's session, paged out when the agent call ends.
 *
 * @example
 * const tools = createMastraPagingTools(new PagingService({ source }), { threads });
 * new Agent({ id: 'a', name: 'a', instructions, model, tools: { get_reports: tools.get_reports } });
 */
export function createMastraPagingTools(
  service: PagingService,
  options: PagingToolsOptions & { threads?: MastraThreads } = {},
): MastraPagingTools {
  const threads = options.threads ?? new MastraThreads();
  return adapterSteps.pagingToolsAs(service, options, (tool) => mastraTool(tool, { threads }));
}
