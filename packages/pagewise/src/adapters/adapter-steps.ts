/**
 * The steps a framework adapter runs on a thread of {@link AdapterThreads}, whatever the framework's hooks
 * are called: a pagewise tool call recorded with its state delta, the instruction rendered from the thread's
 * state, an agent call measured into the ledger, a tool result through the observation processors, and a
 * history compaction archived as a page that the summary names. The adapter keeps what is its framework's
 * own: where a thread comes from, how a message reads and how a failure is shown.
 */
import type { InstructionContext, InstructionProvider } from '../agents/agent.js';
import type { AnyTool, ToolContext } from '../agents/tool.js';
import { redactError } from '../errors.js';
import { eventsToItems } from '../context/history.js';
import type { ObservationProcessor, ToolObservation } from '../context/observation.js';
import { splitInstruction, type ContextProcessor, type SplitInstruction } from '../context/request.js';
import { toolPageUri } from '../paging/auto-paging.js';
import { pagedInstruction } from '../paging/instruction.js';
import type { PagingService } from '../paging/service.js';
import {
  createPagingTools,
  DEFAULT_PAGING_TOOLS,
  PAGING_TOOL_NAMES,
  type PagingToolsOptions,
} from '../paging/tools.js';
import type { SessionEvent } from '../session/types.js';
import type { Ledger, PartTokens } from '../tokens/ledger.js';
import { countTokens } from '../tokens/tokenizer.js';
import type { AdapterThreads, ThreadRun } from './adapter-threads.js';
import type { BridgeCodec, BridgeContext, HistoryBridge, SourcedEvent } from './history-bridge.js';
import { toolFailureText } from './tool-error.js';

/** Name of a paging tool. */
export type PagingToolName = (typeof PAGING_TOOL_NAMES)[number];

/** What every adapter hook takes: the thread sessions `T` it shares with the tools, and the ledger. */
export interface HookOptions<T> {
  /** The thread sessions; share them with the tools and the other hooks. Default: new ones. */
  threads?: T;
  /** Receives one entry per model call (and the processors' compressor calls). Default: a new ledger. */
  ledger?: Ledger;
}

/** The options of an adapter's paging hook. */
export interface PagingHookOptions<T> extends PagingToolsOptions, HookOptions<T> {
  service: PagingService;
  /** Text above the working set, besides the agent's own instructions. Default none. */
  instruction?: string | ((ctx: InstructionContext) => string | Promise<string>);
  /** Paging tools to give the model. Default {@link DEFAULT_PAGING_TOOLS}: all but `get_reports`, which repeats `page_in`. */
  tools?: readonly PagingToolName[];
  /** History processors applied to each request (e.g. `compactPagingTurns({ keepLast: 1 })`). */
  processors?: ContextProcessor[];
}

/** The options of an adapter's observation hook. */
export interface ObservationHookOptions<T> extends HookOptions<T> {
  /** Processors of each tool result, in order (e.g. `observationCompressor({ service })`). */
  processors: ObservationProcessor[];
  services?: ReadonlyMap<string, unknown>;
}

/** The options of an adapter's history hook. */
export interface HistoryHookOptions<T> extends HookOptions<T> {
  /** History processors, in order (e.g. `historyCompressor()`). */
  processors: ContextProcessor[];
  /** Archives the messages a rewrite replaces, as pages `page_in` reads. */
  service: PagingService;
  services?: ReadonlyMap<string, unknown>;
}

/** The paging tools bound to a service, each wrapped as the framework's tool. */
export function pagingToolsAs<W>(
  service: PagingService,
  options: PagingToolsOptions,
  wrap: (tool: AnyTool) => W,
): Record<PagingToolName, W> {
  const tools = createPagingTools(service, options);
  return Object.fromEntries(PAGING_TOOL_NAMES.map((name) => [name, wrap(tools[name])])) as Record<PagingToolName, W>;
}

/**
 * What a paging hook hands the adapter's instruction hook: the thread sessions (`options.threads`, or new ones
 * from `newThreads`), the paged instruction over the service, the paging tools it offers (`options.tools`, by
 * default all but `get_reports`), each bound to those threads and wrapped as the framework's tool by `wrap`, with its name, in
 * order, and the history processors and the ledger when given.
 *
 * @example
 * ```ts
 * import { adapterSteps } from 'pagewise/adapter-kit';
 * import { PagingService } from 'pagewise/paging';
 *
 * class MyThreads {}
 * const hook = adapterSteps.pagingHook(
 *   { service: new PagingService({}), tools: ['page_in'] },
 *   () => new MyThreads(),
 *   (tool, threads) => ({ name: tool.name, threads }),
 * );
 * console.log(hook.tools.map(([name]) => name)); // ['page_in']
 * ```
 */
export function pagingHook<T, W>(
  options: PagingHookOptions<T>,
  newThreads: () => T,
  wrap: (tool: AnyTool, threads: T) => W,
): {
  instruction: InstructionProvider;
  threads: T;
  tools: [PagingToolName, W][];
  processors?: ContextProcessor[];
  ledger?: Ledger;
} {
  const threads = options.threads ?? newThreads();
  const all = createPagingTools(options.service, options);
  return {
    instruction: pagedInstruction({ base: options.instruction ?? '', service: options.service }),
    threads,
    tools: (options.tools ?? DEFAULT_PAGING_TOOLS).map((name) => [name, wrap(all[name], threads)]),
    ...(options.processors ? { processors: options.processors } : {}),
    ...(options.ledger ? { ledger: options.ledger } : {}),
  };
}

/** Who calls a tool, as the tool context shows it, and what the framework cannot do. */
export interface ToolCallSite {
  sessionId: string;
  userId: string;
  appName: string;
  agentName: string;
  toolCallId: string;
  signal: AbortSignal;
  services: ReadonlyMap<string, unknown>;
  /** Why a pagewise transfer cannot run in this framework: the error a tool's `transferToAgent` throws. */
  noTransfer: string;
}

/**
 * Runs a pagewise tool on a thread with validated arguments and appends its result, with the state delta
 * of the call, to the thread's session. A failure becomes a redacted error text and its writes are dropped,
 * as the pagewise runner drops them; a failure after the call was aborted is thrown, redacted.
 */
export async function runTool<K>(
  threads: AdapterThreads<K>,
  key: K,
  tool: AnyTool,
  args: unknown,
  site: ToolCallSite,
): Promise<{ output: string; isError: boolean }> {
  const run = await threads.current(key);
  const writes = threads.writes(run);
  const ctx: ToolContext = {
    state: writes.access,
    invocationId: run.invocationId,
    sessionId: site.sessionId,
    userId: site.userId,
    appName: site.appName,
    agentName: site.agentName,
    toolCallId: site.toolCallId,
    idempotencyKey: `${site.sessionId}:${site.toolCallId}`,
    signal: site.signal,
    services: site.services,
    actions: {
      transferToAgent: () => {
        throw new Error(site.noTransfer);
      },
      escalate: () => {},
    },
  };
  let output: string;
  let isError = false;
  try {
    const value = await tool.execute(args, ctx);
    output = typeof value === 'string' ? value : JSON.stringify(value ?? 'OK');
  } catch (error) {
    if (site.signal.aborted) throw redactError(error);
    output = toolFailureText(tool.name, error);
    isError = true;
  }
  await threads.recordToolResult(key, run, {
    toolCallId: site.toolCallId,
    toolName: tool.name,
    output,
    isError,
    delta: isError ? {} : writes.delta,
  });
  return { output, isError };
}

/** Renders the instruction from the thread's state, split into the system text and the step block. */
export async function renderInstruction(
  instruction: InstructionProvider,
  run: ThreadRun,
  agentName: string,
  services: ReadonlyMap<string, unknown>,
): Promise<SplitInstruction> {
  return splitInstruction(
    await instruction({
      state: run.session.state,
      session: run.session,
      invocationId: run.invocationId,
      agentName,
      services,
    }),
  );
}

/** Records an agent's model call: the request as measured before it was sent, the completion's text. */
export function recordAgentCall(
  ledger: Ledger,
  call: {
    agentName: string;
    model: string;
    invocationId: string;
    measured: { parts: PartTokens; total: number };
    completion: string;
    /** When the request was sent, in milliseconds since the epoch. */
    at: number;
  },
): void {
  ledger.record({
    kind: 'agent',
    agent: call.agentName,
    model: call.model,
    invocationId: call.invocationId,
    parts: call.measured.parts,
    promptTokens: call.measured.total,
    completionTokens: countTokens(call.completion),
    modelMs: Date.now() - call.at,
    frameworkMs: 0,
    at: call.at,
  });
}

/**
 * Runs a tool result through the observation processors, in order. `recent` is the framework's history
 * as its codec reads it; the events of the adapter's model are authored by `agentName`.
 */
export async function observeToolResult(
  processors: readonly ObservationProcessor[],
  observation: ToolObservation,
  context: {
    run: ThreadRun;
    sessionId: string;
    agentName: string;
    task: string;
    recent: readonly SourcedEvent[];
    services: ReadonlyMap<string, unknown>;
    ledger: Ledger;
    signal: AbortSignal;
  },
): Promise<ToolObservation> {
  const { run } = context;
  const recent = context.recent.map(({ event }, index): SessionEvent => ({
    id: `r${index}`,
    invocationId: run.invocationId,
    author: event.kind === 'user' ? 'user' : context.agentName,
    timestamp: 0,
    ...event,
  }));
  let result = observation;
  for (const processor of processors)
    result = await processor.process(result, {
      invocationId: run.invocationId,
      agentName: context.agentName,
      sessionId: context.sessionId,
      task: context.task,
      recentItems: eventsToItems(recent),
      services: context.services,
      ledger: context.ledger,
      signal: context.signal,
    });
  return result;
}

/** The page URI of the `ordinal`-th history archive of a thread (a tool page: `page_in` reads it). */
export function historyPageUri(threadId: string, ordinal: number): string {
  return toolPageUri('history', `${threadId}/${ordinal}`);
}

/** The last history archive of a thread: its text and page URI. */
export interface HistoryArchive {
  body: string;
  uri: string;
}

/**
 * Runs the history processors over a framework's messages. When they compact, the messages they replace
 * are archived as the thread's next history page (`context.sessionId` is the thread) and every summary
 * names that page, so `page_in` brings the raw history back. Returns undefined when nothing changed.
 */
export async function compactHistory<M>(
  bridge: HistoryBridge,
  messages: readonly M[],
  codec: BridgeCodec<M>,
  context: BridgeContext,
  archive: {
    service: PagingService;
    /** The archive's text of the messages a compaction replaces. */
    describe(replaced: readonly M[]): string;
    /** The text of a summary message, before the archive's handle is added. */
    summaryText(summary: M): string;
    /** The thread's last archive: a compaction that replaces the same messages reuses its page. */
    previous?: HistoryArchive | undefined;
  },
): Promise<{ messages: M[]; archive: HistoryArchive } | undefined> {
  const summaries = new Set<M>();
  const tracking: BridgeCodec<M> = {
    ...codec,
    summary: (text) => {
      const message = codec.summary(text);
      summaries.add(message);
      return message;
    },
  };
  const next = await bridge.apply(messages, tracking, context);
  if (next === messages) return undefined;
  const kept = new Set(next.filter((message) => messages.includes(message)));
  const body = archive.describe(messages.filter((message) => !kept.has(message)));
  const uri =
    archive.previous?.body === body
      ? archive.previous.uri
      : await archivePage(archive.service, context.sessionId, body);
  const out = next.map((message) =>
    summaries.has(message)
      ? codec.summary(
          `${archive.summaryText(message)}\n[pagewise] The messages this replaces are kept as ${uri}; page_in restores them.`,
        )
      : message,
  );
  return { messages: out, archive: { body, uri } };
}

async function archivePage(service: PagingService, threadId: string, body: string): Promise<string> {
  // Numbered after the archives already in the store, so a restarted process never overwrites one.
  const namespace = service.namespaceOf(historyPageUri(threadId, 1), threadId);
  const prefix = historyPageUri(threadId, 1).slice(0, -1);
  const earlier = (await service.pageStore.list(namespace)).filter((page) => page.uri.startsWith(prefix));
  const uri = historyPageUri(threadId, earlier.length + 1);
  await service.pageStore.put({ namespace, uri, title: 'history before compaction', body, mediaType: 'text/plain' });
  return uri;
}
