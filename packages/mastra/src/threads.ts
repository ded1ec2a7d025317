/**
 * pagewise state per Mastra memory thread. A Mastra agent keeps its messages in its memory (a thread of
 * a resource); pagewise keeps what its tools write (the working set under `temp:`, saved results and
 * plans under durable keys) in a pagewise session whose user id is the Mastra resource id and whose
 * session id is the thread id. Each tool result is appended to that session as an event carrying the
 * receipt and the state delta, so durable keys survive a restart when the store is durable (SQLite,
 * PostgreSQL) and a resumed thread finds its saved results; `temp:` keys live for one `generate()` or
 * `stream()` call.
 */
import type { Session, SessionKey, SessionStore } from 'pagewise';
import { AdapterThreads } from 'pagewise/adapter-kit';

/** Options of {@link MastraThreads}. */
export interface MastraThreadsOptions {
  /** Where each thread's session lives. Default: a new in-memory store. */
  store?: SessionStore;
  /** App name of the sessions. Default `mastra`. */
  appName?: string;
  /** The thread of a call made without memory (`memory: { thread, resource }`). Default `default`. */
  defaultThreadId?: string;
  /** The resource of a call made without memory. Default `mastra`. */
  defaultResourceId?: string;
}

/** A Mastra memory thread: the thread id and the resource (user) it belongs to. */
export interface MastraThreadKey {
  readonly threadId: string;
  readonly resourceId: string;
}

export type { StateWrites, ThreadRun } from 'pagewise/adapter-kit';

/** What Mastra hands a processor or a tool: a request context, and for tools the agent's thread. */
export interface MastraRunLike {
  requestContext?: { get(key: string): unknown } | undefined;
  agent?: { threadId?: string | undefined; resourceId?: string | undefined } | undefined;
}

const stringId = (value: unknown, what: string): string | undefined => {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new TypeError(`Mastra ${what} must be a string, got ${typeof value}.`);
  return value;
};

/**
 * The pagewise sessions of Mastra memory threads. Share one instance between the paging processor, the
 * compression processors and the paging tools of an agent (the factories create one when none is given).
 *
 * @example
 * const threads = new MastraThreads({ store: await openSqliteSessionStore('pagewise.db') });
 * const agent = new Agent({ id: 'analyst', name: 'analyst', instructions, model, memory, inputProcessors: [pagingProcessor({ service, threads })] });
 * await agent.generate('Which region grew most?', { memory: { thread: 'chat-1', resource: 'user-1' } });
 */
export class MastraThreads extends AdapterThreads<MastraThreadKey> {
  private readonly defaultResourceId: string;

  constructor(options: MastraThreadsOptions = {}) {
    super(options, 'mastra');
    this.defaultResourceId = options.defaultResourceId ?? 'mastra';
  }

  /**
   * The thread of a processor or tool call: the agent's memory thread (from the tool context, or the
   * `MastraMemory` entry Mastra puts in the request context), else the default thread.
   *
   * @throws TypeError when Mastra names a thread or resource that is not a string.
   */
  keyOf(run: MastraRunLike | undefined): MastraThreadKey {
    const memory = run?.requestContext?.get('MastraMemory') as
      { thread?: { id?: unknown; resourceId?: unknown }; resourceId?: unknown } | undefined;
    const threadId =
      stringId(run?.agent?.threadId, 'thread id') ?? stringId(memory?.thread?.id, 'thread id') ?? this.defaultThreadId;
    const resourceId =
      stringId(run?.agent?.resourceId, 'resource id') ??
      stringId(memory?.resourceId ?? memory?.thread?.resourceId, 'resource id') ??
      this.defaultResourceId;
    return { threadId, resourceId };
  }

  /** The thread's stored session (what a later call starts from), or undefined before its first call. */
  session(key: MastraThreadKey): Promise<Session | undefined> {
    return this.store.getSession(this.sessionKey(key));
  }

  /** A thread's session: the resource is the user, the thread the session. */
  protected sessionKey(key: MastraThreadKey): SessionKey {
    return { appName: this.appName, userId: key.resourceId, sessionId: key.threadId };
  }
}
