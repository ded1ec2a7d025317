/**
 * The Redis connection of the episode queue: URL checks, a password-free form of the URL for messages,
 * and a probe that fails fast with a clear message, since BullMQ itself would retry a wrong URL forever.
 */
import { Redis } from 'ioredis';
import type { ConnectionOptions } from 'bullmq';
import { ConfigurationError, SystemError } from '../errors.js';

/** Default milliseconds {@link checkRedis} waits for Redis to answer. */
export const REDIS_CONNECT_TIMEOUT_MS = 5_000;

/**
 * The URL as it may be printed: any password (and a user name given with it) replaced by `***`.
 *
 * @example
 * redactRedisUrl('redis://user:s3cret@cache:6379/0'); // 'redis://user:***@cache:6379/0'
 */
export function redactRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL: hide whatever sits between the scheme and an `@`, where credentials would be.
    return url.replace(/\/\/[^/@]*@/, '//***@');
  }
  if (parsed.password) parsed.password = '***';
  else if (parsed.username) parsed.username = '***'; // `redis://secret@host`: the password given alone
  return parsed.toString().replace(/\/$/, '');
}

/**
 * Checks that `url` is a Redis URL and returns BullMQ connection options for it.
 *
 * @param setting where the URL came from (`--queue`, `--redis`, `url`), named in the error.
 * @throws ConfigurationError when the URL is not `redis://` or `rediss://`.
 */
export function redisConnection(url: string, setting: string): ConnectionOptions {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw new ConfigurationError(
      'invalid-redis-url',
      `${setting} must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379, got "${redactRedisUrl(url)}".`,
    );
  }
  return { url };
}

/**
 * Connects to Redis once, without retries, sends a PING and, if given, runs `use` on the connection.
 *
 * @param setting where the URL came from (`--queue`, `--redis`), named in the error.
 * @throws ConfigurationError for a URL that is not a Redis URL.
 * @throws SystemError `redis-unreachable` (retryable) naming the URL, password redacted, and the setting.
 */
export async function checkRedis<T = void>(
  url: string,
  setting: string,
  use?: (client: Redis) => Promise<T>,
  timeoutMs = REDIS_CONNECT_TIMEOUT_MS,
): Promise<T | undefined> {
  redisConnection(url, setting);
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    enableOfflineQueue: false,
  });
  // connect() and ping() below report the failure; without a listener ioredis would also print it.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    const password = safePassword(url);
    let reason = error instanceof Error ? error.message : String(error);
    // Short values would match ordinary words of the message; a real password is longer.
    if (password && password.length >= 4) reason = reason.split(password).join('***');
    throw new SystemError(
      'redis-unreachable',
      `Cannot reach Redis at ${redactRedisUrl(url)} (${reason}). Start Redis there, or fix the URL given with ${setting}.`,
      {
        retryable: true,
        cause: error,
      },
    );
  }
  try {
    return use ? await use(client) : undefined;
  } finally {
    client.disconnect();
  }
}

function safePassword(url: string): string | undefined {
  try {
    const u = new URL(url);
    return decodeURIComponent(u.password || u.username) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Deletes every key under `prefix` (a queue with its jobs, events and locks), for cleaning up after a
 * benchmark or test run that used its own prefix.
 */
export async function deleteKeysWithPrefix(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}
