/**
 * The Redis connection of the episode queue: URL checks, a password-free form of the URL for messages,
 * and a probe that fails fast with a clear message, since BullMQ itself would retry a wrong URL forever:
 * an unreachable host, a peer that never answers, and a database index the server rejects.
 */
import { Redis } from 'ioredis';
import type { ConnectionOptions } from 'bullmq';
import { ConfigurationError, SystemError } from 'pagewise';

/** Default milliseconds {@link checkRedis} waits for Redis to answer (connect, ready, PING and SELECT). */
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
  redisDatabase(url, setting);
  return { url };
}

/**
 * The database index a Redis URL names (`redis://host/3` or `?db=3`), 0 when it names none, the way
 * ioredis reads it.
 *
 * @throws ConfigurationError for an index that is not a non-negative integer, which ioredis would
 *   otherwise silently replace with database 0.
 */
export function redisDatabase(url: string, setting = 'url'): number {
  const parsed = new URL(url);
  const fromPath = parsed.pathname.replace(/^\//, '');
  const raw = parsed.searchParams.get('db') ?? fromPath;
  if (raw === '') return 0;
  if (!/^\d{1,9}$/.test(raw)) {
    throw new ConfigurationError(
      'invalid-redis-url',
      `${setting} names the Redis database "${raw}", which is not a database index (0, 1, 2, ...): got "${redactRedisUrl(url)}".`,
    );
  }
  return Number(raw);
}

/**
 * Connects to Redis once, without retries, sends a PING, selects the URL's database and, if given, runs
 * `use` on the connection. Everything up to `use` must finish within `timeoutMs`: a peer that accepts
 * TCP and never answers fails, where ioredis alone would wait for it forever.
 *
 * @param setting where the URL came from (`--queue`, `--redis`), named in the error.
 * @throws ConfigurationError for a URL that is not a Redis URL, and `redis-database-rejected` when the
 *   server refuses the URL's database index (ioredis would go on in database 0).
 * @throws SystemError `redis-unreachable` or `redis-timeout` (both retryable) naming the URL, password
 *   redacted, and the setting.
 */
export async function checkRedis<T = void>(
  url: string,
  setting: string,
  use?: (client: Redis) => Promise<T>,
  timeoutMs = REDIS_CONNECT_TIMEOUT_MS,
): Promise<T | undefined> {
  redisConnection(url, setting);
  const db = redisDatabase(url, setting);
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    enableOfflineQueue: false,
  });
  // connect() and ping() below report the failure; without a listener ioredis would also print it.
  client.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisTimeout()), timeoutMs);
  });
  try {
    await Promise.race([
      (async () => {
        await client.connect();
        await client.ping();
        // ioredis selects the URL's database on connect but, when the server refuses it, only emits an
        // 'error' and goes on in database 0; selecting again here makes the refusal an answer.
        if (db !== 0) await client.select(db);
      })(),
      deadline,
    ]);
  } catch (error) {
    client.disconnect();
    const password = safePassword(url);
    let reason = error instanceof Error ? error.message : String(error);
    // Short values would match ordinary words of the message; a real password is longer.
    if (password && password.length >= 4) reason = reason.split(password).join('***');
    if (error instanceof RedisTimeout) {
      throw new SystemError(
        'redis-timeout',
        `Redis at ${hostOf(url)} (${redactRedisUrl(url)}) did not answer within ${timeoutMs} ms: the connection was not ready for commands. Check that a Redis server (not another service) listens there, or fix the URL given with ${setting}.`,
        { retryable: true, cause: error },
      );
    }
    if (db !== 0 && /DB index|invalid DB|out of range/i.test(reason)) {
      throw new ConfigurationError(
        'redis-database-rejected',
        `Redis at ${redactRedisUrl(url)} refused database ${db} (${reason}). Use a database index the server has (its \`databases\` setting; 0-15 by default) in the URL given with ${setting}.`,
        error,
      );
    }
    throw new SystemError(
      'redis-unreachable',
      `Cannot reach Redis at ${redactRedisUrl(url)} (${reason}). Start Redis there, or fix the URL given with ${setting}.`,
      {
        retryable: true,
        cause: error,
      },
    );
  } finally {
    clearTimeout(timer);
  }
  try {
    return use ? await use(client) : undefined;
  } finally {
    client.disconnect();
  }
}

/** The deadline of {@link checkRedis} passed. */
class RedisTimeout extends Error {
  constructor() {
    super('timed out');
  }
}

/** `host:port` of a Redis URL (port 6379 when not given). */
function hostOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '6379'}`;
}

function safePassword(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return decodeURIComponent(parsed.password || parsed.username) || undefined;
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
