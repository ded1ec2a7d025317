/**
 * Queue throughput: benchmark episodes per second through the Redis episode queue with 1, 2 and 4
 * worker processes, beside the same episodes run in one process without a queue.
 *
 * The workload is report-analysis on the offline model (none and paging, a corpus of `n` reports), so
 * episodes are CPU-bound: more workers than cores cannot help, and the table says how many cores the
 * machine has. Each worker is this file run again as a child process (`node --import tsx`), which runs
 * its episodes in a sandbox process of its own, as `pagewise worker` does; workers start fresh for each configuration, which runs `warmups` times untimed (tokenizer loading and the JIT
 * happen in each process's first episodes) before the timed runs; every run has its own seed, so no
 * process has counted a timed run's text before. A rate is the episodes of a run divided by its
 * wall time, from queuing the first episode to gathering the last outcome. Each configuration runs
 * `repeats` times; the table shows the median and the range.
 *
 * Needs a Redis URL: PAGEWISE_BENCH_REDIS_URL or PAGEWISE_TEST_REDIS_URL; it uses a fresh key prefix
 * and deletes its keys afterwards.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getScenario, runBench, type BenchOptions, type BenchReport, registerStandardBench } from '@pagewise/lab';
import { queueExecutor, startEpisodeWorker, deleteKeysWithPrefix } from '@pagewise/distributed';
import { fmt, quantile } from './stats.js';

registerStandardBench();

const WORKER_ENV = 'PAGEWISE_BENCH_QUEUE_WORKER';
const DEFAULT_N = 164;
const SEEDS = { warmup: 9001, timed: 7001 };
// Named, so a strategy added to the scenario later does not change what is measured.
const STRATEGIES = ['none', 'paging'];
const here = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(here), '..');

interface WorkerTask {
  url: string;
  prefix: string;
}

/** Options of {@link main}. */
export interface QueueThroughputOptions {
  /** Redis URL; from the environment by default. */
  url?: string;
  /** Worker counts to measure. Default [1, 2, 4]. */
  workers?: number[];
  /** Corpus size. Default 164 (the seed's corpus): episodes of a few hundred milliseconds. */
  n?: number;
  /** Tasks per strategy (episodes = 2 × tasks, none and paging). Default 6. */
  tasks?: number;
  /** Untimed runs per configuration before the timed ones (JIT, tokenizer). Default 1. */
  warmups?: number;
  /** Timed runs per configuration. Default 3. */
  repeats?: number;
}

/** One row of the table. */
export interface QueueThroughputRow {
  /** `in process` or the number of worker processes. */
  setup: string;
  episodes: number;
  episodesPerSecond: { median: number; min: number; max: number };
}

async function workerMain(task: WorkerTask): Promise<void> {
  const worker = await startEpisodeWorker({ url: task.url, prefix: task.prefix });
  process.on('message', (message) => {
    if (message === 'stop') void worker.close().then(() => process.exit(0));
  });
  process.send?.('ready');
}

function startWorker(task: WorkerTask): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = fork(here, [], {
      cwd: root,
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, [WORKER_ENV]: JSON.stringify(task) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message) =>
      message === 'ready' ? resolve(child) : reject(new Error(`unexpected message from a worker: ${String(message)}`)),
    );
    child.once('exit', (code) => reject(new Error(`a worker exited with ${code} before it was ready`)));
  });
}

async function stopWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.send('stop');
        }),
    ),
  );
}

/** Measures episodes per second in process and through the queue; undefined without a Redis URL. */
export async function queueThroughput(options: QueueThroughputOptions = {}): Promise<QueueThroughputRow[] | undefined> {
  const url = options.url ?? process.env.PAGEWISE_BENCH_REDIS_URL ?? process.env.PAGEWISE_TEST_REDIS_URL;
  if (!url) return undefined;
  const prefix = `pw-bench-${process.pid}-${randomBytes(4).toString('hex')}`;
  const repeats = options.repeats ?? 3;
  const warmups = options.warmups ?? 1;
  const base: BenchOptions = {
    scenario: getScenario('report-analysis'),
    strategies: STRATEGIES,
    n: options.n ?? DEFAULT_N,
    tasks: options.tasks ?? 6,
    seed: SEEDS.timed,
  };
  const rows: QueueThroughputRow[] = [];
  // Token counts are cached by content in each process, so an episode run twice in one process costs
  // far less the second time. Every run has its own seed (its own corpus and questions), warm-ups use
  // seeds the timed runs never do, and each configuration starts fresh worker processes: the timed runs
  // of every configuration do the same work, with nothing counted before. The seeds are far from the
  // ones other benchmarks use, for when this runs after them in one process.
  const measure = async (setup: string, run: (seed: number) => Promise<BenchReport>) => {
    for (let warmup = 0; warmup < warmups; warmup++) await run(SEEDS.warmup + warmup);
    const rates: number[] = [];
    let episodes = 0;
    for (let repeat = 0; repeat < repeats; repeat++) {
      const started = performance.now();
      const report = await run(SEEDS.timed + repeat);
      episodes = report.runs.episodes.length;
      rates.push(episodes / ((performance.now() - started) / 1000));
    }
    rows.push({
      setup,
      episodes,
      episodesPerSecond: { median: quantile(rates, 0.5), min: Math.min(...rates), max: Math.max(...rates) },
    });
  };

  await measure('in process', (seed) => runBench({ ...base, seed }));
  const children: ChildProcess[] = [];
  try {
    for (const count of options.workers ?? [1, 2, 4]) {
      children.push(...(await Promise.all(Array.from({ length: count }, () => startWorker({ url, prefix })))));
      const executor = queueExecutor({ url, prefix, pollIntervalMs: 1000 });
      await measure(`${count} worker${count === 1 ? '' : 's'}`, (seed) => runBench({ ...base, seed, executor }));
      await stopWorkers(children.splice(0));
    }
  } finally {
    await stopWorkers(children);
    await deleteKeysWithPrefix(url, prefix);
  }
  return rows;
}

/** Prints the benchmark as a markdown table. */
export async function main(options: QueueThroughputOptions = {}): Promise<void> {
  const rows = await queueThroughput(options);
  if (!rows) {
    console.log(
      '\n## queue-throughput: skipped: set PAGEWISE_BENCH_REDIS_URL or PAGEWISE_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379)',
    );
    return;
  }
  const episodeCount = options.n ?? DEFAULT_N;
  console.log(
    `\n## queue-throughput: episodes per second through the Redis queue (report-analysis ${STRATEGIES.join(' and ')}, offline model, N = ${episodeCount}, ${os.availableParallelism()} cores)\n`,
  );
  console.log('| setup | episodes per run | episodes/s (median) | range | vs in process |');
  console.log('|---|---:|---:|---:|---:|');
  const inProcess = rows[0]?.episodesPerSecond.median ?? NaN;
  for (const row of rows) {
    const rate = row.episodesPerSecond;
    console.log(
      `| ${row.setup} | ${row.episodes} | ${fmt(rate.median, 1)} | ${fmt(rate.min, 1)}–${fmt(rate.max, 1)} | ${fmt(rate.median / inProcess, 2)}× |`,
    );
  }
}

const task = process.env[WORKER_ENV];
if (task) await workerMain(JSON.parse(task) as WorkerTask);
else if (process.argv[1] && path.resolve(process.argv[1]) === here) await main();
