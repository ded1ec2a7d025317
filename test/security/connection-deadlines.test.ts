/**
 * Regression tests of two reliability findings about connections:
 * - "PostgreSQL and Redis clients have no connect/ready timeout": against a peer that accepts TCP and
 *   never answers, the stores, `worker` and `bench --queue` hung with no output. Each now fails within
 *   its limit with an error naming the host and the limit.
 * - "Redis URL with a database index out of range": the worker retried forever and `bench --queue` fell
 *   back to database 0. Both now refuse the URL before anything is queued.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBench } from '../../packages/lab/src/bench/harness.js';
import type { BenchScenario } from '../../packages/lab/src/bench/scenario.js';
import { registerStandardBench } from '../../packages/lab/src/bench/standard.js';
import { queueExecutor } from '../../packages/distributed/src/queue.js';
import { checkRedis, redisConnection } from '../../packages/distributed/src/redis.js';
import { startEpisodeWorker } from '../../packages/distributed/src/worker.js';
import { ConfigurationError, PagewiseError, StorageError, SystemError } from '../../packages/pagewise/src/errors.js';
import { PgPageStore, PgSessionStore } from '../../packages/postgres/src/index.js';
import { redisTestUrl, skipRedis } from '../distributed/redis-test.js';

// The strategy "none" the benchmark below names comes from the standard set.
registerStandardBench();

/** A TCP server that accepts every connection and never writes a byte. */
let silent: net.Server;
let port = 0;
const sockets = new Set<net.Socket>();
beforeAll(async () => {
  silent = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  port = (silent.address() as net.AddressInfo).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

/** Awaits `work`, failing (instead of hanging the suite) when it takes longer than `ms`. */
async function within<T>(ms: number, work: Promise<T>): Promise<{ error: unknown; elapsed: number }> {
  const started = performance.now();
  const error = await Promise.race([
    work.then(
      () => new Error('resolved, but a failure was expected'),
      (e: unknown) => e,
    ),
    new Promise((resolve) => setTimeout(() => resolve(new Error(`still waiting after ${ms} ms`)), ms)),
  ]);
  return { error, elapsed: performance.now() - started };
}

const scenario: BenchScenario = {
  name: 'never-runs',
  description: 'a scenario whose episodes are never reached',
  defaultN: 1,
  strategies: ['none'],
  prepare: async ({ tasks }) => Array.from({ length: tasks }, (_, t) => ({ id: `t${t}`, prompt: 'p' })),
  runEpisode: () => Promise.reject(new Error('an episode ran, but the URL should have been refused first')),
};

describe('PostgreSQL and Redis clients have no connect/ready timeout (finding)', () => {
  it('a PostgreSQL store fails within connectTimeoutMs naming host and limit, for sessions and pages', async () => {
    const url = `postgres://pw:secret-pw@127.0.0.1:${port}/db`;
    const store = new PgSessionStore({ url, connectTimeoutMs: 300 });
    const { error, elapsed } = await within(5_000, store.listSessions({ appName: 'a' }));
    await store.close();
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('database-timeout');
    expect((error as StorageError).retryable).toBe(true);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect((error as Error).message).toContain('300 ms');
    expect((error as Error).message).not.toContain('secret-pw');
    expect(elapsed).toBeLessThan(4_000);

    const pages = new PgPageStore({ url, connectTimeoutMs: 300 });
    const again = await within(5_000, pages.get('n', 'u'));
    await pages.close();
    expect((again.error as StorageError).code).toBe('database-timeout');
  }, 15_000);

  it('the Redis probe fails within its limit naming host and limit', async () => {
    const { error, elapsed } = await within(5_000, checkRedis(`redis://127.0.0.1:${port}`, '--redis', undefined, 300));
    expect(error).toBeInstanceOf(SystemError);
    expect((error as SystemError).code).toBe('redis-timeout');
    expect((error as SystemError).retryable).toBe(true);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect((error as Error).message).toContain('300 ms');
    expect((error as Error).message).toContain('--redis');
    expect(elapsed).toBeLessThan(4_000);
  }, 15_000);

  it('the worker and bench --queue give up on a silent peer instead of hanging', async () => {
    const url = `redis://127.0.0.1:${port}`;
    const worker = await within(12_000, startEpisodeWorker({ url, urlSetting: '--redis' }));
    expect(PagewiseError.isInstance(worker.error) && worker.error.code).toBe('redis-timeout');
    const bench = await within(
      12_000,
      runBench({ scenario, tasks: 1, seed: 1, executor: queueExecutor({ url, urlSetting: '--queue' }) }),
    );
    expect(PagewiseError.isInstance(bench.error) && bench.error.code).toBe('redis-timeout');
    expect((bench.error as Error).message).toContain('--queue');
  }, 30_000);
});

describe('Redis URL with a database index out of range (finding), without a server', () => {
  it('refuses an index that is not a number, which ioredis would silently read as database 0', () => {
    expect(() => redisConnection('redis://127.0.0.1:6379/abc', '--redis')).toThrow(ConfigurationError);
    expect(() => redisConnection('redis://127.0.0.1:6379/abc', '--redis')).toThrow(/"abc".*database index/);
    expect(() => redisConnection('redis://127.0.0.1:6379/-1', '--queue')).toThrow(/--queue/);
    expect(redisConnection('redis://127.0.0.1:6379/3', '--redis')).toEqual({ url: 'redis://127.0.0.1:6379/3' });
  });
});

const redis = redisTestUrl;
if (!redis) {
  skipRedis('Redis URL with a database index out of range');
} else {
  describe('Redis URL with a database index out of range (finding)', () => {
    const outOfRange = `${redis.replace(/\/\d*$/, '')}/9999`;

    it('the probe refuses the index the server rejects, naming it and the setting', async () => {
      const { error } = await within(10_000, checkRedis(outOfRange, '--redis'));
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).code).toBe('redis-database-rejected');
      expect((error as Error).message).toMatch(/database 9999/);
      expect((error as Error).message).toContain('--redis');
    });

    it('the worker refuses to start instead of retrying forever', async () => {
      const { error } = await within(10_000, startEpisodeWorker({ url: outOfRange, urlSetting: '--redis' }));
      expect(PagewiseError.isInstance(error) && error.code).toBe('redis-database-rejected');
    });

    it('bench --queue refuses before queuing anything, instead of falling back to database 0', async () => {
      const { error } = await within(
        10_000,
        runBench({ scenario, tasks: 1, seed: 1, executor: queueExecutor({ url: outOfRange, urlSetting: '--queue' }) }),
      );
      expect(PagewiseError.isInstance(error) && error.code).toBe('redis-database-rejected');
      expect((error as Error).message).toContain('--queue');
    });

    it('a database the server has is selected and used', async () => {
      const inRange = `${redis.replace(/\/\d*$/, '')}/3`;
      const db = await checkRedis(
        inRange,
        '--redis',
        async (client) => (await client.client('INFO')).match(/db=(\d+)/)?.[1],
      );
      expect(db).toBe('3');
    });
  });
}
