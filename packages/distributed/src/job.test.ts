import { describe, expect, it } from 'vitest';
import { getScenario, listScenarios } from '../../lab/src/bench/registry.js';
import type { EpisodeJob } from '../../lab/src/bench/harness.js';
import { PagewiseError } from '../../pagewise/src/errors.js';
import { assertJsonData, EPISODE_JOB_SCHEMA, episodeJobId, parseEpisodeJobData, parseEpisodeOutcome } from './job.js';
import { redactRedisUrl, redisConnection } from './redis.js';
import { registerStandardBench } from '../../lab/src/bench/standard.js';

registerStandardBench();

const job = (taskId: string, strategy = 'none', size: number | null = 3): EpisodeJob => ({
  index: 0,
  n: size,
  strategy,
  task: { id: taskId, prompt: 'p' },
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return PagewiseError.isInstance(error) ? error.code : String(error);
  }
  return undefined;
}

describe('episode job ids', () => {
  it('are the same for the same run, N, strategy and task, and contain no colon', () => {
    expect(episodeJobId('r1', job('q:1'))).toBe(episodeJobId('r1', job('q:1')));
    expect(episodeJobId('r1', job('q:1'))).not.toContain(':');
    expect(episodeJobId('r1', job('t', 'none', null))).toBe('r1.-.none.t');
  });

  it('differ when any part differs, even where encoding could merge them', () => {
    const ids = [
      episodeJobId('r1', job('a')),
      episodeJobId('r2', job('a')),
      episodeJobId('r1', job('a', 'paging')),
      episodeJobId('r1', job('a', 'none', 4)),
      episodeJobId('r1', job('a', 'none', null)),
      episodeJobId('r1', job('a.b')),
      episodeJobId('r1', job('a%2Eb')),
      episodeJobId('r1', job('a:b')),
      episodeJobId('r1', job('a_b')),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('episode job data', () => {
  const data = {
    schema: EPISODE_JOB_SCHEMA,
    runId: 'r',
    index: 2,
    scenario: 's',
    n: null,
    strategy: 'none',
    task: { id: 't', prompt: 'p', extra: [1] },
    model: 'offline',
    contextWindow: 0,
  };

  it('is read back with the task whole', () => {
    expect(parseEpisodeJobData(JSON.parse(JSON.stringify(data)), 'j')).toEqual(data);
  });

  it('from a newer producer is refused with the versions, and garbage names the job', () => {
    expect(() => parseEpisodeJobData({ ...data, schema: 2 }, 'job-7')).toThrow(
      /Job job-7 has episode schema 2; this worker reads 1/,
    );
    expect(() => parseEpisodeJobData({ ...data, model: { provider: 'x' } }, 'job-8')).toThrow(
      /Job job-8 is not a pagewise episode/,
    );
    expect(() => parseEpisodeJobData('hello', 'job-9')).toThrow(/Job job-9 is not a pagewise episode/);
  });
});

describe('episode outcomes from workers', () => {
  const outcome = {
    taskId: 't',
    strategy: 'none',
    success: true,
    answer: 'a',
    ledger: [],
    windowFailure: false,
    wallMs: 1,
  };

  it('are accepted for their own episode only', () => {
    expect(parseEpisodeOutcome(outcome, job('t'))).toEqual(outcome);
    expect(parseEpisodeOutcome(outcome, job('u'))).toMatch(/outcome of task t under none, not of task u under none/);
    expect(parseEpisodeOutcome({ ...outcome, ledger: [{ index: 0 }] }, job('t'))).toMatch(/^not an episode outcome/);
  });
});

describe('JSON tasks', () => {
  it('accepts plain data and names the path of anything else', () => {
    expect(() => assertJsonData({ a: [1, 'x', null, { b: true }], skip: undefined }, 'task')).not.toThrow();
    expect(() => assertJsonData({ a: [1, new Map()] }, 'task')).toThrow(/task\.a\[1\] is Map/);
    expect(() => assertJsonData({ when: new Date(0) }, 'task')).toThrow(/task\.when is Date/);
    expect(() => assertJsonData({ x: Number.NaN }, 'task')).toThrow(/task\.x is NaN/);
    expect(() => assertJsonData([undefined], 'task')).toThrow(/task\[0\] is undefined/);
    expect(codeOf(() => assertJsonData({ f: () => 1 }, 't'))).toBe('task-not-json');
  });

  it('holds for the tasks of every registered scenario, so each can run on workers', async () => {
    for (const { name, available } of listScenarios()) {
      if (!available) continue;
      let tasks: unknown[];
      try {
        tasks = await getScenario(name).prepare({ tasks: 3, seed: 1 });
      } catch (error) {
        // A scenario whose data is not on this machine cannot be checked here.
        if (PagewiseError.isInstance(error) && error.fault === 'configuration') {
          console.warn(`JSON tasks: ${name} skipped: ${error.message}`);
          continue;
        }
        throw error;
      }
      expect(tasks.length).toBeGreaterThan(0);
      for (const task of tasks) {
        assertJsonData(task, name);
        expect(JSON.parse(JSON.stringify(task))).toEqual(task);
      }
    }
  });
});

describe('Redis URLs', () => {
  it('are printed without their password', () => {
    expect(redactRedisUrl('redis://user:hunter22@127.0.0.1:6379/0')).toBe('redis://user:***@127.0.0.1:6379/0');
    expect(redactRedisUrl('redis://:hunter22@127.0.0.1:6379')).toBe('redis://:***@127.0.0.1:6379');
    expect(redactRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(redactRedisUrl('not a url://x:hunter22@y')).not.toContain('hunter22');
  });

  it('must be redis:// or rediss://, and the error names the setting', () => {
    expect(() => redisConnection('http://127.0.0.1:6379', '--queue')).toThrow(
      /--queue must be a redis:\/\/ or rediss:\/\/ URL/,
    );
    expect(() => redisConnection('127.0.0.1:6379', '--redis')).toThrow(/--redis must be/);
    expect(redisConnection('rediss://127.0.0.1:6380', '--redis')).toEqual({ url: 'rediss://127.0.0.1:6380' });
  });
});
