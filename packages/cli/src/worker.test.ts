import { describe, expect, it } from 'vitest';
import { PagewiseError } from '../../pagewise/src/errors.js';
import { WORKER_HELP, workerCommand } from './worker.js';
import { runCommand } from '../../../test/support/cli.js';

const run = (argv: string[]) => runCommand(workerCommand, argv);

// Running workers are tested as processes in test/distributed, where signals can stop them.
describe('pagewise worker', () => {
  it('prints its help', async () => {
    expect(await run(['--help'])).toMatchObject({ code: 0, out: WORKER_HELP });
  });

  it('asks for --redis, and refuses bad flags and values', async () => {
    await expect(run([])).rejects.toThrow(
      /Give the Redis URL of the queue: pagewise worker --redis redis:\/\/127\.0\.0\.1:6379/,
    );
    await expect(run(['--redis', 'redis://127.0.0.1:1', 'extra'])).rejects.toThrow(/Unexpected arguments: extra/);
    await expect(run(['--redis', 'redis://127.0.0.1:1', '--bogus'])).rejects.toThrow(/pagewise worker --help/);
    await expect(run(['--redis', 'redis://127.0.0.1:1', '--concurrency', '0'])).rejects.toThrow(
      /--concurrency must be an integer ≥ 1/,
    );
    await expect(run(['--redis', 'localhost:6379'])).rejects.toThrow(/--redis must be a redis:\/\/ or rediss:\/\/ URL/);
  });

  it('names the URL, without its password, and --redis when Redis does not answer', async () => {
    const error = await run(['--redis', 'redis://:hunter22@127.0.0.1:1']).catch((e: unknown) => e);
    expect(PagewiseError.isInstance(error) && error.code).toBe('redis-unreachable');
    expect((error as Error).message).toMatch(
      /^Cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1 .*fix the URL given with --redis\.$/,
    );
    expect((error as Error).message).not.toContain('hunter22');
  });
});
