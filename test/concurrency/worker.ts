/**
 * One worker process of the multi-worker test: runs its share of invocations against the shared
 * PostgreSQL store, a few at a time, with the scripted model, and reports back over IPC. Every
 * invocation's step calls `bump` twice in parallel; each call adds one to a session counter and a
 * `user:` counter by reading the value and writing value + 1 (the pattern that loses increments unless
 * the runtime prevents it), and to an `app:` counter that all invocations share, with `increment`.
 *
 * Started by multi-worker.test.ts as `node --import tsx worker.ts` with its task in PAGEWISE_WORKER_TASK.
 */
import { z } from 'zod';
import { Agent } from '../../packages/pagewise/src/agents/agent.js';
import { Runner } from '../../packages/pagewise/src/agents/runner.js';
import { tool } from '../../packages/pagewise/src/agents/tool.js';
import { PagewiseError } from '../../packages/pagewise/src/errors.js';
import { scriptedModel } from '../../packages/pagewise/src/models/scripted.js';
import type { LockingSessionStore } from '../../packages/pagewise/src/session/store.js';
import type { Session, SessionEvent } from '../../packages/pagewise/src/session/types.js';
import { PgSessionStore } from '../../packages/postgres/src/index.js';

/** What the parent asks a worker to do. */
export interface WorkerTask {
  url: string;
  schema: string;
  appName: string;
  worker: number;
  /** The sessions of this worker's invocations, in order: [userId, sessionId]. */
  plan: [string, string][];
  /** Invocations in flight at once inside this worker. */
  concurrency: number;
}

/** What a worker reports when done. */
export interface WorkerReport {
  worker: number;
  invocations: number;
  conflicts: number;
  /** Appends that fell back to the locked path. */
  locked: number;
  failures: string[];
  ms: number;
}

/** A store that counts the conflicts its appends run into, to show the test had contention. */
class CountingStore implements LockingSessionStore {
  conflicts = 0;
  locked = 0;
  constructor(private readonly inner: LockingSessionStore) {}
  createSession: LockingSessionStore['createSession'] = (o) => this.inner.createSession(o);
  getSession: LockingSessionStore['getSession'] = (k) => this.inner.getSession(k);
  listSessions: LockingSessionStore['listSessions'] = (o) => this.inner.listSessions(o);
  deleteSession: LockingSessionStore['deleteSession'] = (k) => this.inner.deleteSession(k);
  appendEvent = async (s: Session, e: SessionEvent): Promise<SessionEvent> => (await this.appendEvents(s, [e]))[0]!;
  appendEvents = async (session: Session, events: readonly SessionEvent[]): Promise<SessionEvent[]> => {
    try {
      return await this.inner.appendEvents(session, events);
    } catch (error) {
      if (PagewiseError.isInstance(error) && error.code === 'version-conflict') this.conflicts += 1;
      throw error;
    }
  };
  appendEventsLocked: LockingSessionStore['appendEventsLocked'] = async (session, keys, build) => {
    this.locked += 1;
    try {
      return await this.inner.appendEventsLocked(session, keys, build);
    } catch (error) {
      if (PagewiseError.isInstance(error) && error.code === 'version-conflict') this.conflicts += 1;
      throw error;
    }
  };
  close = (): Promise<void> => this.inner.close();
}

const bump = tool({
  name: 'bump',
  description: 'Adds one to the session, user and app counters.',
  inputSchema: z.object({}),
  execute: (_args, ctx) => {
    // Read-modify-write: safe only because stale reads are detected and the call re-run.
    const out: string[] = [];
    for (const key of ['count', 'user:count']) {
      const count = ((ctx.state.get<number>(key) ?? 0) as number) + 1;
      ctx.state.set(key, count);
      out.push(`${key}=${count}`);
    }
    // Every invocation of every worker bumps this one: an atomic increment, which never conflicts.
    ctx.state.increment('app:count');
    return out.join(' ');
  },
});

async function main(): Promise<void> {
  const task = JSON.parse(process.env.PAGEWISE_WORKER_TASK ?? '') as WorkerTask;
  const store = new CountingStore(
    new PgSessionStore({ url: task.url, schema: task.schema, maxConnections: task.concurrency + 1 }),
  );
  const agent = new Agent({ name: 'counter', instruction: 'You count.', tools: [bump] });
  const failures: string[] = [];
  const started = performance.now();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < task.plan.length) {
      const planIndex = next++;
      const [userId, sessionId] = task.plan[planIndex]!;
      const model = scriptedModel([
        {
          toolCalls: [
            { toolName: 'bump', input: {} },
            { toolName: 'bump', input: {} },
          ],
        },
        'done',
      ]);
      try {
        await new Runner({ agent, model, store, appName: task.appName }).run({
          userId,
          sessionId,
          message: `w${task.worker}-i${planIndex}`,
        });
        model.assertComplete();
      } catch (error) {
        failures.push(`w${task.worker}-i${planIndex}: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: task.concurrency }, lane));
  const report: WorkerReport = {
    worker: task.worker,
    invocations: task.plan.length,
    conflicts: store.conflicts,
    locked: store.locked,
    failures,
    ms: performance.now() - started,
  };
  await store.close();
  process.send!(report);
}

await main();
