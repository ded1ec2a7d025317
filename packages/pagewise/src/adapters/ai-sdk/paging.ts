/**
 * Instruction paging for `generateText`, `streamText` and `ToolLoopAgent`: the paging tools as AI SDK
 * tools, and a `prepareStep` that re-renders the step block (working set, saved results) after the
 * step's messages before every step, the system message staying the agent's own instruction (and may
 * run history processors over the step's messages). The AI SDK keeps no session state, so the working
 * set and saved results live in {@link AiSdkPaging.state}: `temp:` keys are cleared when a new call
 * starts (step 0), durable keys (saved results) stay for the next call.
 */
import { randomUUID } from 'node:crypto';
import { tool as aiTool, type LanguageModel, type ModelMessage, type Tool as AiTool } from 'ai';
import type { InstructionContext } from '../../agents/agent.js';
import type { AnyTool, ToolContext } from '../../agents/tool.js';
import { stepBlockText, systemText, type ContextProcessor, type ContextRequest } from '../../context/request.js';
import { ANTHROPIC_BREAKPOINT, promptCacheKey, type CacheHintOptions } from '../../models/cache-hints.js';
import { STEP_BLOCK_MARK } from '../../models/step-block.js';
import { pagedInstruction } from '../../paging/instruction.js';
import type { PagingService } from '../../paging/service.js';
import type { PAGING_TOOL_NAMES } from '../../paging/tools.js';
import { createPagingTools, DEFAULT_PAGING_TOOLS, type PagingToolsOptions } from '../../paging/tools.js';
import type { JsonValue, Session } from '../../session/types.js';
import { Ledger } from '../../tokens/ledger.js';
import { HistoryBridge } from '../history-bridge.js';
import { clearTempKeys, recordStateAccess } from '../record-state.js';
import { modelMessagesCodec } from './messages.js';
import { ConfigurationError, redactError } from '../../errors.js';
import { toolFailureText } from '../tool-error.js';

/** Name of a paging tool. */
export type PagingToolName = (typeof PAGING_TOOL_NAMES)[number];

/** Where a pagewise tool runs when called by the AI SDK. */
export interface AiSdkToolBinding {
  /** The state the tool reads and writes. */
  state: Record<string, JsonValue>;
  /** Page namespace of tool-result pages (`session:<id>`). */
  sessionId: string;
  /** The current invocation (pages are fetched from a source at most once per invocation). */
  invocationId: () => string;
  services?: ReadonlyMap<string, unknown>;
}

/**
 * Wraps a pagewise tool as an AI SDK tool. A failure is returned to the model as an error text, as the
 * pagewise runner does, instead of ending the call.
 *
 * Without a `binding` the tool gets a state of its own, kept for as long as the wrapped tool lives (its
 * `temp:` keys are never cleared) and filed under session `ai-sdk`. Pass {@link AiSdkPaging.binding} to
 * have it read and write the state the paging tools use (the working set, saved results).
 *
 * @example
 * const lookup = aiSdkTool(orderLookup);                     // a state of its own
 * const notes = aiSdkTool(saveNote, paging.binding);         // the state of the paging tools
 * await generateText({ model, tools: { lookup, notes, ...paging.tools }, prepareStep: paging.prepareStep, prompt });
 *
 * @throws ConfigurationError when `tool` is not a pagewise tool (an AI SDK `tool()` needs no wrapping) or
 * `binding` lacks `state`, `sessionId` or `invocationId`.
 */
export function aiSdkTool(tool: AnyTool, binding: AiSdkToolBinding = standaloneBinding()): AiTool {
  checkPagewiseTool(tool);
  checkBinding(tool.name, binding);
  return aiTool({
    description: tool.description,
    inputSchema: tool.inputSchema,
    execute: async (input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal }) => {
      const ctx: ToolContext = {
        state: recordStateAccess(binding.state),
        invocationId: binding.invocationId(),
        sessionId: binding.sessionId,
        userId: 'ai-sdk',
        appName: 'ai-sdk',
        agentName: 'ai-sdk',
        toolCallId: options.toolCallId,
        idempotencyKey: `${binding.sessionId}:${options.toolCallId}`,
        signal: options.abortSignal ?? new AbortController().signal,
        services: binding.services ?? new Map(),
        actions: {
          transferToAgent: () => {
            throw new Error('the AI SDK has no agent transfer; this tool cannot hand over.');
          },
          escalate: () => {},
        },
      };
      try {
        const value = await tool.execute(input, ctx);
        return typeof value === 'string' ? value : JSON.stringify(value ?? 'OK');
      } catch (error) {
        if (options.abortSignal?.aborted) throw redactError(error);
        return toolFailureText(tool.name, error);
      }
    },
  });
}

/** The binding of a tool wrapped on its own: a state of its own, one invocation for the tool's life. */
function standaloneBinding(): AiSdkToolBinding {
  const invocationId = randomUUID();
  return { state: {}, sessionId: 'ai-sdk', invocationId: () => invocationId };
}

function checkPagewiseTool(value: unknown): asserts value is AnyTool {
  const candidate = value as Partial<AnyTool> | null | undefined;
  if (typeof candidate?.name === 'string' && typeof candidate.execute === 'function' && candidate.inputSchema) return;
  throw new ConfigurationError(
    'invalid-tool',
    'aiSdkTool: the first argument must be a pagewise tool (from `tool({ name, description, inputSchema, execute })` ' +
      "of 'pagewise'); an AI SDK tool goes into `tools` as it is.",
  );
}

function checkBinding(toolName: string, binding: unknown): asserts binding is AiSdkToolBinding {
  const candidate = binding as Partial<AiSdkToolBinding> | null;
  const missing = [
    typeof candidate?.state === 'object' && candidate.state !== null ? undefined : 'state (an object)',
    typeof candidate?.sessionId === 'string' ? undefined : 'sessionId (a string)',
    typeof candidate?.invocationId === 'function' ? undefined : 'invocationId (a function returning the id)',
  ].filter((field) => field !== undefined);
  if (missing.length === 0) return;
  throw new ConfigurationError(
    'invalid-tool-binding',
    `aiSdkTool(${toolName}): the binding lacks ${missing.join(', ')}. Leave the binding out for a state of the ` +
      "tool's own, or pass `paging.binding` of createAiSdkPaging to share the paging tools' state.",
  );
}

/** Options of {@link createAiSdkPaging}. */
export interface AiSdkPagingOptions extends PagingToolsOptions {
  service: PagingService;
  /** The agent's own instruction, above the working set. */
  instruction: string | ((ctx: InstructionContext) => string | Promise<string>);
  /**
   * The session tool-result pages belong to. Default `ai-sdk`, the compression middleware's default,
   * so `page_in` follows the middleware's handles when both share one paging service.
   */
  sessionId?: string;
  /** State to start from (saved results of earlier calls). */
  state?: Record<string, JsonValue>;
  /** History processors applied to each step's messages (e.g. `compactPagingTurns()`). */
  processors?: ContextProcessor[];
  /** Paging tools to offer. Default {@link DEFAULT_PAGING_TOOLS}: all but `get_reports`, which repeats `page_in`. */
  tools?: readonly PagingToolName[];
  /** Receives compressor calls of the processors. */
  ledger?: Ledger;
  /**
   * Prompt-cache hints `prepareStep` adds for the step's model: for an Anthropic model a `cache_control`
   * breakpoint on the last message before the step block (it caches tools, system and history), for an
   * OpenAI model a `prompt_cache_key` derived from {@link AiSdkPagingOptions.sessionId}, so give each
   * conversation its own `sessionId`. Both on by default.
   */
  cacheHints?: CacheHintOptions;
}

/** The paging of one conversation. */
export interface AiSdkPaging {
  /** The paging tools, to spread into `tools`. */
  readonly tools: Partial<Record<PagingToolName, AiTool>>;
  /** Working set (`temp:`) and saved results. */
  readonly state: Record<string, JsonValue>;
  /** Where the paging tools run: pass it to {@link aiSdkTool} so your own tools share their state. */
  readonly binding: AiSdkToolBinding;
  /**
   * Pass as `prepareStep`: sets `system` to the agent's own instruction, and the step's messages to the
   * (processed) messages followed by the step block, a user message that holds the working set and saved
   * results for this step only (the AI SDK does not keep it in the conversation). The prompt's prefix
   * (system, tools, earlier messages) is then the same from step to step, which the providers' prompt
   * caches need.
   */
  readonly prepareStep: (options: { stepNumber: number; messages: ModelMessage[]; model?: LanguageModel }) => Promise<{
    system: string;
    messages?: ModelMessage[];
    providerOptions?: Record<string, Record<string, JsonValue>>;
  }>;
  /** The system text: the agent's own instruction, without the working set. */
  system(): Promise<string>;
  /** The step block for the current state (working set and saved results, fenced), or `''` when empty. */
  stepBlock(): Promise<string>;
  /** Ends the invocation: the working set is paged out. */
  endInvocation(): void;
}

/**
 * Creates instruction paging for AI SDK calls.
 *
 * @example
 * const paging = createAiSdkPaging({ service: new PagingService({ source }), instruction: 'Answer from the reports.' });
 * await generateText({ model, tools: { ...paging.tools }, prepareStep: paging.prepareStep, stopWhen: stepCountIs(30), prompt });
 */
export function createAiSdkPaging(options: AiSdkPagingOptions): AiSdkPaging {
  const state: Record<string, JsonValue> = options.state ?? {};
  const sessionId = options.sessionId ?? 'ai-sdk';
  const ledger = options.ledger ?? new Ledger();
  let invocationId = randomUUID();
  const binding: AiSdkToolBinding = { state, sessionId, invocationId: () => invocationId };
  const all = createPagingTools(options.service, options);
  const tools: Partial<Record<PagingToolName, AiTool>> = {};
  for (const name of options.tools ?? DEFAULT_PAGING_TOOLS) tools[name] = aiSdkTool(all[name], binding);
  const provider = pagedInstruction({ base: options.instruction, service: options.service });
  const bridge = new HistoryBridge(options.processors ?? []);
  let task = '';

  const render = async (): Promise<Pick<ContextRequest, 'instruction'>> => {
    const session: Session = {
      appName: 'ai-sdk',
      userId: 'ai-sdk',
      sessionId,
      state,
      events: [],
      version: 0,
      createdAt: 0,
      updatedAt: 0,
    };
    const out = await provider({ state, session, invocationId, agentName: 'ai-sdk', services: new Map() });
    return { instruction: typeof out === 'string' ? [{ part: 'instruction', text: out }] : out };
  };
  const system = async (): Promise<string> => systemText({ ...(await render()), items: [], tools: [] });
  const stepBlock = async (): Promise<string> => stepBlockText({ ...(await render()), items: [], tools: [] });
  const endInvocation = () => {
    clearTempKeys(state);
    invocationId = randomUUID();
  };

  const prepareStep: AiSdkPaging['prepareStep'] = async ({ stepNumber, messages, model }) => {
    if (stepNumber === 0) {
      endInvocation();
      const lastUser = [...messages].reverse().find((m) => m.role === 'user');
      task = lastUser
        ? typeof lastUser.content === 'string'
          ? lastUser.content
          : lastUser.content.map((p) => (p.type === 'text' ? p.text : '')).join('')
        : '';
    }
    const processed: readonly ModelMessage[] = await bridge.apply(messages, modelMessagesCodec, {
      sessionId,
      agentName: 'ai-sdk',
      invocationId,
      task,
      ledger,
    });
    const request = { ...(await render()), items: [], tools: [] };
    const block = stepBlockText(request);
    const provider = typeof model === 'object' ? model.provider.split('.')[0] : undefined;
    let stepMessages: ModelMessage[] | undefined = processed !== messages ? [...processed] : undefined;
    if (provider === 'anthropic' && options.cacheHints?.breakpoints !== false && processed.length > 0) {
      // The end of the history: a new message object, the AI SDK's own messages are left as they are.
      stepMessages ??= [...processed];
      const last = stepMessages[stepMessages.length - 1]!;
      stepMessages[stepMessages.length - 1] = {
        ...last,
        providerOptions: {
          ...last.providerOptions,
          anthropic: { ...last.providerOptions?.anthropic, ...ANTHROPIC_BREAKPOINT.anthropic },
        },
      } as ModelMessage;
    }
    if (block) {
      const step: ModelMessage = {
        role: 'user',
        content: [{ type: 'text', text: block }],
        providerOptions: STEP_BLOCK_MARK,
      };
      stepMessages = [...(stepMessages ?? processed), step];
    }
    return {
      system: systemText(request),
      ...(stepMessages ? { messages: stepMessages } : {}),
      ...(provider === 'openai' && options.cacheHints?.cacheKey !== false
        ? {
            providerOptions: {
              openai: { promptCacheKey: promptCacheKey({ appName: 'ai-sdk', userId: 'ai-sdk', sessionId }) },
            },
          }
        : {}),
    };
  };

  return { tools, state, binding, prepareStep, system, stepBlock, endInvocation };
}
