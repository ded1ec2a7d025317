/**
 * pagewise state per Mastra memory thread. A Mastra agent keeps its messages in its memory (a thread of
 * a resource); pagewise keeps what its tools write (the working set under `temp:`, saved results and
 * plans under durable keys) in a pagewise session whose user id is the Mastra resource id and whose
 * session id is the thread id. Each tool result is appended to that session as an event carrying the
 * receipt and the state delta, so durable keys survive a restart when the store is durable (SQLite,
 * PostgreSQL) and a resumed thread finds its saved results; `temp:` keys live for one `generate()` or
 * `stream()` call.
 */
import { randomUUID } from 'node:crypto';
import { InMemorySessionStore, type JsonValue, type Session, type SessionStore } from 'pagewise';
import { clearTempKeys, deltaStateAccess, type StateWrites } from 'pagewise/internal';

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

/** One thread while an agent call runs on it. */
export interface ThreadRun {
  /** The thread's pagewise session: state includes this call's `temp:` keys. */
  readonly session: Session;
  /** This call: pages are fetched from a source at most once per call. */
  readonly invocationId: string;
  /** The user message that started the call, for compressors. */
  task: string;
}

export type { StateWrites } from 'pagewise/internal';

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
export class MastraThreads {
  /** The session store. */
  readonly store: SessionStore;
  private readonly appName: string;
  private readonly defaultThreadId: string;
  private readonly defaultResourceId: string;
  private readonly open = new Map<string, Promise<ThreadRun>>();
  private readonly appends = new Map<string, Promise<unknown>>();

  constructor(options: MastraThreadsOptions = {}) {
    this.store = options.store ?? new InMemorySessionStore();
    this.appName = options.appName ?? 'mastra';
    this.defaultThreadId = options.defaultThreadId ?? 'default';
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

  /** Starts an agent call on a thread: loads (or creates) its session and pages out any earlier working set. */
  begin(key: MastraThreadKey, task = ''): Promise<ThreadRun> {
    const run = this.load(key).then((session): ThreadRun => {
      clearTempKeys(session.state);
      return { session, invocationId: randomUUID(), task };
    });
    this.open.set(id(key), run);
    return run;
  }

  /** The running call of a thread, started on first use when no processor began one. */
  current(key: MastraThreadKey): Promise<ThreadRun> {
    return this.open.get(id(key)) ?? this.begin(key);
  }

  /** Ends the call on a thread: the working set is paged out; durable keys stay in the store. */
  async end(key: MastraThreadKey): Promise<void> {
    const k = id(key);
    const run = this.open.get(k);
    if (!run) return;
    this.open.delete(k);
    await this.appends.get(k);
    this.appends.delete(k);
    clearTempKeys((await run).session.state);
  }

  /** The thread's stored session (what a later call starts from), or undefined before its first call. */
  session(key: MastraThreadKey): Promise<Session | undefined> {
    return this.store.getSession({ appName: this.appName, userId: key.resourceId, sessionId: key.threadId });
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
    key: MastraThreadKey,
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
    const k = id(key);
    const previous = this.appends.get(k) ?? Promise.resolve();
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
    this.appends.set(k, next);
    await next;
  }

  private async load(key: MastraThreadKey): Promise<Session> {
    const sessionKey = { appName: this.appName, userId: key.resourceId, sessionId: key.threadId };
    return (await this.store.getSession(sessionKey)) ?? (await this.store.createSession(sessionKey));
  }
}

const id = (key: MastraThreadKey): string => `${key.resourceId}\u0000${key.threadId}`;
