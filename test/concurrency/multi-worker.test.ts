/**
 * Many workers, one store: 4 worker processes × 200 invocations over 20 shared sessions of 5 users,
 * against one PostgreSQL database. Every increment of every counter must be counted, and every
 * invocation's events must be stored exactly once, with each tool call directly followed by its results.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PgSessionStore } from '../../packages/postgres/src/index.js';
import type { Session } from '../../packages/pagewise/src/session/types.js';
import { dropSchema, pgTestUrl, skipPg, uniqueSchema } from '../contracts/pg-test-database.js';
import type { WorkerReport, WorkerTask } from './worker.js';

const WORKERS = 4;
const INVOCATIONS = 200;
const USERS = 5;
const SESSIONS_PER_USER = 4;
const CONCURRENCY = 4;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

function runWorker(task: WorkerTask): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(here, 'worker.ts'), [], {
      cwd: root,
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, PAGEWISE_WORKER_TASK: JSON.stringify(task) },
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    let stderr = '';
    let report: WorkerReport | undefined;
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('message', (m) => (report = m as WorkerReport));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 && report) resolve(report);
      else reject(new Error(`worker ${task.worker} exited with ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

const url = pgTestUrl;
if (!url) {
  skipPg('multi-worker PostgreSQL');
} else {
  const schema = uniqueSchema('workers');
  afterAll(() => dropSchema(url, schema));

  describe('many workers, one PostgreSQL store', () => {
    it(`${WORKERS} processes × ${INVOCATIONS} invocations over ${USERS * SESSIONS_PER_USER} sessions of ${USERS} users: no lost update, no duplicate or missing event`, async () => {
      const appName = 'workers';
      const store = new PgSessionStore({ url, schema });
      // Listed user by user in turn, so neighbouring sessions belong to different users.
      const sessions: [string, string][] = [];
      for (let sessionIndex = 0; sessionIndex < SESSIONS_PER_USER; sessionIndex++)
        for (let user = 0; user < USERS; user++) sessions.push([`user-${user}`, `session-${user}-${sessionIndex}`]);
      for (const [userId, sessionId] of sessions) await store.createSession({ appName, userId, sessionId });

      // Invocation i of worker w goes to session (i + 5w) mod 20: 40 per session, every worker on every
      // session, each worker starting at a different one.
      const plans = Array.from({ length: WORKERS }, (_, worker) =>
        Array.from({ length: INVOCATIONS }, (_, i) => sessions[(i + 5 * worker) % sessions.length]!),
      );
      const reports = await Promise.all(
        plans.map((plan, worker) => runWorker({ url, schema, appName, worker, plan, concurrency: CONCURRENCY })),
      );
      console.log(
        `multi-worker: ${reports.map((r) => `worker ${r.worker}: ${r.invocations} invocations, ${r.conflicts} conflicts retried, ${r.locked} locked appends, ${(r.ms / 1000).toFixed(1)} s`).join('; ')}`,
      );
      expect(reports.flatMap((r) => r.failures)).toEqual([]);
      // The contention was real: without it this test would prove nothing.
      expect(reports.reduce((n, r) => n + r.conflicts, 0)).toBeGreaterThan(0);

      const expected = new Map<string, string[]>();
      plans.forEach((plan, worker) =>
        plan.forEach(([, sessionId], invocation) =>
          expected.set(sessionId, [...(expected.get(sessionId) ?? []), `w${worker}-i${invocation}`]),
        ),
      );
      const loaded: Session[] = [];
      for (const [userId, sessionId] of sessions)
        loaded.push((await store.getSession({ appName, userId, sessionId }))!);

      for (const session of loaded) {
        const messages = expected.get(session.sessionId)!;
        // Each invocation: its user message, one step (model + 2 results), the final answer.
        expect(session.events).toHaveLength(messages.length * 5);
        expect(session.version).toBe(session.events.length);
        expect(new Set(session.events.map((e) => e.id)).size).toBe(session.events.length);
        const texts = session.events.flatMap((e) => (e.kind === 'user' ? [e.text] : []));
        expect(texts.sort()).toEqual([...messages].sort());
        const byInvocation = new Map<string, string[]>();
        session.events.forEach((event, index) => {
          byInvocation.set(event.invocationId, [...(byInvocation.get(event.invocationId) ?? []), event.kind]);
          if (event.kind === 'model' && event.toolCalls.length) {
            const next = session.events.slice(index + 1, index + 1 + event.toolCalls.length);
            expect(next.map((r) => (r.kind === 'tool-result' ? r.toolCallId : r.kind))).toEqual(
              event.toolCalls.map((c) => c.toolCallId),
            );
          }
        });
        expect([...byInvocation.values()].every((k) => k.join() === 'user,model,tool-result,tool-result,model')).toBe(
          true,
        );
        expect(session.state.count).toBe(2 * messages.length);
      }
      for (let user = 0; user < USERS; user++) {
        const mine = loaded.filter((s) => s.userId === `user-${user}`);
        const invocations = mine.reduce((n, s) => n + expected.get(s.sessionId)!.length, 0);
        expect(mine[0]!.state['user:count']).toBe(2 * invocations);
      }
      expect(loaded[0]!.state['app:count']).toBe(2 * WORKERS * INVOCATIONS);
      await store.close();
    }, 120_000);
  });
}
