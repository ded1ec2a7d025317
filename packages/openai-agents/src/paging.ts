/**
 * Instruction paging on the OpenAI Agents SDK: the paging tools as SDK function tools, and an
 * `instructions` function that renders the paged, fenced instruction before every model call. The
 * working set and saved results live in the run context (`context.pagewise.state`): one context per
 * run, `temp:` keys cleared by {@link endPagingRun} or by starting from {@link durableState}.
 */
import { randomUUID } from 'node:crypto';
import { tool as sdkTool, type FunctionTool, type RunContext } from '@openai/agents';
import { z } from 'zod';
import { redactError, type InstructionContext } from 'pagewise';
import type { AnyTool, ToolContext } from 'pagewise';
import { instructionText } from 'pagewise/context';
import { pagedInstruction } from 'pagewise/paging';
import type { PagingService } from 'pagewise/paging';
import { createPagingTools, PAGING_TOOL_NAMES, type PagingToolsOptions } from 'pagewise/paging';
import type { JsonValue, Session } from 'pagewise';
import { clearTempKeys, recordStateAccess } from 'pagewise/adapter-kit';
import { invalidArgumentsText, toolFailureText } from 'pagewise/adapter-kit';

/** What pagewise keeps in the run context. */
export interface PagewiseRunState {
  /** Working set (`temp:`) and saved results. */
  state: Record<string, JsonValue>;
  /** The session tool-result pages belong to. */
  sessionId: string;
  /** This run: pages are fetched from a source at most once per run. */
  invocationId: string;
}

/** A run context that carries pagewise state; extend it with your own fields. */
export interface PagingContext {
  pagewise: PagewiseRunState;
}

/**
 * Creates the context of one run.
 *
 * @example
 * const result = await run(agent, 'Summarize the reports.', { context: pagingContext({ sessionId: 'chat-1' }) });
 */
export function pagingContext(options: { sessionId?: string; state?: Record<string, JsonValue> } = {}): PagingContext {
  return {
    pagewise: {
      state: { ...options.state },
      sessionId: options.sessionId ?? 'openai-agents',
      invocationId: randomUUID(),
    },
  };
}

/** The durable part of a run's state (saved results), to start the next run from. */
export function durableState(context: PagingContext): Record<string, JsonValue> {
  const out = { ...context.pagewise.state };
  clearTempKeys(out);
  return out;
}

/** Ends a run in place: the working set is paged out and the next run gets a new id. */
export function endPagingRun(context: PagingContext): void {
  clearTempKeys(context.pagewise.state);
  context.pagewise.invocationId = randomUUID();
}

function runState(runContext: RunContext<unknown> | undefined): PagewiseRunState {
  const state = (runContext?.context as Partial<PagingContext> | undefined)?.pagewise;
  if (!state)
    throw new TypeError(
      'pagewise tools need pagewise state in the run context: pass `context: pagingContext()` to run().',
    );
  return state;
}

/**
 * Wraps a pagewise tool as an OpenAI Agents SDK function tool (non-strict JSON schema from its zod
 * schema). A failure goes back to the model as an error text.
 */
export function openAiAgentsTool(
  tool: AnyTool,
  services: ReadonlyMap<string, unknown> = new Map(),
): FunctionTool<PagingContext> {
  // A plain copy: zod's JSON schema carries a Standard Schema marker, which the SDK would take for zod.
  const schema = JSON.parse(JSON.stringify(z.toJSONSchema(tool.inputSchema, { unrepresentable: 'any' }))) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return sdkTool({
    name: tool.name,
    description: tool.description,
    parameters: schema as never,
    strict: false,
    execute: async (input: unknown, runContext?: RunContext<PagingContext>, details?) => {
      const parsed = tool.inputSchema.safeParse(input);
      if (!parsed.success) return invalidArgumentsText(tool.name, parsed.error.message);
      try {
        const rs = runState(runContext);
        const toolCallId = details?.toolCall?.callId ?? randomUUID();
        const ctx: ToolContext = {
          state: recordStateAccess(rs.state),
          invocationId: rs.invocationId,
          sessionId: rs.sessionId,
          userId: 'openai-agents',
          appName: 'openai-agents',
          agentName: 'openai-agents',
          toolCallId,
          idempotencyKey: `${rs.sessionId}:${toolCallId}`,
          signal: details?.signal ?? new AbortController().signal,
          services,
          actions: {
            transferToAgent: () => {
              throw new Error('use the SDK handoffs to change agents.');
            },
            escalate: () => {},
          },
        };
        const value = await tool.execute(parsed.data, ctx);
        return typeof value === 'string' ? value : JSON.stringify(value ?? 'OK');
      } catch (error) {
        if (details?.signal?.aborted) throw redactError(error);
        return toolFailureText(tool.name, error);
      }
    },
  }) as unknown as FunctionTool<PagingContext>;
}

/** The paging tools by name, as SDK function tools. */
export type OpenAiPagingTools = Record<(typeof PAGING_TOOL_NAMES)[number], FunctionTool<PagingContext>>;

/** Creates the paging tools as SDK function tools bound to a paging service. */
export function createOpenAiPagingTools(service: PagingService, options: PagingToolsOptions = {}): OpenAiPagingTools {
  const tools = createPagingTools(service, options);
  const out = {} as OpenAiPagingTools;
  for (const name of PAGING_TOOL_NAMES) out[name] = openAiAgentsTool(tools[name]);
  return out;
}

/** Options of {@link pagedInstructions}. */
export interface PagedInstructionsOptions {
  base: string | ((ctx: InstructionContext) => string | Promise<string>);
  service: PagingService;
}

/**
 * The agent's `instructions` function: its own instruction, saved results, and the working set fenced. The
 * part that changes per step (reading plan, saved results, pages) comes last, after the step block's header;
 * `pagewiseInputFilter` moves it after the history so the instructions stay a cacheable prefix.
 *
 * @example
 * new Agent({ name: 'analyst', instructions: pagedInstructions({ base: 'Answer from the reports.', service }), tools: [tools.get_reports] });
 */
export function pagedInstructions(
  options: PagedInstructionsOptions,
): (runContext: RunContext<PagingContext>, agent: { name: string }) => Promise<string> {
  const provider = pagedInstruction(options);
  return async (runContext, agent) => {
    const rs = runState(runContext);
    const session: Session = {
      appName: 'openai-agents',
      userId: 'openai-agents',
      sessionId: rs.sessionId,
      state: rs.state,
      events: [],
      version: 0,
      createdAt: 0,
      updatedAt: 0,
    };
    const out = await provider({
      state: rs.state,
      session,
      invocationId: rs.invocationId,
      agentName: agent.name,
      services: new Map(),
    });
    return instructionText(out);
  };
}
