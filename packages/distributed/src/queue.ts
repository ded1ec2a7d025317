/**
 * The producer side of distributed episodes: an episode executor for `runBench` that adds each episode
 * as a BullMQ job and gathers the outcomes the workers return, in the order the harness gave them, so a
 * run through the queue saves the same episodes as a run in one process.
 */
import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents, QueueKeys } from 'bullmq';
import type { EpisodeBatch, EpisodeExecutor, EpisodeJob, EpisodeOutcome } from '@pagewise/lab';
import { AbortedError, ConfigurationError, SystemError } from 'pagewise';
import {
  assertJsonData,
  DEFAULT_QUEUE_PREFIX,
  EPISODE_JOB_SCHEMA,
  EPISODE_QUEUE,
  episodeJobId,
  parseEpisodeOutcome,
  type EpisodeJobData,
} from './job.js';
import { checkRedis, redactRedisUrl, redisConnection } from './redis.js';

/** Something the producer thinks the user should know while it waits. */
export interface QueueNotice {
  /**
   * `no-workers`: no worker is connected, so nothing will run until one starts; `stalled`: a worker lost
   * an episode (it died or hung) and BullMQ put it back in the queue; `connection`: a Redis error.
   */
  kind: 'no-workers' | 'stalled' | 'connection';
  message: string;
  /** The episode's job id, for `stalled`. */
  jobId?: string;
}

/** Options of {@link queueExecutor}. */
export interface QueueExecutorOptions {
  /** Redis URL, e.g. `redis://127.0.0.1:6379`. */
  url: string;
  /** Key prefix in Redis; workers must use the same one. Default {@link DEFAULT_QUEUE_PREFIX}. */
  prefix?: string;
  /** Id of the run, in every job id; a fresh one by default. Reusing one picks up a run's finished jobs. */
  runId?: string;
  /** Where the URL came from, named in errors (`--queue` on the command line). Default `url`. */
  urlSetting?: string;
  /** Milliseconds between checks of unfinished jobs in Redis, a safety net under the event stream. Default 10000. */
  pollIntervalMs?: number;
  /** Hours a finished job is kept when the producer could not remove it (it died). Default 24. */
  keepHours?: number;
  onNotice?: (notice: QueueNotice) => void;
}

/** Attempts of an episode job: the first, and one for each of two releases by workers shutting down. */
export const EPISODE_ATTEMPTS = 3;

/** A fresh run id: time-ordered, so a listing of the queue's keys reads in run order. */
export function newRunId(): string {
  return `run-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/**
 * An episode executor that runs the episodes on workers (`pagewise worker --redis <url>`) through a
 * BullMQ queue in Redis. Workers may come and go during the run: an episode whose worker dies is put
 * back in the queue by BullMQ once its lock expires, and run again elsewhere. The model must be a spec
 * string, which every worker resolves with its own environment (API keys); the episode's scenario must
 * be registered in the workers.
 *
 * @throws ConfigurationError before anything is queued for a model instance, a task that is not JSON,
 *   two tasks with one id, or a URL that is not a Redis URL.
 * @throws SystemError `redis-unreachable` when Redis does not answer, `episode-failed` when a worker could
 *   not run an episode (unknown scenario, a bug), `invalid-outcome` for a reply that is not an outcome.
 * @example
 * const report = await runBench({ scenario: getScenario('report-analysis'), tasks: 8, seed: 1,
 *   executor: queueExecutor({ url: 'redis://127.0.0.1:6379' }) });
 */
export function queueExecutor(options: QueueExecutorOptions): EpisodeExecutor {
  const setting = options.urlSetting ?? 'url';
  redisConnection(options.url, setting);
  return (batch) => runThroughQueue(batch, options, setting);
}

/** The jobs of a batch keyed by job id, each with the data a worker receives; refuses what cannot be sent. */
function episodeJobs(batch: EpisodeBatch, runId: string): Map<string, { job: EpisodeJob; data: EpisodeJobData }> {
  if (typeof batch.model !== 'string') {
    throw new ConfigurationError(
      'model-not-serializable',
      'A run through a queue needs the model as a spec string ("offline", "openai:gpt-4.1-mini"): a model instance cannot be sent to workers. Pass its spec, or run in process.',
    );
  }
  const byId = new Map<string, { job: EpisodeJob; data: EpisodeJobData }>();
  for (const job of batch.jobs) {
    assertJsonData(job.task, `task ${job.task.id} of ${batch.scenario.name}`);
    const id = episodeJobId(runId, job);
    if (byId.has(id))
      throw new ConfigurationError(
        'duplicate-task-id',
        `Scenario ${batch.scenario.name} has two tasks with id "${job.task.id}" (strategy ${job.strategy}, N ${job.n ?? '-'}); task ids must be unique to run through a queue.`,
      );
    const data: EpisodeJobData = {
      schema: EPISODE_JOB_SCHEMA,
      runId,
      index: job.index,
      scenario: batch.scenario.name,
      n: job.n,
      strategy: job.strategy,
      task: job.task,
      model: batch.model,
      contextWindow: batch.contextWindow ?? null,
      budget: batch.budget ?? null,
      modelTimeoutMs: batch.modelTimeoutMs ?? null,
    };
    byId.set(id, { job, data });
  }
  return byId;
}

/**
 * The outcomes of one run as they arrive, from the event stream or a sweep (either may see a job first):
 * each episode is taken once, and the run settles on the last outcome or on the first failure.
 */
class OutcomeTracker {
  readonly outcomes: EpisodeOutcome[];
  readonly pending: Set<string>;
  readonly finished: Promise<void>;
  settled = false;
  private resolve!: () => void;
  private reject!: (error: Error) => void;

  constructor(
    private readonly byId: Map<string, { job: EpisodeJob; data: EpisodeJobData }>,
    private readonly batch: EpisodeBatch,
  ) {
    this.outcomes = new Array(batch.jobs.length);
    this.pending = new Set(byId.keys());
    this.finished = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // An episode can fail while the jobs are still being added; the rejection is awaited by the run.
    this.finished.catch(() => undefined);
  }

  settle(error?: Error): void {
    this.settled = true;
    if (error) this.reject(error);
    else this.resolve();
  }

  complete(id: string, value: unknown): void {
    const job = this.byId.get(id)?.job;
    if (this.settled || !job || !this.pending.has(id)) return;
    const outcome = parseEpisodeOutcome(value, job);
    if (typeof outcome === 'string') {
      this.settle(
        new SystemError(
          'invalid-outcome',
          `Episode ${id} came back from its worker as ${outcome}. Run workers of the same pagewise version as the producer.`,
        ),
      );
      return;
    }
    this.pending.delete(id);
    this.outcomes[job.index] = outcome;
    try {
      this.batch.onEpisode(job, outcome);
    } catch (error) {
      // Thrown inside the event reader it would stop the reader; the caller's error ends the run instead.
      this.settle(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.pending.size === 0) this.settle();
  }

  fail(id: string, reason: string): void {
    if (this.settled || !this.pending.has(id)) return;
    if (/stalled more than allowable limit/.test(reason)) {
      this.settle(
        new SystemError(
          'episode-lost',
          `Episode ${id} was lost by its workers more often than they allow (maxStalledCount): each died or was blocked past its lock during the episode. Look for crashes in the workers' logs, or raise --lock-duration or --max-stalled on the workers.`,
        ),
      );
      return;
    }
    this.settle(
      new SystemError(
        'episode-failed',
        `Episode ${id} failed on its worker: ${reason}. Episodes report their own errors, so this is a worker problem: check that the workers run the same pagewise version and have the scenario registered.`,
      ),
    );
  }
}

async function runThroughQueue(
  batch: EpisodeBatch,
  options: QueueExecutorOptions,
  setting: string,
): Promise<EpisodeOutcome[]> {
  const { jobs, signal } = batch;
  const byId = episodeJobs(batch, options.runId ?? newRunId());
  if (jobs.length === 0) return [];
  if (signal?.aborted) throw new AbortedError('The benchmark was aborted.');

  const where = redactRedisUrl(options.url);
  const prefix = options.prefix ?? DEFAULT_QUEUE_PREFIX;
  const connection = redisConnection(options.url, setting);
  // Events are read from the last one in the stream before any job is added, so an episode that
  // finishes before the event reader's first XREAD is still seen.
  const eventsKey = new QueueKeys(prefix).toKey(EPISODE_QUEUE, 'events');
  const lastEventId =
    (await checkRedis(
      options.url,
      setting,
      async (client) => (await client.xrevrange(eventsKey, '+', '-', 'COUNT', 1))[0]?.[0],
    )) ?? '0-0';
  const queue = new Queue<EpisodeJobData, EpisodeOutcome>(EPISODE_QUEUE, { connection, prefix });
  let events: QueueEvents | undefined;
  let lastError = '';
  const run = new OutcomeTracker(byId, batch);
  const { pending } = run;
  const complete = (id: string, value: unknown) => run.complete(id, value);
  const fail = (id: string, reason: string) => run.fail(id, reason);
  const onError = (error: Error) => {
    // ioredis reports every reconnect attempt; one line per distinct failure is enough. Once the run is
    // over, closing connections may still report; nobody waits for them.
    if (run.settled || error.message === lastError) return;
    lastError = error.message;
    options.onNotice?.({
      kind: 'connection',
      message: `Redis at ${where}: ${error.message} (retrying; check the server or the URL given with ${setting})`,
    });
  };
  queue.on('error', onError);
  const onAbort = () => run.settle(new AbortedError('The benchmark was aborted.'));
  signal?.addEventListener('abort', onAbort, { once: true });

  let poller: NodeJS.Timeout | undefined;
  let workersSeen = true;
  // Looks at the unfinished jobs in Redis: events can be missed (a stream trimmed while reconnecting, a
  // rerun of a run id whose jobs finished before this producer listened).
  const sweep = async () => {
    const ids = [...pending];
    for (let batchStart = 0; batchStart < ids.length; batchStart += 100) {
      const found = await Promise.all(
        ids.slice(batchStart, batchStart + 100).map(async (id) => [id, await queue.getJob(id)] as const),
      );
      for (const [id, job] of found) {
        if (!job) fail(id, 'the job was removed from the queue before it finished');
        else if (job.finishedOn !== undefined && job.failedReason === undefined) complete(id, job.returnvalue);
        else if (job.finishedOn !== undefined) fail(id, job.failedReason ?? 'unknown reason');
      }
    }
    await warnWithoutWorkers();
  };
  const warnWithoutWorkers = async () => {
    let count: number;
    try {
      count = await queue.getWorkersCount();
    } catch {
      return; // CLIENT LIST may be disabled on a managed Redis; the count is only for a hint.
    }
    if (count === 0 && workersSeen && pending.size > 0) {
      options.onNotice?.({
        kind: 'no-workers',
        message: `No worker is connected to the episode queue at ${where} (prefix "${prefix}"); ${pending.size} episodes wait until one starts: pagewise worker --redis <url>${prefix === DEFAULT_QUEUE_PREFIX ? '' : ` --prefix ${prefix}`}`,
      });
    }
    workersSeen = count > 0;
  };

  try {
    events = new QueueEvents(EPISODE_QUEUE, { connection, prefix, lastEventId });
    events.on('error', onError);
    events.on('completed', ({ jobId, returnvalue }) => complete(jobId, returnvalue));
    events.on('failed', ({ jobId, failedReason }) => fail(jobId, failedReason));
    events.on('stalled', ({ jobId }) => {
      if (pending.has(jobId))
        options.onNotice?.({
          kind: 'stalled',
          jobId,
          message: `Episode ${jobId} lost its worker; it is back in the queue for another worker.`,
        });
    });
    await events.waitUntilReady();
    await queue.waitUntilReady();
    const keepSeconds = (options.keepHours ?? 24) * 3600;
    await queue.addBulk(
      [...byId].map(([jobId, { data }]) => ({
        name: data.scenario,
        data,
        opts: {
          jobId,
          // A worker that releases its episodes at shutdown stops their processes, which fails the
          // attempt: the next attempt runs the episode elsewhere. A job that is not an episode, or of a
          // scenario a worker lacks, fails at once (UnrecoverableError); a worker that dies is handled
          // by the stalled check, not by attempts.
          attempts: EPISODE_ATTEMPTS,
          removeOnComplete: { age: keepSeconds },
          removeOnFail: { age: keepSeconds },
        },
      })),
    );
    await sweep();
    const pollMs = options.pollIntervalMs ?? 10_000;
    const poll = () => {
      if (run.settled) return;
      poller = setTimeout(() => {
        sweep().then(poll, (error: unknown) => {
          onError(error instanceof Error ? error : new Error(String(error)));
          poll();
        });
      }, pollMs);
    };
    poll();
    await run.finished;
    return run.outcomes;
  } finally {
    // Also when adding failed: no sweep may start once the connections close.
    run.settled = true;
    signal?.removeEventListener('abort', onAbort);
    if (poller) clearTimeout(poller);
    // Finished jobs of this run are of no further use; waiting ones of an aborted run must not run.
    // A job active on a worker is locked and stays until `keepHours`.
    await Promise.all([...byId.keys()].map((id) => queue.remove(id).catch(() => 0)));
    await events?.close();
    await queue.close();
  }
}
