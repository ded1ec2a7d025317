/**
 * Redis for tests: the URL from PAGEWISE_TEST_REDIS_URL, a fresh key prefix per test file so parallel
 * runs never share a queue, and the clean-up that deletes every key under it. Without the variable,
 * Redis tests skip and say why.
 */
import { randomBytes } from 'node:crypto';
import { describe, it } from 'vitest';
import { deleteKeysWithPrefix } from '../../packages/distributed/src/redis.js';

/** The variable that points tests at a Redis server. */
export const TEST_REDIS_URL_ENV = 'PAGEWISE_TEST_REDIS_URL';

/** The test Redis URL, or undefined when Redis tests should skip. */
export const redisTestUrl: string | undefined = process.env[TEST_REDIS_URL_ENV] || undefined;

/** Why Redis tests are skipped, printed once per file that skips them. */
export const REDIS_SKIP_REASON = `Redis tests skipped: set ${TEST_REDIS_URL_ENV} (e.g. redis://127.0.0.1:6379) to run them.`;

/** A key prefix no other test run uses. */
export function uniquePrefix(label: string): string {
  return `pw-test-${label}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Deletes every key under `prefix` (the queue, its jobs, events and locks). */
export const deletePrefix = deleteKeysWithPrefix;

/** Registers one skipped test that carries the reason, and prints it. */
export function skipRedis(suite: string): void {
  console.warn(`${suite}: ${REDIS_SKIP_REASON}`);
  describe.skip(suite, () => {
    it(REDIS_SKIP_REASON, () => undefined);
  });
}
