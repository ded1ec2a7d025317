/**
 * Store throughput: event appends per second and invocations per second (scripted model, one tool call
 * a step) for SQLite and PostgreSQL, with 1, 2 and 4 worker processes writing to one database.
 *
 * Each worker is this file run again as a child process (`node --import tsx`). Workers connect and
 * warm up first, then all start on one signal; a rate is the total work of all workers divided by the
 * wall time from that signal to the last worker's finish. Each configuration runs `repeats` times; the
 * table shows the median and the range.
 *
 * - appends: each worker appends tool-result events (a 200-character output, a session-key delta and a
 *   `user:` increment) one at a time to its own session, so workers contend only for the database.
 * - invocations: workers serve invocations round-robin over 20 shared sessions of 5 users, each
 *   invocation one step that reads and writes a session counter and increments `user:` and `app:`
 *   counters; conflicts between workers are retried by the runner and counted.
 *
 * PostgreSQL rows need a URL: PAGEWISE_BENCH_DATABASE_URL, PAGEWISE_DATABASE_URL or
 * PAGEWISE_TEST_DATABASE_URL; they run in a fresh schema that is dropped afterwards.
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { Agent, PagewiseError, Runner, tool, type Session, type SessionEvent, type SessionStore } from 'pagewise';
import { SqliteSessionStore } from '@pagewise/sqlite';
import { PgSessionStore } from '@pagewise/postgres';
import { scriptedModel } from 'pagewise/testing';
import { fmt, quantile } from './stats.js';

type StoreKind = 'sqlite' | 'postgres';
type Mode = 'appends' | 'invocations';

interface WorkerTask {
  store: StoreKind;
  sqlitePath: string;
  url: string;
  schema: string;
  mode: Mode;
  worker: number;
  count: number;
  /** The shared sessions of the invocations mode: [userId, sessionId]. */
  sessions: [string, string][];
}

type WorkerMessage = { type: 'ready' } | { type: 'done'; ops: number; conflicts: number; failures: number };

const WORKER_ENV = 'PAGEWISE_BENCH_STORE_WORKER';
const APP = 'bench-throughput';
const here = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(here), '..');

function openStore(task: Pick<WorkerTask, 'store' | 'sqlitePath' | 'url' | 'schema'>): SessionStore {
  return task.store === 'sqlite'
    ? new SqliteSessionStore({ path: task.sqlitePath })
    : new PgSessionStore({ url: task.url, schema: task.schema, maxConnections: 4 });
}

const bump = tool({
  name: 'bump',
  description: 'Counts a visit in the session, the user and the app.',
  inputSchema: z.object({}),
  execute: (_args, ctx) => {
    const visits = ((ctx.state.get<number>('visits') ?? 0) as number) + 1;
    ctx.state.set('visits', visits);
    ctx.state.increment('user:visits');
    ctx.state.increment('app:visits');
    return `visit ${visits}`;
  },
});
const agent = new Agent({ name: 'counter', instruction: 'You count visits.', tools: [bump] });

/** A store wrapper counting the conflicts its appends meet; forwards the locked-append capability. */
function countConflicts(store: SessionStore): { store: SessionStore; conflicts: () => number } {
  let conflicts = 0;
  const count = (error: unknown): never => {
    if (PagewiseError.isInstance(error) && error.code === 'version-conflict') conflicts += 1;
    throw error;
  };
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if ((prop === 'appendEvents' || prop === 'appendEventsLocked') && typeof value === 'function') {
        return (...args: unknown[]) =>
          (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch(count);
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: wrapped, conflicts: () => conflicts };
}

function resultEvent(index: number): SessionEvent {
  return {
    kind: 'tool-result',
    id: randomUUID(),
    invocationId: 'bench',
    author: 'agent',
    timestamp: Date.now(),
    toolCallId: `call-${index}`,
    toolName: 'lookup',
    output: `Record ${index}: `.padEnd(200, 'x'),
    isError: false,
    delta: { last: index },
    increments: { 'user:appends': 1 },
  };
}

async function runInvocation(store: SessionStore, userId: string, sessionId: string, message: string): Promise<void> {
  const model = scriptedModel([{ toolCalls: [{ toolName: 'bump', input: {} }] }, 'done']);
  await new Runner({ agent, model, store, appName: APP }).run({ userId, sessionId, message });
}

/** The worker side: warm up, report ready, wait for the start signal, do the work, report. */
async function workerMain(task: WorkerTask): Promise<void> {
  const { store, conflicts } = countConflicts(openStore(task));
  const send = (m: WorkerMessage): void => void process.send!(m);
  let work: () => Promise<number>;
  if (task.mode === 'appends') {
    const session: Session = await store.createSession({
      appName: APP,
      userId: `appender-${task.worker}`,
      sessionId: `appends-${task.worker}-${randomUUID()}`,
    });
    for (let index = 0; index < 5; index++) await store.appendEvent(session, resultEvent(index));
    work = async () => {
      for (let index = 0; index < task.count; index++) await store.appendEvent(session, resultEvent(index));
      return task.count;
    };
  } else {
    const [userId, sessionId] = task.sessions[task.worker % task.sessions.length]!;
    await runInvocation(store, userId, sessionId, 'warm-up');
    work = async () => {
      let failures = 0;
      for (let invocation = 0; invocation < task.count; invocation++) {
        const [userId, sessionId] = task.sessions[(invocation + 5 * task.worker) % task.sessions.length]!;
        await runInvocation(store, userId, sessionId, `w${task.worker}-${invocation}`).catch(() => (failures += 1));
      }
      if (failures) throw new Error(`${failures} invocations failed`);
      return task.count;
    };
  }
  send({ type: 'ready' });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  let failures = 0;
  const ops = await work().catch((error: unknown) => {
    failures += 1;
    process.stderr.write(`worker ${task.worker}: ${(error as Error).message}\n`);
    return 0;
  });
  send({ type: 'done', ops, conflicts: conflicts(), failures });
  await store.close();
}

/** Runs one configuration: `workers` processes, each doing `count` units; returns the rate and conflicts. */
async function runOnce(
  base: Omit<WorkerTask, 'worker'>,
  workers: number,
): Promise<{ rate: number; conflicts: number; ops: number }> {
  const children = Array.from({ length: workers }, (_, worker) =>
    fork(here, [], {
      cwd: root,
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, [WORKER_ENV]: JSON.stringify({ ...base, worker }) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const next = (type: WorkerMessage['type']) =>
    Promise.all(
      children.map(
        (child) =>
          new Promise<WorkerMessage>((resolve, reject) => {
            const onMessage = (message: WorkerMessage): void => {
              if (message.type !== type) return;
              child.off('message', onMessage);
              resolve(message);
            };
            child.on('message', onMessage);
            child.once('exit', (code) =>
              reject(new Error(`a ${base.store} worker exited with ${code} before "${type}"`)),
            );
          }),
      ),
    );
  await next('ready');
  const finished = next('done');
  const started = performance.now();
  for (const child of children) child.send('go');
  const done = (await finished) as Extract<WorkerMessage, { type: 'done' }>[];
  const ms = performance.now() - started;
  await Promise.all(
    children.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve(null) : c.once('exit', resolve)))),
  );
  if (done.some((d) => d.failures)) throw new Error(`a ${base.store} worker failed; see its output above`);
  const ops = done.reduce((n, d) => n + d.ops, 0);
  return { rate: (ops / ms) * 1000, conflicts: done.reduce((n, d) => n + d.conflicts, 0), ops };
}

/** One row of the table. */
export interface ThroughputRow {
  store: StoreKind;
  workers: number;
  appendsPerSecond: { median: number; min: number; max: number };
  invocationsPerSecond: { median: number; min: number; max: number };
  /** Conflicts the runner retried, per invocation (median over repeats). */
  conflictsPerInvocation: number;
}

/** Options of {@link storeThroughput}. */
export interface ThroughputOptions {
  workers?: number[];
  repeats?: number;
  /** Appends per worker. */
  appends?: number;
  /** Invocations per worker. */
  invocations?: number;
  /** PostgreSQL URL; from the environment otherwise. */
  url?: string;
}

const summary = (xs: number[]) => ({ median: quantile(xs, 0.5), min: Math.min(...xs), max: Math.max(...xs) });

/** Runs the benchmark; PostgreSQL rows are left out (and say so) when no URL is configured. */
export async function storeThroughput(
  options: ThroughputOptions = {},
): Promise<{ rows: ThroughputRow[]; notes: string[] }> {
  const workerCounts = options.workers ?? [1, 2, 4];
  const repeats = options.repeats ?? 3;
  const url =
    options.url ??
    process.env.PAGEWISE_BENCH_DATABASE_URL ??
    process.env.PAGEWISE_DATABASE_URL ??
    process.env.PAGEWISE_TEST_DATABASE_URL ??
    '';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-throughput-'));
  const schema = `pw_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const notes: string[] = [];
  const stores: StoreKind[] = url ? ['sqlite', 'postgres'] : ['sqlite'];
  if (!url) notes.push('PostgreSQL skipped: set PAGEWISE_DATABASE_URL (or PAGEWISE_BENCH_DATABASE_URL) to include it.');
  const rows: ThroughputRow[] = [];
  for (const kind of stores) {
    for (const workers of workerCounts) {
      const appendRates: number[] = [];
      const invocationRates: number[] = [];
      const conflicts: number[] = [];
      for (let repeat = 0; repeat < repeats; repeat++) {
        const sqlitePath = path.join(dir, `${kind}-${workers}-${repeat}.db`);
        const base = { store: kind, sqlitePath, url, schema, sessions: [] as [string, string][] };
        appendRates.push((await runOnce({ ...base, mode: 'appends', count: options.appends ?? 400 }, workers)).rate);
        // Fresh shared sessions per run, so every run starts from the same history length.
        const setup = openStore(base);
        const sessions: [string, string][] = [];
        for (let sessionIndex = 0; sessionIndex < 4; sessionIndex++)
          for (let user = 0; user < 5; user++)
            sessions.push([`user-${user}`, `s-${workers}-${repeat}-${user}-${sessionIndex}`]);
        for (const [userId, sessionId] of sessions) await setup.createSession({ appName: APP, userId, sessionId });
        await setup.close();
        const inv = await runOnce(
          { ...base, sessions, mode: 'invocations', count: options.invocations ?? 100 },
          workers,
        );
        invocationRates.push(inv.rate);
        conflicts.push(inv.conflicts / inv.ops);
      }
      rows.push({
        store: kind,
        workers,
        appendsPerSecond: summary(appendRates),
        invocationsPerSecond: summary(invocationRates),
        conflictsPerInvocation: quantile(conflicts, 0.5),
      });
    }
  }
  if (url) {
    const pg = new PgSessionStore({ url, schema });
    await pg.database.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pg.close();
  }
  return { rows, notes };
}

/** Prints the benchmark as a markdown table. */
export async function main(options: ThroughputOptions = {}): Promise<void> {
  const { rows, notes } = await storeThroughput(options);
  console.log(
    '\n## store-throughput: appends and invocations per second (scripted model, worker processes on one database)\n',
  );
  console.log(
    '| store | workers | appends/s (median) | appends/s range | invocations/s (median) | invocations/s range | conflicts retried per invocation |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const range = (x: { min: number; max: number }) => `${fmt(x.min, 0)}–${fmt(x.max, 0)}`;
    console.log(
      `| ${row.store} | ${row.workers} | ${fmt(row.appendsPerSecond.median, 0)} | ${range(row.appendsPerSecond)} | ${fmt(row.invocationsPerSecond.median, 0)} | ${range(row.invocationsPerSecond)} | ${fmt(row.conflictsPerInvocation, 2)} |`,
    );
  }
  for (const note of notes) console.log(`\n${note}`);
}

const task = process.env[WORKER_ENV];
if (task) await workerMain(JSON.parse(task) as WorkerTask);
else if (process.argv[1] && path.resolve(process.argv[1]) === here) await main();
