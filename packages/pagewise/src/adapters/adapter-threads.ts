/**
 * pagewise state per conversation thread of a framework that keeps its own messages (LangChain, Mastra).
 * pagewise keeps what its tools write (the working set under `temp:`, saved results and plans under durable
 * keys) in a pagewise session of the thread; each tool result is appended to it as an event carrying the
 * receipt and the state delta, so durable keys survive a restart when the store is durable and a resumed
 * thread finds its saved results; `temp:` keys live for one agent call. An adapter names its threads
 * (`K`) and says which session each one is.
 */
import { randomUUID } from 'node:crypto';
import { InMemorySessionStore } from '../session/memory-store.js';
import type { SessionStore } from '../session/store.js';
import type { JsonValue, Session, SessionKey } from '../session/types.js';
import { clearTempKeys, deltaStateAccess, type StateWrites } from './record-state.js';

/** One thread while an agent call runs on it. */
export interface ThreadRun {
  /** The thread's pagewise session: state includes this call's `temp:` keys. */
  readonly session: Session;
  /** This call: pages are fetched from a source at most once per call. */
  readonly invocationId: string;
  /** The user message that started the call, for compressors. */
  task: string;
}

/** What every adapter's thread sessions take. */
export interface AdapterThreadsOptions {
  /** Where each thread's session lives. Default: a new in-memory store. */
  store?: SessionStore;
  /** App name of the sessions. Default: the framework's name. */
  appName?: string;
  /** The thread of a call that names none. Default `default`. */
  defaultThreadId?: string;
}

/**
 * The pagewise sessions of a framework's threads, keyed by the adapter's thread key `K`. A subclass says
 * which session a thread is ({@link AdapterThreads.sessionKey}) and how it reads a thread from the
 * framework's hooks.
 */
export abstract class AdapterThreads<K> {
  /** The session store. */
  readonly store: SessionStore;
  /** App name of the sessions. */
  protected readonly appName: string;
  /** The thread of a call that names none. */
  protected readonly defaultThreadId: string;
  private readonly open = new Map<string, Promise<ThreadRun>>();
  private readonly appends = new Map<string, Promise<unknown>>();

  /** `framework` is the default app name. */
  protected constructor(options: AdapterThreadsOptions, framework: string) {
    this.store = options.store ?? new InMemorySessionStore();
    this.appName = options.appName ?? framework;
    this.defaultThreadId = options.defaultThreadId ?? 'default';
  }

  /** The pagewise session of a thread. */
  protected abstract sessionKey(key: K): SessionKey;

  /** Starts an agent call on a thread: loads (or creates) its session and pages out any earlier working set. */
  begin(key: K, task = ''): Promise<ThreadRun> {
    const run = this.load(key).then((session): ThreadRun => {
      clearTempKeys(session.state);
      return { session, invocationId: randomUUID(), task };
    });
    this.open.set(this.runId(key), run);
    return run;
  }

  /** The running call of a thread, started on first use when no hook began one. */
  current(key: K): Promise<ThreadRun> {
    return this.open.get(this.runId(key)) ?? this.begin(key);
  }

  /** Ends the call on a thread: the working set is paged out; durable keys stay in the store. */
  async end(key: K): Promise<void> {
    const id = this.runId(key);
    const run = this.open.get(id);
    if (!run) return;
    this.open.delete(id);
    await this.appends.get(id);
    this.appends.delete(id);
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
    key: K,
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
    const id = this.runId(key);
    const previous = this.appends.get(id) ?? Promise.resolve();
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
    this.appends.set(id, next);
    await next;
  }

  private runId(key: K): string {
    const { userId, sessionId } = this.sessionKey(key);
    return `${userId}\u0000${sessionId}`;
  }

  private async load(key: K): Promise<Session> {
    const sessionKey = this.sessionKey(key);
    return (await this.store.getSession(sessionKey)) ?? (await this.store.createSession(sessionKey));
  }
}
