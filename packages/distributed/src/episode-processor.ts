/**
 * The processor a worker runs in its sandboxed child processes (BullMQ loads this file by path): the
 * episode of a job, its scenario from the registry. A CPU-bound episode (the offline model) here keeps
 * the worker's own process free to renew its locks, answer signals and check for stalled episodes.
 */
import type { SandboxedJob } from 'bullmq';
import { getScenario, registerStandardBench } from '@pagewise/lab';
import type { EpisodeOutcome } from '@pagewise/lab';
import type { EpisodeJobData } from './job.js';
import { runEpisodeJob } from './run-episode.js';

/** What the sandbox reports as the job's progress when it starts an episode. */
export interface SandboxProgress {
  /** The process running the episode: a worker releasing its episodes stops it, busy as it is. */
  pid: number;
}

// The worker this child reports to. A child whose worker died (SIGKILL) must not report: writing to
// the closed channel fails, and the sandbox's error handling then fails the same way without end,
// spinning a core.
const worker = process.ppid;

/** Runs the job's episode. */
export default async function processEpisode(
  job: SandboxedJob<EpisodeJobData, EpisodeOutcome>,
): Promise<EpisodeOutcome> {
  registerStandardBench();
  await job.updateProgress({ pid: process.pid } satisfies SandboxProgress);
  try {
    return await runEpisodeJob(job.data, job.id, getScenario);
  } finally {
    // The episode never waited on I/O, so no 'disconnect' event could have told it; an orphan is
    // adopted by another process, which a synchronous look at the parent id shows.
    if (process.ppid !== worker) process.exit(0);
  }
}
