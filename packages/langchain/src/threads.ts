/**
 * pagewise state per LangGraph thread. A LangChain agent keeps its messages in graph state (and in a
 * checkpointer when it has one); pagewise keeps what its tools write (the working set under `temp:`,
 * saved results and plans under durable keys) in a pagewise session whose id is the thread id
 * (`config.configurable.thread_id`). Each tool result is appended to that session as an event carrying
 * the receipt and the state delta, so durable keys survive a restart when the store is durable (SQLite,
 * PostgreSQL) and a resumed thread finds its saved results; `temp:` keys live for one agent invocation.
 */
import { randomUUID } from 'node:crypto';
import { InMemorySessionStore, type JsonValue, type Session, type SessionStore } from 'pagewise';
import { clearTempKeys, deltaStateAccess, type StateWrites } from 'pagewise/internal';

/** Options of {@link LangChainThreads}. */
export interface LangChainThreadsOptions {
  /** Where each thread's session lives. Default: a new in-memory store. */
  store?: SessionStore;
  /** App name of the sessions. Default `langchain`. */
  appName?: string;
  /** User id of the sessions. Default `langchain`. */
  userId?: string;
  /** The thread of a call made without `configurable.thread_id` (no checkpointer). Default `default`. */
  defaultThreadId?: string;
}

/** One thread while an agent invocation runs on it. */
export interface ThreadRun {
  /** The thread's pagewise session: state includes this invocation's `temp:` keys. */
  readonly session: Session;
  /** This invocation: pages are fetched from a source at most once per invocation. */
  readonly invocationId: string;
  /** The user message that started the invocation, for compressors. */
  task: string;
}

/** Anything that carries LangGraph's configurable (a runtime, a tool's config). */
export interface ThreadConfigLike {
  configurable?: { thread_id?: unknown; [key: string]: unknown };
}

export type { StateWrites } from 'pagewise/internal';

/**
 * The pagewise sessions of LangGraph threads. Share one instance between the paging middleware, the
 * compression middleware and the paging tools of an agent (the middleware factories create one when
 * none is given).
 *
 * @example
 * const threads = new LangChainThreads({ store: await openSqliteSessionStore('pagewise.db') });
 * const agent = createAgent({ model, checkpointer, middleware: [pagingMiddleware({ service, threads })] });
 * await agent.invoke({ messages }, { configurable: { thread_id: 'chat-1' } });
 */
export class LangChainThreads {
  /** The session store. */
  readonly store: SessionStore;
  private readonly appName: string;
  private readonly userId: string;
  private readonly defaultThreadId: string;
  private readonly open = new Map<string, Promise<ThreadRun>>();
  private readonly appends = new Map<string, Promise<unknown>>();

  constructor(options: LangChainThreadsOptions = {}) {
    this.store = options.store ?? new InMemorySessionStore();
    this.appName = options.appName ?? 'langchain';
    this.userId = options.userId ?? 'langchain';
    this.defaultThreadId = options.defaultThreadId ?? 'default';
  }

  /** The thread id of a runtime or tool config: `configurable.thread_id`, or the default thread. */
  threadId(config: ThreadConfigLike | undefined): string {
    const id = config?.configurable?.thread_id;
    if (id === undefined || id === null || id === '') return this.defaultThreadId;
    if (typeof id !== 'string' && typeof id !== 'number')
      throw new TypeError(`configurable.thread_id must be a string or a number, got ${typeof id}.`);
    return String(id);
  }

  /**
   * Starts an agent invocation on a thread: loads (or creates) its session and pages out the working
   * set of any earlier invocation.
   */
  begin(threadId: string, task = ''): Promise<ThreadRun> {
    const run = this.load(threadId).then((session): ThreadRun => {
      clearTempKeys(session.state);
      return { session, invocationId: randomUUID(), task };
    });
    this.open.set(threadId, run);
    return run;
  }

  /** The running invocation of a thread, started on first use when no middleware began one. */
  current(threadId: string): Promise<ThreadRun> {
    return this.open.get(threadId) ?? this.begin(threadId);
  }

  /** Ends the invocation on a thread: the working set is paged out; durable keys stay in the store. */
  async end(threadId: string): Promise<void> {
    const run = this.open.get(threadId);
    if (!run) return;
    this.open.delete(threadId);
    await this.appends.get(threadId);
    this.appends.delete(threadId);
    clearTempKeys((await run).session.state);
  }

  /** A state access over the thread's state that records the writes of one tool call. */
  writes(run: ThreadRun): StateWrites {
    return deltaStateAccess(run.session.state);
  }

  /**
   * Appends a tool result with the state delta of its call to the thread's session. Appends of one
   * thread run one at a time, so parallel tool calls never race on the session version.
   */
  async recordToolResult(
    threadId: string,
    run: ThreadRun,
    result: {
      toolCallId: string;
      toolName: string;
      output: string;
      isError: boolean;
      delta: Record<string, JsonValue>;
    },
  ): Promise<void> {
    const { delta, ...rest } = result;
    const previous = this.appends.get(threadId) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(() =>
        this.store.appendEvent(run.session, {
          id: randomUUID(),
          invocationId: run.invocationId,
          author: rest.toolName,
          timestamp: Date.now(),
          kind: 'tool-result',
          ...rest,
          ...(Object.keys(delta).length ? { delta } : {}),
        }),
      );
    this.appends.set(threadId, next);
    await next;
  }

  private async load(threadId: string): Promise<Session> {
    const key = { appName: this.appName, userId: this.userId, sessionId: threadId };
    return (
      (await this.store.getSession(key)) ??
      (await this.store.createSession({ appName: this.appName, userId: this.userId, sessionId: threadId }))
    );
  }
}
