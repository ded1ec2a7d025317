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
import { redactError, type AnyTool, type ToolContext } from 'pagewise';
import { createPagingTools, PAGING_TOOL_NAMES, type PagingService, type PagingToolsOptions } from 'pagewise/paging';
import { invalidArgumentsText, toolFailureText } from 'pagewise/internal';
import { MastraThreads } from './threads.js';

/** Name of a paging tool. */
export type PagingToolName = (typeof PAGING_TOOL_NAMES)[number];

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
export function mastraTool(t: AnyTool, options: MastraToolOptions = {}): MastraTool {
  const threads = options.threads ?? new MastraThreads();
  const services = options.services ?? new Map<string, unknown>();
  return createTool({
    id: t.name,
    description: t.description,
    inputSchema: t.inputSchema as z.ZodType,
    execute: async (input: unknown, context?: ToolExecutionContext) => {
      const parsed = t.inputSchema.safeParse(input);
      if (!parsed.success) throw new Error(invalidArgumentsText(t.name, parsed.error.message));
      const signal = context?.abortSignal ?? new AbortController().signal;
      const key = threads.keyOf(context);
      const toolCallId = context?.agent?.toolCallId ?? randomUUID();
      const run = await threads.current(key);
      const writes = threads.writes(run);
      const ctx: ToolContext = {
        state: writes.access,
        invocationId: run.invocationId,
        sessionId: key.threadId,
        userId: key.resourceId,
        appName: 'mastra',
        agentName: context?.agent?.agentId ?? 'mastra',
        toolCallId,
        idempotencyKey: `${key.threadId}:${toolCallId}`,
        signal,
        services,
        actions: {
          transferToAgent: () => {
            throw new Error('Mastra agents hand over through agent networks or tools, not pagewise transfers.');
          },
          escalate: () => {},
        },
      };
      let output: string;
      let failure: string | undefined;
      try {
        const value = await t.execute(parsed.data, ctx);
        output = typeof value === 'string' ? value : JSON.stringify(value ?? 'OK');
      } catch (error) {
        if (signal.aborted) throw redactError(error);
        failure = toolFailureText(t.name, error);
        output = failure;
      }
      // The writes of a failed call are dropped, as the pagewise runner drops them.
      await threads.recordToolResult(key, run, {
        toolCallId,
        toolName: t.name,
        output,
        isError: failure !== undefined,
        delta: failure === undefined ? writes.delta : {},
      });
      // Thrown, so Mastra marks the result as an error (compressors keep its first line); the text is redacted.
      if (failure !== undefined) throw new Error(failure);
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
  const tools = createPagingTools(service, options);
  const out = {} as MastraPagingTools;
  for (const name of PAGING_TOOL_NAMES) out[name] = mastraTool(tools[name], { threads });
  return out;
}
