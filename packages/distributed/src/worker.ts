/**
 * The worker side of distributed episodes: takes episode jobs from the BullMQ queue, rebuilds each
 * episode from the job (the scenario from the registry, the task from the job's JSON) and returns its
 * outcome. A worker that dies loses nothing: its job's lock expires and another worker's stalled check
 * puts the episode back in the queue.
 *
 * Episodes run in BullMQ's sandboxed child processes. An episode of the offline model is CPU-bound and
 * never waits on I/O, so in the worker's own process it would starve the timers that renew its lock:
 * the episode would be taken for stalled and run again elsewhere, and signals would wait for its end.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WaitingError, Worker, type Job, type Processor } from 'bullmq';
import type { BenchScenario, EpisodeOutcome } from '@pagewise/lab';
import { ConfigurationError } from 'pagewise';
import { DEFAULT_QUEUE_PREFIX, EPISODE_QUEUE, type EpisodeJobData } from './job.js';
import { checkRedis, redactRedisUrl, redisConnection } from './redis.js';
import type { SandboxProgress } from './episode-processor.js';
import { runEpisodeJob } from './run-episode.js';

/** Default milliseconds a worker's lock on an episode lasts without renewal (BullMQ's default). */
export const DEFAULT_LOCK_DURATION_MS = 30_000;
/** Default milliseconds between checks for episodes whose worker lost its lock (BullMQ's default). */
export const DEFAULT_STALLED_INTERVAL_MS = 30_000;
/** Default times one episode may lose its worker before it fails the run. */
export const DEFAULT_MAX_STALLED = 2;

/** What a worker reports as it goes. */
export type EpisodeWorkerEvent =
  | { type: 'started'; jobId: string; scenario: string; strategy: string; taskId: string; n: number | null }
  | { type: 'finished'; jobId: string; success: boolean; ms: number }
  /** The episode threw (it could not be run); the producer's run fails with this message. */
  | { type: 'failed'; jobId: string; message: string }
  /** The episode was stopped by `close({ release: true })`; it is back in the queue. */
  | { type: 'released'; jobId: string }
  /**
   * The episode's lock expired while it ran (the worker was blocked longer than the lock duration), so
   * another worker took it over and this worker's outcome was dropped.
   */
  | { type: 'lock-lost'; jobId: string }
  | { type: 'error'; message: string };

/** Options of {@link startEpisodeWorker}. */
export interface EpisodeWorkerOptions {
  /** Redis URL, e.g. `redis://127.0.0.1:6379`. */
  url: string;
  /** Key prefix in Redis; the producer must use the same one. Default {@link DEFAULT_QUEUE_PREFIX}. */
  prefix?: string;
  /** Episodes run at once, each in its own child process. Default 1. */
  concurrency?: number;
  /**
   * Milliseconds the lock on a running episode lasts; renewed at half of it while the worker lives, so
   * a dead worker's episode is retried this long after it died. Default {@link DEFAULT_LOCK_DURATION_MS}.
   */
  lockDurationMs?: number;
  /** Milliseconds between checks for episodes whose lock expired. Default {@link DEFAULT_STALLED_INTERVAL_MS}. */
  stalledIntervalMs?: number;
  /** Times one episode may be recovered from a dead worker before it fails. Default {@link DEFAULT_MAX_STALLED}. */
  maxStalled?: number;
  /**
   * Finds a job's scenario, for scenarios outside the registry. A function cannot be sent to a child
   * process, so with it episodes run in the worker's own process: they must wait on I/O now and then (a
   * hosted model does), or the lock duration must exceed the longest episode.
   */
  scenarios?: (name: string) => BenchScenario;
  /** Where the URL came from, named in errors (`--redis` on the command line). Default `url`. */
  urlSetting?: string;
  onEvent?: (event: EpisodeWorkerEvent) => void;
}

/** A running worker. */
export interface EpisodeWorker {
  /** BullMQ's id of the worker. */
  readonly id: string;
  /**
   * Stops taking episodes and closes the connections. By default the episodes in progress finish first;
   * with `release` they are stopped at once and go back to the queue for another worker.
   */
  close(options?: { release?: boolean }): Promise<void>;
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < 1)
    throw new ConfigurationError('invalid-option', `${name} must be a positive integer, got ${chosen}.`);
  return chosen;
}

/** The sandbox processor beside this module (`.ts` when run from source), and how a child loads it. */
function sandbox(): { file: string; execArgv: string[] } {
  const self = fileURLToPath(import.meta.url);
  const file = path.join(path.dirname(self), `episode-processor${path.extname(self)}`);
  // From source (tests, tsx), the child needs the TypeScript loader the process may not have.
  const needsLoader = file.endsWith('.ts') && !process.execArgv.some((a) => a.includes('tsx'));
  return { file, execArgv: [...process.execArgv, ...(needsLoader ? ['--import', 'tsx'] : [])] };
}

/**
 * Connects to Redis and starts taking episode jobs.
 *
 * @throws ConfigurationError for an option out of range or a URL that is not a Redis URL.
 * @throws SystemError `redis-unreachable` naming the URL (password redacted) and the setting.
 * @example
 * const worker = await startEpisodeWorker({ url: 'redis://127.0.0.1:6379', onEvent: console.log });
 * process.once('SIGTERM', () => worker.close());
 */
export async function startEpisodeWorker(options: EpisodeWorkerOptions): Promise<EpisodeWorker> {
  const setting = options.urlSetting ?? 'url';
  const connection = redisConnection(options.url, setting);
  const concurrency = positiveInt('concurrency', options.concurrency, 1);
  const lockDuration = positiveInt('lockDurationMs', options.lockDurationMs, DEFAULT_LOCK_DURATION_MS);
  const stalledInterval = positiveInt('stalledIntervalMs', options.stalledIntervalMs, DEFAULT_STALLED_INTERVAL_MS);
  const maxStalledCount = positiveInt('maxStalled', options.maxStalled, DEFAULT_MAX_STALLED);
  const emit = options.onEvent ?? (() => undefined);
  await checkRedis(options.url, setting);

  let releasing = false;
  const lookup = options.scenarios;
  // Three parameters: BullMQ passes the abort signal only to a processor that declares it.
  const inProcess: Processor<EpisodeJobData, EpisodeOutcome> | undefined =
    lookup &&
    (async (job, token, signal) => {
      try {
        return await runEpisodeJob(job.data, job.id ?? '?', lookup, signal);
      } catch (error) {
        if (!(releasing && signal?.aborted && token)) throw error;
        await job.moveToWait(token);
        emit({ type: 'released', jobId: job.id ?? '?' });
        // Tells BullMQ the job was moved, not failed.
        throw new WaitingError();
      }
    });
  const sandboxed = sandbox();
  const worker = new Worker<EpisodeJobData, EpisodeOutcome>(EPISODE_QUEUE, inProcess ?? sandboxed.file, {
    connection,
    prefix: options.prefix ?? DEFAULT_QUEUE_PREFIX,
    concurrency,
    lockDuration,
    stalledInterval,
    maxStalledCount,
    ...(inProcess ? {} : { workerForkOptions: { execArgv: sandboxed.execArgv } }),
    // Started below, once the listeners are on: an unheard 'error' event would crash the process.
    autorun: false,
  });

  // The child process of each sandboxed episode, reported as the job's progress.
  const pids = new Map<string, number>();
  const released = new Set<string>();
  // A process busy with an episode reads no message, so it is stopped; BullMQ counts the attempt as
  // failed and puts the job back in the queue for its next one (the producer allows retries).
  const stop = (id: string, pid: number) => {
    released.add(id);
    try {
      process.kill(pid, 'SIGKILL');
      emit({ type: 'released', jobId: id });
    } catch {
      // Already gone: its episode ended on its own.
    }
  };
  const started = new Map<string, number>();
  worker.on('active', (job: Job<EpisodeJobData, EpisodeOutcome>) => {
    const data = job.data;
    started.set(job.id ?? '?', performance.now());
    emit({
      type: 'started',
      jobId: job.id ?? '?',
      scenario: String(data?.scenario),
      strategy: String(data?.strategy),
      taskId: String(data?.task?.id),
      n: data?.n ?? null,
    });
  });
  worker.on('completed', (job, outcome) => {
    const id = job.id ?? '?';
    pids.delete(id);
    emit({
      type: 'finished',
      jobId: id,
      success: outcome.success === true,
      ms: performance.now() - (started.get(id) ?? performance.now()),
    });
    started.delete(id);
  });
  worker.on('progress', (job, progress) => {
    const pid = (progress as Partial<SandboxProgress> | undefined)?.pid;
    if (!job.id || typeof pid !== 'number') return;
    pids.set(job.id, pid);
    // Released while its process was still starting.
    if (releasing) stop(job.id, pid);
  });
  worker.on('failed', (job, error) => {
    const id = job?.id ?? '?';
    started.delete(id);
    pids.delete(id);
    // A released episode "fails" because its process was stopped; BullMQ retries it elsewhere.
    if (!released.has(id)) emit({ type: 'failed', jobId: id, message: error.message });
  });
  const where = redactRedisUrl(options.url);
  let lastError = '';
  worker.on('error', (error) => {
    const lost = /^Missing lock for job (.+)\. \w+$/.exec(error.message);
    if (lost?.[1]) {
      emit({ type: 'lock-lost', jobId: lost[1] });
      return;
    }
    // ioredis reports every reconnect attempt; one line per distinct failure is enough.
    if (error.message === lastError) return;
    lastError = error.message;
    emit({
      type: 'error',
      message: `Redis at ${where}: ${error.message} (retrying; check the server or the URL given with ${setting})`,
    });
  });
  const running = worker.run();
  await worker.waitUntilReady();

  let closing: Promise<void> | undefined;
  const close = async (closeOptions: { release?: boolean } = {}) => {
    if (closeOptions.release && !releasing) {
      releasing = true;
      if (inProcess) worker.cancelAllJobs('the worker is shutting down');
      for (const [id, pid] of pids) stop(id, pid);
    }
    closing ??= worker.close().then(() => running);
    await closing;
  };
  return { id: worker.id, close };
}
