import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runBench, type BenchEpisode, type BenchProgress, type BenchReport } from '../../lab/src/bench/harness.js';
import { registerScenario, unregisterScenario } from '../../lab/src/bench/registry.js';
import type { BenchScenario, ScenarioTask } from '../../lab/src/bench/scenario.js';
import { PagewiseError } from '../../pagewise/src/errors.js';
import { OfflineModel } from '../../pagewise/src/models/offline.js';
import { emptyParts } from '../../pagewise/src/tokens/ledger.js';
import { deletePrefix, redisTestUrl, skipRedis, uniquePrefix } from '../../../test/distributed/redis-test.js';
import { EPISODE_QUEUE } from './job.js';
import { queueExecutor, type QueueNotice } from './queue.js';
import { startEpisodeWorker, type EpisodeWorker, type EpisodeWorkerEvent } from './worker.js';
import { registerStandardBench } from '../../lab/src/bench/standard.js';

registerStandardBench();

// A scenario with no data: an episode's outcome is a function of its task and strategy, and it takes
// `delayMs` of the task (aborted by the signal), so tests can order, stall and release episodes. `ranBy`
// tags the outcome with the worker that ran it.
const SCENARIO = 'test-queue';
const delayed = (ranBy: string): BenchScenario => ({
  name: SCENARIO,
  description: 'canned outcomes with delays',
  defaultN: 2,
  strategies: ['none', 'fifo'],
  prepare: async ({ n: size = 2, tasks, seed }) =>
    Array.from({ length: tasks }, (_, taskIndex) => ({
      id: `t${taskIndex}:n${size}`,
      prompt: `task ${taskIndex}`,
      n: size,
      seed,
      delayMs: ((taskIndex * 7 + seed) % 4) * 15,
    })),
  async runEpisode(task: ScenarioTask, context) {
    const { n: size, seed, delayMs } = task as ScenarioTask & { n: number; seed: number; delayMs: number };
    await sleep(delayMs, undefined, context.signal ? { signal: context.signal } : {});
    const tokens = 100 * size + seed + (context.strategy === 'fifo' ? 7 : 0);
    return {
      taskId: task.id,
      strategy: context.strategy,
      success: (tokens + task.id.length) % 3 !== 0,
      answer: `${task.prompt} by ${ranBy}`,
      ledger: [
        {
          index: 0,
          kind: 'agent',
          agent: 'a',
          model: String(context.model),
          invocationId: 'i',
          parts: { ...emptyParts(), history: tokens },
          promptTokens: tokens,
          completionTokens: 5,
          modelMs: 0,
          frameworkMs: 0.1,
          at: 0,
        },
      ],
      windowFailure: false,
      ...(context.contextWindow !== undefined ? { evidenceRecall: context.contextWindow / 1000 } : {}),
      wallMs: 1,
    };
  },
});

/** The saved episodes without what may differ between runs of the same benchmark. */
const comparable = (report: BenchReport) =>
  report.runs.episodes.map(({ wallMs: _w, answer, ...rest }: BenchEpisode) => ({
    ...rest,
    answer: answer.replace(/ by \w+$/, ''),
  }));

const url = redisTestUrl;

describe('queue executor without Redis', () => {
  it('refuses a model instance before queuing anything', async () => {
    const error = await runBench({
      scenario: delayed('here'),
      tasks: 1,
      seed: 1,
      model: new OfflineModel(),
      executor: queueExecutor({ url: 'redis://127.0.0.1:1' }),
    }).catch((e: unknown) => e);
    expect(PagewiseError.isInstance(error) && error.code).toBe('model-not-serializable');
  });

  it('names the URL, password hidden, and the setting when Redis does not answer', async () => {
    const error = await runBench({
      scenario: delayed('here'),
      tasks: 1,
      seed: 1,
      executor: queueExecutor({ url: 'redis://user:hunter22@127.0.0.1:1', urlSetting: '--queue' }),
    }).catch((e: unknown) => e);
    expect(PagewiseError.isInstance(error) && error.code).toBe('redis-unreachable');
    const message = (error as Error).message;
    expect(message).toMatch(
      /^Cannot reach Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:1 \(.+\)\. Start Redis there, or fix the URL given with --queue\.$/,
    );
    expect(message).not.toContain('hunter22');
  });

  it('the worker names --redis the same way', async () => {
    await expect(startEpisodeWorker({ url: 'redis://:hunter22@127.0.0.1:1', urlSetting: '--redis' })).rejects.toThrow(
      /redis:\/\/:\*\*\*@127\.0\.0\.1:1 .*--redis\.$/,
    );
    await expect(startEpisodeWorker({ url: 'redis://127.0.0.1:1', concurrency: 0 })).rejects.toThrow(
      /concurrency must be a positive integer, got 0/,
    );
  });
});

if (!url) {
  skipRedis('queue executor with Redis');
} else {
  describe('queue executor with Redis', () => {
    const prefix = uniquePrefix('queue');
    const workers: EpisodeWorker[] = [];
    const start = async (
      name: string,
      extra: { onEvent?: (e: EpisodeWorkerEvent) => void; scenarios?: (n: string) => BenchScenario } = {},
    ) => {
      const worker = await startEpisodeWorker({
        url,
        prefix,
        lockDurationMs: 2000,
        stalledIntervalMs: 1000,
        scenarios: () => delayed(name),
        ...extra,
      });
      workers.push(worker);
      return worker;
    };
    const executor = (notices: QueueNotice[] = []) =>
      queueExecutor({ url, prefix, pollIntervalMs: 500, onNotice: (n) => notices.push(n) });

    // The producer looks the scenario up by name only to send that name; workers use their own lookup.
    beforeAll(() => registerScenario(delayed('here'), { replace: true }));
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.close({ release: true })));
    });
    afterAll(async () => {
      unregisterScenario(SCENARIO);
      await deletePrefix(url, prefix);
    });

    it('two workers run every episode and the saved runs equal an in-process run, in the same order', async () => {
      await start('w1');
      await start('w2');
      const options = { scenario: delayed('here'), n: [2, 5], tasks: 4, seed: 3, contextWindow: 500 };
      const progress: BenchProgress[] = [];
      const queued = await runBench({ ...options, executor: executor(), onProgress: (p) => progress.push(p) });
      const local = await runBench(options);
      expect(comparable(queued)).toEqual(comparable(local));
      expect(queued.runs.episodes).toHaveLength(16);
      expect(queued.results).toEqual(local.results.map((r) => ({ ...r, wallMs: expect.any(Number) })));
      // Both workers took part, and progress counted every episode once.
      const by = new Set(queued.runs.episodes.map((e) => /by (\w+)$/.exec(e.answer)?.[1]));
      expect([...by].sort()).toEqual(['w1', 'w2']);
      expect(progress.map((p) => p.done)).toEqual(Array.from({ length: 17 }, (_, i) => i));
      // The run removed its jobs.
      const queue = new Queue(EPISODE_QUEUE, { connection: { url }, prefix });
      expect(Object.values(await queue.getJobCounts()).reduce((a, b) => a + b, 0)).toBe(0);
      await queue.close();
    });

    it('two runs on one queue at once keep their outcomes apart', async () => {
      await start('w1');
      await start('w2');
      const first = { scenario: delayed('here'), tasks: 5, seed: 1 };
      const second = { scenario: delayed('here'), tasks: 3, seed: 2, strategies: ['fifo'] };
      const [qa, qb] = await Promise.all([
        runBench({ ...first, executor: executor() }),
        runBench({ ...second, executor: executor() }),
      ]);
      expect(comparable(qa)).toEqual(comparable(await runBench(first)));
      expect(comparable(qb)).toEqual(comparable(await runBench(second)));
    });

    it('an episode a worker cannot run fails the run with the reason', async () => {
      await start('w1', {
        scenarios: (name) => {
          throw new Error(`no scenario "${name}" in this worker`);
        },
      });
      await expect(runBench({ scenario: delayed('here'), tasks: 2, seed: 1, executor: executor() })).rejects.toThrow(
        /Episode .+ failed on its worker: no scenario "test-queue" in this worker\. .*same pagewise version/,
      );
    });

    it('with no worker it says so, and an abort takes the waiting episodes off the queue', async () => {
      const notices: QueueNotice[] = [];
      const controller = new AbortController();
      const run = runBench({
        scenario: delayed('here'),
        tasks: 3,
        seed: 1,
        signal: controller.signal,
        executor: executor(notices),
      });
      await expect.poll(() => notices.map((n) => n.kind), { timeout: 5000 }).toContain('no-workers');
      expect(notices[0]?.message).toMatch(
        /No worker is connected .* 6 episodes wait until one starts: pagewise worker --redis <url> --prefix pw-test-queue-/,
      );
      controller.abort();
      await expect(run).rejects.toThrow(/aborted/);
      const queue = new Queue(EPISODE_QUEUE, { connection: { url }, prefix });
      expect(await queue.getJobCounts('wait', 'active')).toEqual({ wait: 0, active: 0 });
      await queue.close();
    });

    it('a worker closed with release puts its episode back, and another worker finishes it', async () => {
      const slow = (name: string): BenchScenario => ({
        ...delayed(name),
        prepare: async (p) => (await delayed(name).prepare(p)).map((t) => ({ ...t, delayMs: 3000 })),
      });
      registerScenario(slow('here'), { replace: true });
      try {
        const events: EpisodeWorkerEvent[] = [];
        const first = await start('w1', { scenarios: () => slow('w1'), onEvent: (e) => events.push(e) });
        const run = runBench({ scenario: slow('here'), tasks: 1, seed: 1, strategies: ['none'], executor: executor() });
        await expect.poll(() => events.map((e) => e.type), { timeout: 5000 }).toContain('started');
        const closed = performance.now();
        await first.close({ release: true });
        // Released, not finished: closing did not wait out the 3 s episode.
        expect(performance.now() - closed).toBeLessThan(2000);
        expect(events.map((e) => e.type)).toEqual(['started', 'released']);
        await start('w2', {
          scenarios: () => ({
            ...slow('w2'),
            runEpisode: (task, context) => delayed('w2').runEpisode({ ...task, delayMs: 0 }, context),
          }),
        });
        const report = await run;
        expect(report.runs.episodes.map((e) => e.answer)).toEqual(['task 0 by w2']);
      } finally {
        registerScenario(delayed('here'), { replace: true });
      }
    });

    it('a worker closed without release finishes its episode first', async () => {
      const events: EpisodeWorkerEvent[] = [];
      const slow: BenchScenario = {
        ...delayed('w1'),
        runEpisode: async (task, context) => (await sleep(800), delayed('w1').runEpisode(task, context)),
      };
      const worker = await start('w1', { scenarios: () => slow, onEvent: (e) => events.push(e) });
      const run = runBench({
        scenario: delayed('here'),
        tasks: 1,
        seed: 1,
        strategies: ['none'],
        executor: executor(),
      });
      await expect.poll(() => events.map((e) => e.type), { timeout: 5000 }).toContain('started');
      await worker.close();
      expect(events.map((e) => e.type)).toEqual(['started', 'finished']);
      expect((await run).runs.episodes.map((e) => e.answer)).toEqual(['task 0 by w1']);
    });
  });
}
