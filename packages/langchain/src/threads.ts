/**
 * pagewise state per LangGraph thread. A LangChain agent keeps its messages in graph state (and in a
 * checkpointer when it has one); pagewise keeps what its tools write (the working set under `temp:`,
 * saved results and plans under durable keys) in a pagewise session whose id is the thread id
 * (`config.configurable.thread_id`). Each tool result is appended to that session as an event carrying
 * the receipt and the state delta, so durable keys survive a restart when the store is durable (SQLite,
 * PostgreSQL) and a resumed thread finds its saved results; `temp:` keys live for one agent invocation.
 */
import type { SessionKey, SessionStore } from 'pagewise';
import { AdapterThreads } from 'pagewise/adapter-kit';

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

/** Anything that carries LangGraph's configurable (a runtime, a tool's config). */
export interface ThreadConfigLike {
  configurable?: { thread_id?: unknown; [key: string]: unknown };
}

export type { StateWrites, ThreadRun } from 'pagewise/adapter-kit';

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
export class LangChainThreads extends AdapterThreads<string> {
  private readonly userId: string;

  constructor(options: LangChainThreadsOptions = {}) {
    super(options, 'langchain');
    this.userId = options.userId ?? 'langchain';
  }

  /** The thread id of a runtime or tool config: `configurable.thread_id`, or the default thread. */
  threadId(config: ThreadConfigLike | undefined): string {
    const id = config?.configurable?.thread_id;
    if (id === undefined || id === null || id === '') return this.defaultThreadId;
    if (typeof id !== 'string' && typeof id !== 'number')
      throw new TypeError(`configurable.thread_id must be a string or a number, got ${typeof id}.`);
    return String(id);
  }

  /** A thread's session: the thread id is the session id. */
  protected sessionKey(threadId: string): SessionKey {
    return { appName: this.appName, userId: this.userId, sessionId: threadId };
  }
}
