/**
 * pagewise as LangChain `createAgent` middleware. The instruction middleware renders a pagewise
 * instruction (the agent's own prompt, saved results and the fenced working set) into the system message
 * of every model call and measures each call into a ledger; the paging middleware adds the paging tools
 * to it. The observation middleware compresses tool results as LangChain stores them (`wrapToolCall`),
 * the raw text kept as a page behind a handle; the history middleware runs history processors (ACON's
 * C_hist, paging-turn compaction) before each model call, over LangChain's state or over the request.
 */
import {
  AIMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { Ledger, redactError, type InstructionProvider } from 'pagewise';
import type { ContextProcessor } from 'pagewise/context';
import { measureCallOptions } from 'pagewise/ai-sdk';
import { adapterSteps, HistoryBridge, toolFailureText } from 'pagewise/adapter-kit';
import { contentText, langchainMessagesCodec, langchainRequestToCallOptions } from './messages.js';
import { LangChainThreads, type ThreadConfigLike } from './threads.js';
import { langchainTool } from './tools.js';

function lastHumanText(messages: readonly BaseMessage[]): string {
  const read = langchainMessagesCodec.read(messages);
  for (let index = read.length - 1; index >= 0; index--) {
    const event = read[index]!.event;
    if (event.kind === 'user') return event.text;
  }
  return '';
}

/** Options of {@link pagewiseInstructionMiddleware}. */
export interface InstructionMiddlewareOptions {
  /** The pagewise instruction, rendered from the thread's state before every model call. */
  instruction: InstructionProvider;
  /** The thread sessions; share it with the tools. Default: a new one. */
  threads?: LangChainThreads;
  /** History processors applied to each request's messages only (LangChain's state is left as it is). */
  processors?: ContextProcessor[];
  /** Receives one entry per model call (and the processors' compressor calls). Default: a new ledger. */
  ledger?: Ledger;
  /** Tools the middleware adds to the agent. */
  tools?: readonly unknown[];
  /** Middleware name (unique within an agent). Default `pagewise-instruction`. */
  name?: string;
  /** Agent name the instruction and ledger see. Default `langchain`. */
  agentName?: string;
  services?: ReadonlyMap<string, unknown>;
}

/** A LangChain middleware that carries pagewise's ledger and thread sessions. */
export type PagewiseMiddleware = AgentMiddleware & {
  /** Model calls measured with the project's tokenizer. */
  readonly ledger: Ledger;
  /** The thread sessions the middleware reads state from. */
  readonly threads: LangChainThreads;
};

/**
 * Renders a pagewise instruction into the system message of every model call. The agent's own
 * `systemPrompt` comes first; the working set is fenced as untrusted data. Starts the thread's
 * invocation before the agent runs and pages the working set out after it. Put it last in `middleware`,
 * so the ledger measures the request as it is sent.
 *
 * @example
 * const agent = createAgent({ model, tools, middleware: [pagewiseInstructionMiddleware({ instruction: pagedInstruction({ base: 'Answer.', service }), threads })] });
 */
export function pagewiseInstructionMiddleware(options: InstructionMiddlewareOptions): PagewiseMiddleware {
  const threads = options.threads ?? new LangChainThreads();
  const ledger = options.ledger ?? new Ledger();
  const bridge = new HistoryBridge(options.processors ?? []);
  const agentName = options.agentName ?? 'langchain';
  const services = options.services ?? new Map<string, unknown>();
  const middleware = createMiddleware({
    name: options.name ?? 'pagewise-instruction',
    ...(options.tools?.length ? { tools: [...options.tools] as never } : {}),
    beforeAgent: async (state, runtime) => {
      await threads.begin(threads.threadId(runtime as ThreadConfigLike), lastHumanText(state.messages));
      return undefined;
    },
    wrapModelCall: async (request, handler) => {
      const threadId = threads.threadId(request.runtime as ThreadConfigLike);
      const run = await threads.current(threadId);
      const own = contentText(request.systemMessage.content);
      const rendered = await adapterSteps.renderInstruction(options.instruction, run, agentName, services);
      const messages = await bridge.apply(request.messages, langchainMessagesCodec, {
        sessionId: threadId,
        agentName,
        invocationId: run.invocationId,
        task: run.task,
        ledger,
        services,
        ...(request.runtime.signal ? { signal: request.runtime.signal } : {}),
      });
      // The system message holds what stays the same; what changes per step (saved results, the fenced working
      // set) goes after the history, for this call only, so the thread's history stays a cacheable prefix.
      const next = {
        ...request,
        systemMessage: new SystemMessage([own, rendered.system].filter(Boolean).join('\n\n')),
        messages: rendered.stepBlock ? [...messages, new HumanMessage(rendered.stepBlock)] : [...messages],
      };
      const measured = measureCallOptions(langchainRequestToCallOptions(next));
      const at = Date.now();
      const response = await handler(next);
      const reply = AIMessage.isInstance(response as BaseMessage) ? (response as AIMessage) : undefined;
      adapterSteps.recordAgentCall(ledger, {
        agentName,
        model: String((request.model as { model?: unknown }).model ?? ''),
        invocationId: run.invocationId,
        measured,
        completion: reply
          ? contentText(reply.content) + (reply.tool_calls ?? []).map((c) => c.name + JSON.stringify(c.args)).join('')
          : '',
        at,
      });
      return response;
    },
    afterAgent: async (_state, runtime) => {
      await threads.end(threads.threadId(runtime as ThreadConfigLike));
      return undefined;
    },
  });
  return Object.assign(middleware, { ledger, threads });
}

/** Options of {@link pagingMiddleware}. */
export interface PagingMiddlewareOptions extends adapterSteps.PagingHookOptions<LangChainThreads> {
  /** Middleware name. Default `pagewise-paging`. */
  name?: string;
}

/**
 * Instruction paging in a LangChain agent: the paging tools, whose results LangChain stores as receipts
 * while the bodies stay in the paging service's page store, and the working set rendered into the
 * system message of every model call.
 *
 * @example
 * const service = new PagingService({ source });
 * const agent = createAgent({ model, systemPrompt: 'Answer from the reports.', middleware: [pagingMiddleware({ service })] });
 * await agent.invoke({ messages: [new HumanMessage('Which region grew most?')] }, { configurable: { thread_id: 't1' } });
 */
export function pagingMiddleware(options: PagingMiddlewareOptions): PagewiseMiddleware {
  const { tools, ...paged } = adapterSteps.pagingHook(
    options,
    () => new LangChainThreads(),
    (tool, threads) => langchainTool(tool, { threads }),
  );
  return pagewiseInstructionMiddleware({
    ...paged,
    tools: tools.map(([, tool]) => tool),
    name: options.name ?? 'pagewise-paging',
  });
}

/** Options of {@link observationMiddleware}. */
export interface ObservationMiddlewareOptions extends adapterSteps.ObservationHookOptions<LangChainThreads> {
  /** Middleware name. Default `pagewise-observation`. */
  name?: string;
}

function isBubbleUp(error: unknown): boolean {
  // LangGraph's interrupts and control-flow signals must reach the graph, not the model.
  return typeof error === 'object' && error !== null && (error as { is_bubble_up?: unknown }).is_bubble_up === true;
}

/**
 * Compresses each tool result before LangChain stores it (ACON's C_obs): the message keeps the
 * compressed text and a handle; the raw text is a page of the thread's session that `page_in` restores
 * byte for byte. A tool that throws becomes an error result with every secret from the environment
 * redacted (LangChain lets errors through middleware uncaught).
 *
 * @example
 * const cObs = observationCompressor({ service });
 * createAgent({ model, tools, middleware: [observationMiddleware({ processors: [cObs], threads }), pagingMiddleware({ service, threads })] });
 */
export function observationMiddleware(options: ObservationMiddlewareOptions): PagewiseMiddleware {
  const threads = options.threads ?? new LangChainThreads();
  const ledger = options.ledger ?? new Ledger();
  const services = options.services ?? new Map<string, unknown>();
  const middleware = createMiddleware({
    name: options.name ?? 'pagewise-observation',
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      let result: Awaited<ReturnType<typeof handler>>;
      try {
        result = await handler(request);
      } catch (error) {
        if (isBubbleUp(error) || request.runtime.signal?.aborted) throw redactError(error);
        return new ToolMessage({
          content: toolFailureText(toolCall.name, error),
          tool_call_id: toolCall.id ?? '',
          name: toolCall.name,
          status: 'error',
        });
      }
      if (!ToolMessage.isInstance(result as BaseMessage)) return result;
      const message = result as ToolMessage;
      const threadId = threads.threadId(request.runtime as ThreadConfigLike);
      const run = await threads.current(threadId);
      const text = contentText(message.content);
      const obs = await adapterSteps.observeToolResult(
        options.processors,
        {
          toolCallId: message.tool_call_id,
          toolName: toolCall.name,
          input: toolCall.args,
          output: text,
          isError: message.status === 'error',
        },
        {
          run,
          sessionId: threadId,
          agentName: 'langchain',
          task: run.task || lastHumanText(request.state.messages),
          recent: langchainMessagesCodec.read(request.state.messages),
          services,
          ledger,
          signal: request.runtime.signal ?? new AbortController().signal,
        },
      );
      if (obs.output === text) return message;
      return new ToolMessage({
        content: obs.output,
        tool_call_id: message.tool_call_id,
        name: message.name ?? toolCall.name,
        status: obs.isError ? 'error' : (message.status ?? 'success'),
        ...(message.id ? { id: message.id } : {}),
      });
    },
  });
  return Object.assign(middleware, { ledger, threads });
}

/** Options of {@link historyMiddleware}. */
export interface HistoryMiddlewareOptions extends adapterSteps.HistoryHookOptions<LangChainThreads> {
  /** Middleware name. Default `pagewise-history`. */
  name?: string;
}

/** The page URI of the `ordinal`-th history archive of a thread (a tool page: `page_in` reads it). */
export const historyPageUri: (threadId: string, ordinal: number) => string = adapterSteps.historyPageUri;

/**
 * Runs history processors before each model call (`beforeModel`) and writes the result into LangChain's
 * state, as LangChain's own summarization does: the replaced messages are archived as a page of the
 * thread's session, and the summary message names its handle, so `page_in` brings the raw history back.
 * Tool calls stay with their results.
 *
 * @example
 * createAgent({ model, tools, middleware: [historyMiddleware({ processors: [historyCompressor()], service, threads }), pagingMiddleware({ service, threads })] });
 */
export function historyMiddleware(options: HistoryMiddlewareOptions): PagewiseMiddleware {
  const threads = options.threads ?? new LangChainThreads();
  const ledger = options.ledger ?? new Ledger();
  const bridge = new HistoryBridge(options.processors);
  const middleware = createMiddleware({
    name: options.name ?? 'pagewise-history',
    beforeModel: async (state, runtime) => {
      const threadId = threads.threadId(runtime as ThreadConfigLike);
      const run = await threads.current(threadId);
      const compacted = await adapterSteps.compactHistory(
        bridge,
        state.messages,
        langchainMessagesCodec,
        {
          sessionId: threadId,
          agentName: 'langchain',
          invocationId: run.invocationId,
          task: run.task || lastHumanText(state.messages),
          ledger,
          ...(options.services ? { services: options.services } : {}),
          ...(runtime.signal ? { signal: runtime.signal } : {}),
        },
        {
          service: options.service,
          describe: (replaced) => replaced.map((m) => `${m.getType()}: ${contentText(m.content)}`).join('\n\n'),
          summaryText: (summary) => contentText(summary.content),
        },
      );
      if (!compacted) return undefined;
      return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...compacted.messages] };
    },
  });
  return Object.assign(middleware, { ledger, threads });
}
