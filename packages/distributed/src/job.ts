/**
 * What travels through the episode queue: the job a producer adds (enough for any worker to rebuild and
 * run the episode) and the outcome a worker returns. Both cross a process boundary as JSON, so both are
 * validated when they arrive.
 */
import { z } from 'zod';
import type { EpisodeJob, EpisodeOutcome, ScenarioTask } from '@pagewise/lab';
import { ConfigurationError } from 'pagewise';
import { EpisodeOutcomeSchema } from '@pagewise/lab';

/** Name of the BullMQ queue that carries episodes; one per key prefix. */
export const EPISODE_QUEUE = 'episodes';

/** Default key prefix of the queue in Redis; producers and workers must use the same one. */
export const DEFAULT_QUEUE_PREFIX = 'pagewise';

/** Version of {@link EpisodeJobData}. */
export const EPISODE_JOB_SCHEMA = 1;

/** The data of one episode job. */
export interface EpisodeJobData {
  schema: typeof EPISODE_JOB_SCHEMA;
  /** The benchmark run the episode belongs to; concurrent runs share the queue, not their results. */
  runId: string;
  /** The episode's place in the run's saved episodes. */
  index: number;
  /** The scenario's name in the worker's registry. */
  scenario: string;
  n: number | null;
  strategy: string;
  /** The task as the scenario prepared it (tasks are JSON by contract). */
  task: ScenarioTask;
  /** A model spec string; an instance cannot cross processes. */
  model: string;
  /** The context window asked for, or null for the model's known window. */
  contextWindow: number | null;
  /** The run's prompt-token budget; absent or null for none. */
  budget?: number | null;
  /** Per-attempt timeout of model calls in ms; absent or null for the runner's default. */
  modelTimeoutMs?: number | null;
}

const EpisodeJobDataSchema = z.object({
  schema: z.literal(EPISODE_JOB_SCHEMA),
  runId: z.string().min(1),
  index: z.number().int().nonnegative(),
  scenario: z.string().min(1),
  n: z.number().int().positive().nullable(),
  strategy: z.string().min(1),
  task: z.looseObject({ id: z.string(), prompt: z.string() }),
  model: z.string().min(1),
  contextWindow: z.number().int().nonnegative().nullable(),
  budget: z.number().int().positive().nullable().optional(),
  modelTimeoutMs: z.number().int().positive().nullable().optional(),
});

/**
 * Validates the data of a job taken from the queue.
 *
 * @throws ConfigurationError naming the job: written by a newer pagewise, or not an episode job at all.
 */
export function parseEpisodeJobData(data: unknown, jobId: string): EpisodeJobData {
  const version = (data as { schema?: unknown } | null)?.schema;
  if (typeof version === 'number' && version !== EPISODE_JOB_SCHEMA) {
    throw new ConfigurationError(
      'unsupported-job-schema',
      `Job ${jobId} has episode schema ${version}; this worker reads ${EPISODE_JOB_SCHEMA}. Run workers of the same pagewise version as the producer.`,
    );
  }
  const parsed = EpisodeJobDataSchema.safeParse(data);
  if (!parsed.success)
    throw new ConfigurationError(
      'invalid-job',
      `Job ${jobId} is not a pagewise episode: ${z.prettifyError(parsed.error)}`,
      parsed.error,
    );
  return parsed.data as EpisodeJobData;
}

/**
 * Validates the outcome a worker returned for `job`.
 *
 * @returns an error message when it is not a valid outcome of that episode, else the outcome.
 */
export function parseEpisodeOutcome(value: unknown, job: EpisodeJob): EpisodeOutcome | string {
  const parsed = EpisodeOutcomeSchema.safeParse(value);
  if (!parsed.success) return `not an episode outcome: ${z.prettifyError(parsed.error)}`;
  const outcome = parsed.data as EpisodeOutcome;
  if (outcome.taskId !== job.task.id || outcome.strategy !== job.strategy) {
    return `it is the outcome of task ${outcome.taskId} under ${outcome.strategy}, not of task ${job.task.id} under ${job.strategy}`;
  }
  return outcome;
}

/**
 * The job id of an episode: the same run, N, strategy and task always give the same id, so an episode
 * added twice (a producer retrying) is queued once. BullMQ ids may not contain `:`; the task id is
 * URI-encoded, which keeps distinct ids distinct.
 */
export function episodeJobId(runId: string, job: Pick<EpisodeJob, 'n' | 'strategy' | 'task'>): string {
  return [runId, job.n === null ? '-' : String(job.n), job.strategy, job.task.id].map(encodeURIComponent).join('.');
}

/**
 * Throws unless `value` is plain JSON data (objects, arrays, strings, finite numbers, booleans, null):
 * a Map, a Date or a function in a task would reach the worker changed, and its results would differ
 * from an in-process run's without any error.
 *
 * @throws ConfigurationError naming the path of the first value that is not JSON.
 */
export function assertJsonData(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return;
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => assertJsonData(v, `${path}[${i}]`));
    return;
  } else if (typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
    // An undefined property is dropped by JSON; the scenario reads it as missing either way.
    for (const [key, child] of Object.entries(value)) if (child !== undefined) assertJsonData(child, `${path}.${key}`);
    return;
  }
  const what = typeof value === 'object' ? (value.constructor?.name ?? 'object') : String(value);
  throw new ConfigurationError(
    'task-not-json',
    `${path} is ${what}, which a queue cannot carry: scenario tasks must be plain JSON data to run on workers. Run without a queue, or make the task JSON.`,
  );
}
