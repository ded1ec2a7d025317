/**
 * Runs the episode of one job: the scenario from a lookup (the registry by default), the task and
 * settings from the job's data. Shared by the worker's own thread and its sandboxed worker threads.
 */
import { UnrecoverableError } from 'bullmq';
import type { BenchScenario, EpisodeContext, EpisodeOutcome } from '@pagewise/lab';
import { parseEpisodeJobData } from './job.js';

/**
 * Runs the episode a job describes and returns its outcome.
 *
 * @throws UnrecoverableError when the job is not a valid episode or its scenario is unknown here: the
 *   same job would fail the same way on every worker of this version.
 */
export async function runEpisodeJob(
  data: unknown,
  jobId: string,
  lookup: (name: string) => BenchScenario,
  signal?: AbortSignal,
): Promise<EpisodeOutcome> {
  let scenario: BenchScenario;
  let job;
  try {
    job = parseEpisodeJobData(data, jobId);
    scenario = lookup(job.scenario);
  } catch (error) {
    throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
  }
  const context: EpisodeContext = {
    strategy: job.strategy,
    model: job.model,
    ...(job.contextWindow !== null ? { contextWindow: job.contextWindow } : {}),
    ...(job.budget !== undefined && job.budget !== null ? { budget: job.budget } : {}),
    ...(job.modelTimeoutMs !== undefined && job.modelTimeoutMs !== null ? { modelTimeoutMs: job.modelTimeoutMs } : {}),
    ...(signal ? { signal } : {}),
  };
  return scenario.runEpisode(job.task, context);
}
