/**
 * `pagewise bench report-analysis` through the Redis queue with worker processes: the results and the
 * saved runs equal those of the in-process run (timings and random ids aside), also when a worker is
 * killed in the middle of an episode, whose episode another worker then runs again.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { benchCommand } from '../../packages/cli/src/bench.js';
import { deletePrefix, redisTestUrl, skipRedis, uniquePrefix } from './redis-test.js';
import { groupAlive, WorkerProcesses } from './worker-processes.js';

// Default N (164 reports): `none` overflows the 128k window and fails, `paging` succeeds, so both
// outcomes are compared. 4 tasks × 2 strategies = 8 episodes of about half a second each.
const BENCH = ['report-analysis', '--strategies', 'none,paging', '--tasks', '4', '--seed', '3'];
// Short locks, so a killed worker's episode is back in the queue within seconds. A worker's first
// episode blocks its process for about 2 s here (corpus, tokenizer): the lock outlives it only because
// episodes run in sandboxed child processes, which the "each episode once" checks below rely on.
const WORKER_ARGS = ['--lock-duration', '2000', '--stalled-interval', '1000'];
// Fields that measure time, or are fresh random ids, differ between any two runs.
const VOLATILE = new Set(['wallMs', 'overheadMsPerStep', 'modelMs', 'frameworkMs', 'at', 'invocationId', 'startedAt']);

function withoutVolatile(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutVolatile);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !VOLATILE.has(k))
        .map(([k, v]) => [k, withoutVolatile(v)]),
    );
  return value;
}

async function bench(args: string[]): Promise<{ out: string; err: string; results: unknown; runs: unknown }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-bench-queue-'));
  try {
    const out: string[] = [];
    const err: string[] = [];
    const code = await benchCommand(
      [...BENCH, ...args, '--out', dir],
      (s) => out.push(s),
      (s) => err.push(s),
    );
    expect(code).toBe(0);
    const read = (f: string) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as unknown;
    return { out: out.join('\n'), err: err.join('\n'), results: read('results.json'), runs: read('runs.json') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const url = redisTestUrl;
if (!url) {
  skipRedis('bench through the queue with worker processes');
} else {
  describe('bench through the queue with worker processes', () => {
    const prefix = uniquePrefix('bench');
    const workers = new WorkerProcesses();
    let local: Awaited<ReturnType<typeof bench>>;

    beforeAll(async () => {
      local = await bench([]);
    });
    afterEach(() => workers.killAll());
    afterAll(async () => {
      await workers.killAll();
      await deletePrefix(url, prefix);
    });

    it('2 workers give the same results JSON and runs as one process, and stop cleanly on SIGTERM', async () => {
      const [workerA, workerB] = await Promise.all([
        workers.start('a', url, ['--prefix', prefix, ...WORKER_ARGS]),
        workers.start('b', url, ['--prefix', prefix, ...WORKER_ARGS]),
      ]);
      const queued = await bench(['--queue', url, '--queue-prefix', prefix]);
      expect(withoutVolatile(queued.results)).toEqual(withoutVolatile(local.results));
      expect(withoutVolatile(queued.runs)).toEqual(withoutVolatile(local.runs));
      expect(queued.err).not.toMatch(/No worker is connected|lost its worker/);
      // The comparison is not vacuous: both strategies ran, one succeeding and one failing on the window.
      const rows = (queued.results as { results: { strategy: string; successRate: number; windowFailures: number }[] })
        .results;
      expect(rows.map((r) => [r.strategy, r.successRate, r.windowFailures])).toEqual([
        ['none', 0, 4],
        ['paging', 1, 0],
      ]);
      // Both workers took episodes, each episode once (a worker blocked past its lock would repeat one).
      const ran = (w: typeof workerA) => w.output().match(/: started \(/g)?.length ?? 0;
      expect(ran(workerA)).toBeGreaterThan(0);
      expect(ran(workerB)).toBeGreaterThan(0);
      expect(ran(workerA) + ran(workerB)).toBe(8);
      workerA.child.kill('SIGTERM');
      workerB.child.kill('SIGTERM');
      expect(await Promise.all([workerA.exited, workerB.exited])).toEqual([0, 0]);
      expect(workerA.output()).toMatch(/SIGTERM: finishing the episodes in progress[\s\S]*pagewise worker: stopped/);
    }, 30_000);

    it('killing a worker in the middle of an episode still completes every episode, with the same results', async () => {
      const [victim, survivor] = await Promise.all([
        workers.start('victim', url, ['--prefix', prefix, ...WORKER_ARGS]),
        workers.start('survivor', url, ['--prefix', prefix, ...WORKER_ARGS]),
      ]);
      const run = bench(['--queue', url, '--queue-prefix', prefix]);
      const line = await victim.waitFor(/: started \(/);
      victim.child.kill('SIGKILL');
      const lostId = /^episode (\S+): started/.exec(line)?.[1];
      expect(lostId).toBeDefined();
      const queued = await run;
      expect(await victim.exited).toBe('SIGKILL');
      // The victim never finished it; the producer saw it come back, and the survivor ran it.
      expect(victim.output()).not.toContain(`episode ${lostId}: ok`);
      expect(victim.output()).not.toContain(`episode ${lostId}: failed`);
      expect(queued.err).toContain(`Episode ${lostId} lost its worker; it is back in the queue for another worker.`);
      expect(survivor.output()).toContain(`episode ${lostId}: started`);
      expect(withoutVolatile(queued.results)).toEqual(withoutVolatile(local.results));
      expect(withoutVolatile(queued.runs)).toEqual(withoutVolatile(local.runs));
      // Only the worker's own process was killed: the sandbox process running the episode, orphaned,
      // leaves by itself once the episode is done instead of running on.
      await expect.poll(() => groupAlive(victim.child.pid), { timeout: 10_000, interval: 200 }).toBe(false);
    }, 30_000);

    it('a worker stopped with a second SIGINT puts its episode back at once, and the other worker runs it', async () => {
      const [stopped, other] = await Promise.all([
        workers.start('stopped', url, ['--prefix', prefix, ...WORKER_ARGS]),
        workers.start('other', url, ['--prefix', prefix, ...WORKER_ARGS]),
      ]);
      const run = bench(['--queue', url, '--queue-prefix', prefix]);
      const line = await stopped.waitFor(/: started \(/);
      const id = /^episode (\S+): started/.exec(line)?.[1];
      stopped.child.kill('SIGINT');
      // A second signal sent before the first is handled would merge with it.
      await stopped.waitFor(/SIGINT: finishing the episodes in progress/);
      stopped.child.kill('SIGINT');
      expect(await stopped.exited).toBe(0);
      expect(stopped.output()).toContain(`episode ${id}: put back in the queue`);
      expect(stopped.output()).not.toContain(`episode ${id}: ok`);
      const queued = await run;
      // Released, not lost: no lock had to expire, and the other worker ran the episode.
      expect(queued.err).not.toContain('lost its worker');
      expect(other.output()).toContain(`episode ${id}: started`);
      expect(withoutVolatile(queued.runs)).toEqual(withoutVolatile(local.runs));
    }, 30_000);
  });
}
