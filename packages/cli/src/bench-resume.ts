/**
 * Resumable benchmark runs, built on the harness's pluggable episode executor (the harness itself is unchanged):
 * each finished episode is appended to `episodes.jsonl` in the run folder as it completes, with the run's
 * parameters in `bench-run.json`; `--resume <folder>` reruns with those parameters and takes the finished episodes
 * from the file instead of running them again.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { EpisodeExecutor, EpisodeJob, EpisodeOutcome } from '@pagewise/lab';
import { ConfigurationError } from 'pagewise';

/** The file of finished episodes, one JSON object a line. */
export const EPISODES_FILE = 'episodes.jsonl';
/** The file of the run's parameters. */
export const RUN_FILE = 'bench-run.json';

/** What identifies a run: the same parameters give the same episodes in the same order. */
export const benchRunSchema = z.object({
  scenario: z.string(),
  model: z.string(),
  strategies: z.array(z.string()).optional(),
  n: z.array(z.number().int()).optional(),
  tasks: z.number().int(),
  seed: z.number().int(),
  contextWindow: z.number().int().optional(),
});

/** The parameters of a resumable run. */
export type BenchRun = z.infer<typeof benchRunSchema>;

const finishedSchema = z.object({
  index: z.number().int().min(0),
  strategy: z.string(),
  taskId: z.string(),
  outcome: z.record(z.string(), z.unknown()),
});

/** Reads the parameters a run folder was started with. */
export function readBenchRun(dir: string): BenchRun {
  const file = path.join(dir, RUN_FILE);
  if (!existsSync(file))
    throw new ConfigurationError(
      'bad-arguments',
      `--resume ${dir}: no ${RUN_FILE} there; give the folder a bench run wrote with --out.`,
    );
  const parsed = benchRunSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success)
    throw new ConfigurationError('bad-arguments', `--resume ${dir}: ${RUN_FILE} is not a bench run.`);
  return parsed.data;
}

/** Starts (or continues) a run folder: writes the parameters, or checks they match the ones it holds. */
export function startBenchRun(dir: string, run: BenchRun): void {
  const file = path.join(dir, RUN_FILE);
  if (existsSync(file)) {
    const held = readBenchRun(dir);
    if (JSON.stringify(held) !== JSON.stringify(run))
      throw new ConfigurationError(
        'bad-arguments',
        `${dir} holds a bench run with other parameters; continue it with --resume ${dir}, or choose another --out.`,
      );
    return;
  }
  writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
}

/** The finished episodes of a run folder, by index (a torn last line, from a kill mid-write, is ignored). */
export function readFinished(dir: string): Map<number, { strategy: string; taskId: string; outcome: EpisodeOutcome }> {
  const finished = new Map<number, { strategy: string; taskId: string; outcome: EpisodeOutcome }>();
  const file = path.join(dir, EPISODES_FILE);
  if (!existsSync(file)) return finished;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = finishedSchema.safeParse(value);
    if (parsed.success)
      finished.set(parsed.data.index, {
        strategy: parsed.data.strategy,
        taskId: parsed.data.taskId,
        outcome: parsed.data.outcome as unknown as EpisodeOutcome,
      });
  }
  return finished;
}

/**
 * Wraps an executor: episodes finished in `dir` are taken from it, the others run on `inner`, and each one is
 * appended to `dir`'s episode file the moment it finishes.
 */
export function resumableExecutor(
  inner: EpisodeExecutor,
  dir: string,
  onSkipped?: (count: number) => void,
): EpisodeExecutor {
  return async (batch) => {
    const finished = readFinished(dir);
    const reuse = (job: EpisodeJob) => {
      const held = finished.get(job.index);
      // Only an episode of the same strategy and task counts: anything else means the run changed.
      return held && held.strategy === job.strategy && held.taskId === job.task.id ? held.outcome : undefined;
    };
    const outcomes: EpisodeOutcome[] = new Array(batch.jobs.length);
    const pending: EpisodeJob[] = [];
    batch.jobs.forEach((job, index) => {
      const outcome = reuse(job);
      if (outcome) outcomes[index] = outcome;
      else pending.push(job);
    });
    onSkipped?.(batch.jobs.length - pending.length);
    for (const [index, job] of batch.jobs.entries()) if (outcomes[index]) batch.onEpisode(job, outcomes[index]);
    const positions = new Map(batch.jobs.map((job, i) => [job, i]));
    const ran = await inner({
      ...batch,
      jobs: pending,
      onEpisode: (job, outcome) => {
        appendFileSync(
          path.join(dir, EPISODES_FILE),
          `${JSON.stringify({ index: job.index, strategy: job.strategy, taskId: job.task.id, outcome })}\n`,
        );
        batch.onEpisode(job, outcome);
      },
    });
    pending.forEach((job, index) => {
      outcomes[positions.get(job)!] = ran[index]!;
    });
    return outcomes;
  };
}
