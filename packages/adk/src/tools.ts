/**
 * pagewise tools as ADK `FunctionTool`s: the paging tools (`get_reports`, `page_in`, `page_out`,
 * `read_frame`, `save_result`, `list_results`, `calculate`) or any tool written for the pagewise runner.
 * The tool runs against ADK's session state, its transfer and escalate map onto ADK's event actions,
 * and a failure goes back to the model as an error text instead of ending the run.
 */
import { FunctionTool, type Context } from '@google/adk';
import type { z } from 'zod';
import { AbortedError } from 'pagewise';
import type { AnyTool, ToolContext } from 'pagewise';
import type { PagingService } from 'pagewise/paging';
import { createPagingTools, PAGING_TOOL_NAMES, type PagingToolsOptions } from 'pagewise/paging';
import { adkStateAccess } from './state.js';
import { invalidArgumentsText, toolFailureText } from 'pagewise/adapter-kit';

/** Options of {@link adkTool}. */
export interface AdkToolOptions {
  /** Services the tool looks up by key (`ctx.services`). */
  services?: ReadonlyMap<string, unknown>;
}

function toolContext(ctx: Context, name: string, services: ReadonlyMap<string, unknown>): ToolContext {
  const session = ctx.invocationContext.session;
  const toolCallId = ctx.functionCallId ?? `${ctx.invocationId}:${name}`;
  return {
    state: adkStateAccess(ctx.state),
    invocationId: ctx.invocationId,
    sessionId: ctx.sessionId,
    userId: ctx.userId,
    appName: session.appName,
    agentName: ctx.agentName,
    toolCallId,
    idempotencyKey: `${ctx.sessionId}:${toolCallId}`,
    signal: ctx.abortSignal ?? new AbortController().signal,
    services,
    actions: {
      transferToAgent: (agentName) => {
        ctx.actions.transferToAgent = agentName;
      },
      escalate: () => {
        // ADK ends an agent's loop on a final event: skipSummarization makes this result one.
        ctx.actions.escalate = true;
        ctx.actions.skipSummarization = true;
      },
    },
  };
}

/**
 * Wraps a pagewise tool as an ADK `FunctionTool` (its zod object schema becomes the declaration).
 *
 * @example
 * const agent = new LlmAgent({ name: 'a', model, tools: [adkTool(myPagewiseTool)] });
 */
export function adkTool(tool: AnyTool, options: AdkToolOptions = {}): FunctionTool {
  const services = options.services ?? new Map<string, unknown>();
  return new FunctionTool({
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema as unknown as z.ZodObject<z.ZodRawShape>,
    execute: async (input: unknown, ctx?: Context) => {
      if (!ctx) throw new TypeError(`Tool ${tool.name} needs ADK's tool context; run it inside an ADK agent.`);
      const parsed = tool.inputSchema.safeParse(input);
      if (!parsed.success) return invalidArgumentsText(tool.name, parsed.error.message);
      try {
        const value = await tool.execute(parsed.data, toolContext(ctx, tool.name, services));
        return typeof value === 'string' ? value : (value ?? 'OK');
      } catch (error) {
        if (ctx.abortSignal?.aborted) throw new AbortedError();
        return toolFailureText(tool.name, error);
      }
    },
  });
}

/** The paging tools by name, as ADK tools. */
export type AdkPagingTools = Record<(typeof PAGING_TOOL_NAMES)[number], FunctionTool>;

/**
 * Creates the paging tools as ADK `FunctionTool`s bound to a paging service. The working set lives in
 * ADK session state under `temp:`, so it is paged out when the invocation ends.
 *
 * @example
 * const paging = new PagingService({ source });
 * const tools = createAdkPagingTools(paging);
 * new LlmAgent({ name: 'analyst', tools: [tools.get_reports, tools.save_result], instruction: adkPagedInstruction({ base, service: paging }) });
 */
export function createAdkPagingTools(service: PagingService, options: PagingToolsOptions = {}): AdkPagingTools {
  const tools = createPagingTools(service, options);
  const out = {} as AdkPagingTools;
  for (const name of PAGING_TOOL_NAMES) out[name] = adkTool(tools[name]);
  return out;
}
