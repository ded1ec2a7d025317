/**
 * pagewise as Mastra processors. The instruction processor renders a pagewise instruction (saved
 * results and the fenced working set) as a system message of its own on every step of the agent loop
 * (`processInputStep`), offers its tools on every step, and measures each request into a ledger
 * (`processLLMRequest`); the paging processor is that with the paging tools. The observation processor
 * compresses tool results before Mastra stores them (`processToolResult`), the raw text kept as a page
 * behind a handle, and redacts secrets from tool errors; the history processor runs history processors
 * (ACON's C_hist, paging-turn compaction) over each request, archiving what they replace as a page.
 */
import type { MessageList } from '@mastra/core/agent/message-list';
import type { Processor } from '@mastra/core/processors';
import type { RequestContext } from '@mastra/core/request-context';
import { Ledger, redactError, type InstructionProvider } from 'pagewise';
import { STEP_BLOCK_MARK, type ContextProcessor } from 'pagewise/context';
import { measureCallOptions, modelMessagesCodec } from 'pagewise/ai-sdk';
import { adapterSteps, HistoryBridge, type BridgeCodec } from 'pagewise/adapter-kit';
import { MastraThreads, type MastraThreadKey } from './threads.js';
import { mastraTool } from './tools.js';

/** The tag of the system message the instruction processor owns in Mastra's message list. */
export const PAGEWISE_SYSTEM_TAG = 'pagewise';

type CallOptions = Parameters<typeof measureCallOptions>[0];
type PromptMessage = CallOptions['prompt'][number];
const promptCodec = modelMessagesCodec as unknown as BridgeCodec<PromptMessage>;

/**
 * A Mastra processor built by pagewise, with the ledger and thread sessions it uses; `K` names the hooks
 * it implements (which decide whether Mastra takes it as an input processor, an output processor or both).
 */
export type PagewiseProcessor<K extends keyof Processor = never> = Processor &
  Required<Pick<Processor, K>> & {
    /** Model requests (and compressor calls) measured with the project's tokenizer. */
    readonly ledger: Ledger;
    /** The thread sessions the processor reads state from. */
    readonly threads: MastraThreads;
  };

/** A tool Mastra offers a model, as far as pagewise reads it. */
interface ToolLike {
  id?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  parameters?: unknown;
  execute?: (...args: never[]) => unknown;
}

function schemaJson(schema: unknown): Record<string, unknown> {
  // A Standard JSON Schema (zod 4 and others) converts itself, to the draft Mastra sends to providers.
  const standard = (
    schema as { '~standard'?: { jsonSchema?: { output?: (o: { target: string }) => unknown } } } | null
  )?.['~standard'];
  try {
    const json = standard?.jsonSchema?.output?.({ target: 'draft-07' });
    if (typeof json === 'object' && json !== null) return json as Record<string, unknown>;
  } catch {
    // Not convertible: measured as an empty object schema.
  }
  // An AI SDK schema (the tools Mastra has already converted) carries its JSON Schema.
  const converted = (schema as { jsonSchema?: unknown } | null)?.jsonSchema;
  if (typeof converted === 'object' && converted !== null) return converted as Record<string, unknown>;
  return { type: 'object', properties: {} };
}

/** The tools of a step as AI SDK function tools, for measuring. */
function toolDefinitions(tools: Record<string, unknown> | undefined): NonNullable<CallOptions['tools']> {
  return Object.entries(tools ?? {}).map(([name, mastraTool]) => {
    const tool = mastraTool as ToolLike;
    return {
      type: 'function' as const,
      name,
      description: typeof tool.description === 'string' ? tool.description : '',
      inputSchema: schemaJson(tool.inputSchema ?? tool.parameters) as never,
    };
  });
}

function keyOf(threads: MastraThreads, requestContext: RequestContext | undefined): MastraThreadKey {
  return threads.keyOf(requestContext ? { requestContext } : undefined);
}

function latestUserText(messageList: MessageList | undefined): string {
  return messageList?.getLatestUserContent() ?? '';
}

/** The instruction processor: an input processor that starts, renders, measures and ends each call. */
export type InstructionProcessor = PagewiseProcessor<
  'processInput' | 'processInputStep' | 'processLLMRequest' | 'processLLMResponse'
>;

/** Options of {@link pagewiseInstructionProcessor}. */
export interface InstructionProcessorOptions {
  /** The pagewise instruction, rendered from the thread's state before every step. */
  instruction: InstructionProvider;
  /** The thread sessions; share it with the tools. Default: a new one. */
  threads?: MastraThreads;
  /** History processors applied to each request only (Mastra's messages and memory are left as they are). */
  processors?: ContextProcessor[];
  /** Receives one entry per model request (and the processors' compressor calls). Default: a new ledger. */
  ledger?: Ledger;
  /** Tools the processor offers the model on every step, by name. */
  tools?: Record<string, unknown>;
  /** Processor id (unique within an agent). Default `pagewise-instruction`. */
  id?: string;
  /** Agent name the instruction and ledger see. Default `mastra`. */
  agentName?: string;
  services?: ReadonlyMap<string, unknown>;
}

/**
 * Renders a pagewise instruction into a system message of its own on every step of the agent loop
 * (Mastra resolves an agent's `instructions` once per call, before any tool has loaded a page, so the
 * working set goes through `processInputStep`). The agent's own `instructions` come first; the working
 * set is fenced as untrusted data. Starts the thread's call on `processInput` and pages the working set
 * out after the last step. Give it to the agent's `inputProcessors`, last, so the ledger measures the
 * request as it is sent.
 *
 * @example
 * new Agent({ id: 'a', name: 'a', instructions: 'Answer.', model, inputProcessors: [pagewiseInstructionProcessor({ instruction: pagedInstruction({ base: '', service }), threads })] });
 */
export function pagewiseInstructionProcessor(options: InstructionProcessorOptions): InstructionProcessor {
  const threads = options.threads ?? new MastraThreads();
  const ledger = options.ledger ?? new Ledger();
  const bridge = new HistoryBridge(options.processors ?? []);
  const agentName = options.agentName ?? 'mastra';
  const services = options.services ?? new Map<string, unknown>();
  const own = options.tools ?? {};
  const processor: Omit<InstructionProcessor, 'ledger' | 'threads'> = {
    id: options.id ?? 'pagewise-instruction',
    processInput: async ({ messageList, requestContext }) => {
      await threads.begin(keyOf(threads, requestContext), latestUserText(messageList));
      return messageList;
    },
    processInputStep: async ({ messageList, requestContext, tools, state }) => {
      const run = await threads.current(keyOf(threads, requestContext));
      if (!run.task) run.task = latestUserText(messageList);
      const rendered = await adapterSteps.renderInstruction(options.instruction, run, agentName, services);
      messageList.clearSystemMessages(PAGEWISE_SYSTEM_TAG);
      if (rendered.system) messageList.addSystem(rendered.system, PAGEWISE_SYSTEM_TAG);
      // What changes per step goes after the history in processLLMRequest, for this call only, so the thread's
      // messages stay a cacheable prefix.
      state.stepBlock = rendered.stepBlock;
      const all = { ...(tools ?? {}), ...own };
      state.tools = all;
      return Object.keys(own).length ? { tools: all } : undefined;
    },
    processLLMRequest: async ({ prompt, requestContext, state, abortSignal, model }) => {
      const key = keyOf(threads, requestContext);
      const run = await threads.current(key);
      const messages = await bridge.apply(prompt as unknown as PromptMessage[], promptCodec, {
        sessionId: key.threadId,
        agentName,
        invocationId: run.invocationId,
        task: run.task,
        ledger,
        services,
        ...(abortSignal ? { signal: abortSignal } : {}),
      });
      const stepBlock = typeof state.stepBlock === 'string' ? state.stepBlock : '';
      const sent = stepBlock
        ? [
            ...messages,
            {
              role: 'user',
              content: [{ type: 'text', text: stepBlock }],
              providerOptions: STEP_BLOCK_MARK,
            } as PromptMessage,
          ]
        : messages;
      const tools = toolDefinitions(state.tools as Record<string, unknown> | undefined);
      const measured = measureCallOptions({ prompt: [...sent], ...(tools.length ? { tools } : {}) });
      state.request = {
        parts: measured.parts,
        total: measured.total,
        at: Date.now(),
        model: String((model as { modelId?: unknown }).modelId ?? ''),
      };
      return sent === (prompt as unknown) ? undefined : { prompt: [...sent] as unknown as typeof prompt };
    },
    processLLMResponse: async ({ chunks, requestContext, state }) => {
      const key = keyOf(threads, requestContext);
      const run = await threads.current(key);
      const request = state.request as
        { parts: ReturnType<typeof measureCallOptions>['parts']; total: number; at: number; model: string } | undefined;
      let completion = '';
      let calls = 0;
      for (const chunk of chunks) {
        const payload = (chunk.payload ?? {}) as {
          text?: unknown;
          toolName?: unknown;
          args?: unknown;
          input?: unknown;
        };
        if (chunk.type === 'text-delta' && typeof payload.text === 'string') completion += payload.text;
        if (chunk.type === 'tool-call') {
          calls++;
          completion += String(payload.toolName ?? '') + JSON.stringify(payload.args ?? payload.input ?? {});
        }
      }
      if (request)
        adapterSteps.recordAgentCall(ledger, {
          agentName,
          model: request.model,
          invocationId: run.invocationId,
          measured: request,
          completion,
          at: request.at,
        });
      // A response without tool calls is the last step: the working set is paged out.
      if (calls === 0) await threads.end(key);
    },
  };
  return Object.assign(processor, { ledger, threads });
}

/** Options of {@link pagingProcessor}. */
export interface PagingProcessorOptions extends adapterSteps.PagingHookOptions<MastraThreads> {
  /** Processor id. Default `pagewise-paging`. */
  id?: string;
}

/**
 * Instruction paging in a Mastra agent: the paging tools, whose results Mastra stores as receipts while
 * the bodies stay in the paging service's page store, and the working set rendered into a system
 * message on every step.
 *
 * @example
 * const service = new PagingService({ source });
 * const agent = new Agent({ id: 'a', name: 'a', instructions: 'Answer from the reports.', model, inputProcessors: [pagingProcessor({ service })] });
 * await agent.generate('Which region grew most?', { memory: { thread: 't1', resource: 'u1' } });
 */
export function pagingProcessor(options: PagingProcessorOptions): InstructionProcessor {
  const { tools, ...paged } = adapterSteps.pagingHook(
    options,
    () => new MastraThreads(),
    (tool, threads) => mastraTool(tool, { threads }),
  );
  return pagewiseInstructionProcessor({
    ...paged,
    tools: Object.fromEntries(tools),
    id: options.id ?? 'pagewise-paging',
  });
}

/** Options of {@link observationProcessor}. */
export interface ObservationProcessorOptions extends adapterSteps.ObservationHookOptions<MastraThreads> {
  /** Processor id. Default `pagewise-observation`. */
  id?: string;
}

function resultText(result: unknown): string {
  return typeof result === 'string' ? result : JSON.stringify(result ?? null);
}

/**
 * Compresses each tool result before Mastra stores it (ACON's C_obs, in `processToolResult`): the
 * message list and memory keep the compressed text and a handle; the raw text is a page of the thread
 * that `page_in` restores byte for byte. As an input processor too, it wraps the tools of every step so
 * a tool that throws reaches the model and memory with every secret from the environment redacted
 * (Mastra stores a thrown error's message and skips `processToolResult`). Give it to both
 * `inputProcessors` and `outputProcessors`.
 *
 * @example
 * const obs = observationProcessor({ processors: [observationCompressor({ service })], threads });
 * new Agent({ id: 'a', name: 'a', instructions, model, tools, inputProcessors: [obs, pagingProcessor({ service, threads })], outputProcessors: [obs] });
 */
export function observationProcessor(
  options: ObservationProcessorOptions,
): PagewiseProcessor<'processInputStep' | 'processToolResult'> {
  const threads = options.threads ?? new MastraThreads();
  const ledger = options.ledger ?? new Ledger();
  const services = options.services ?? new Map<string, unknown>();
  const wrapped = new WeakMap<object, unknown>();
  const redacting = (candidate: unknown): unknown => {
    const tool = candidate as ToolLike;
    if (typeof candidate !== 'object' || candidate === null || typeof tool.execute !== 'function') return candidate;
    const known = wrapped.get(candidate);
    if (known) return known;
    const execute = tool.execute;
    const copy = Object.assign(Object.create(Object.getPrototypeOf(candidate) as object) as object, candidate, {
      execute: async (...args: never[]) => {
        try {
          return await execute.apply(candidate, args);
        } catch (error) {
          throw redactError(error);
        }
      },
    });
    wrapped.set(candidate, copy);
    return copy;
  };
  const processor: Omit<PagewiseProcessor<'processInputStep' | 'processToolResult'>, 'ledger' | 'threads'> = {
    id: options.id ?? 'pagewise-observation',
    processInputStep: ({ tools }) => {
      if (!tools || Object.keys(tools).length === 0) return undefined;
      return { tools: Object.fromEntries(Object.entries(tools).map(([name, t]) => [name, redacting(t)])) };
    },
    processToolResult: async ({
      toolName,
      toolCallId,
      args,
      result,
      providerExecuted,
      messageList,
      requestContext,
      abortSignal,
    }) => {
      if (providerExecuted) return undefined;
      const key = keyOf(threads, requestContext);
      const run = await threads.current(key);
      const text = resultText(result);
      const obs = await adapterSteps.observeToolResult(
        options.processors,
        { toolCallId, toolName, input: args, output: text, isError: false },
        {
          run,
          sessionId: key.threadId,
          agentName: 'mastra',
          task: run.task || latestUserText(messageList),
          recent: promptCodec.read(messageList.get.all.aiV5.model() as unknown as PromptMessage[]),
          services,
          ledger,
          signal: abortSignal ?? new AbortController().signal,
        },
      );
      if (obs.output === text) return undefined;
      messageList.updateToolInvocation({
        type: 'tool-invocation',
        toolInvocation: { state: 'result', toolCallId, toolName, args: args as never, result: obs.output },
      });
      return messageList;
    },
  };
  return Object.assign(processor, { ledger, threads });
}

/** Options of {@link historyProcessor}. */
export interface HistoryProcessorOptions extends adapterSteps.HistoryHookOptions<MastraThreads> {
  /** Processor id. Default `pagewise-history`. */
  id?: string;
}

/** The page URI of the `ordinal`-th history archive of a thread (a tool page: `page_in` reads it). */
export const historyPageUri: (threadId: string, ordinal: number) => string = adapterSteps.historyPageUri;

function archiveText(messages: readonly PromptMessage[]): string {
  return promptCodec
    .read(messages)
    .map(({ event }) =>
      event.kind === 'user'
        ? `user: ${event.text}`
        : event.kind === 'model'
          ? `assistant: ${[event.text, ...event.toolCalls.map((c) => `${c.toolName}(${JSON.stringify(c.input)})`)].filter(Boolean).join('\n')}`
          : `tool ${event.toolName}: ${event.output}`,
    )
    .join('\n\n');
}

/**
 * Runs history processors over every request (`processLLMRequest`), as Mastra's own `TokenLimiter`
 * trims it: Mastra's message list and memory keep every message, the model sees the compressed
 * history. The messages a compaction replaces are archived as a page of the thread (`historyPageUri`)
 * that the summary names, so `page_in` brings the raw history back; tool calls stay with their results.
 * Give it to the agent's `inputProcessors`, before the paging processor.
 *
 * @example
 * new Agent({ id: 'a', name: 'a', instructions, model, tools, inputProcessors: [historyProcessor({ processors: [historyCompressor()], service, threads }), pagingProcessor({ service, threads })] });
 */
export function historyProcessor(options: HistoryProcessorOptions): PagewiseProcessor<'processLLMRequest'> {
  const threads = options.threads ?? new MastraThreads();
  const ledger = options.ledger ?? new Ledger();
  const bridge = new HistoryBridge(options.processors);
  // The last archive of each thread, so a compaction folded forward over several steps is archived once.
  const archived = new Map<string, adapterSteps.HistoryArchive>();
  const processor: Omit<PagewiseProcessor<'processLLMRequest'>, 'ledger' | 'threads'> = {
    id: options.id ?? 'pagewise-history',
    processLLMRequest: async ({ prompt, requestContext, abortSignal }) => {
      const key = keyOf(threads, requestContext);
      const run = await threads.current(key);
      const threadKey = `${key.resourceId}\u0000${key.threadId}`;
      const compacted = await adapterSteps.compactHistory(
        bridge,
        prompt as unknown as PromptMessage[],
        promptCodec,
        {
          sessionId: key.threadId,
          agentName: 'mastra',
          invocationId: run.invocationId,
          task: run.task,
          ledger,
          ...(options.services ? { services: options.services } : {}),
          ...(abortSignal ? { signal: abortSignal } : {}),
        },
        {
          service: options.service,
          describe: (replaced) => archiveText(replaced.filter((m) => m.role !== 'system')),
          summaryText: (summary) =>
            archiveText([summary])
              .replace(/^user: /, '')
              .trim(),
          previous: archived.get(threadKey),
        },
      );
      if (!compacted) return undefined;
      archived.set(threadKey, compacted.archive);
      return { prompt: compacted.messages as unknown as typeof prompt };
    },
  };
  return Object.assign(processor, { ledger, threads });
}
