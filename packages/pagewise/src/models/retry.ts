/**
 * Retries of provider calls: 429 and 5xx (whatever the provider marks retryable) with exponential
 * backoff and full jitter, honouring Retry-After; a per-call timeout; cancellation through AbortSignal.
 * Errors leave here with secret values redacted: a provider may echo the caller's key in an error body.
 */
import { APICallError } from '@ai-sdk/provider';
import { AbortedError, SystemError, redactError } from '../errors.js';

/** Retry settings. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** First backoff in ms. Default 500. */
  baseDelayMs?: number;
  /** Largest backoff in ms. Default 30,000. */
  maxDelayMs?: number;
  /** Timeout of one attempt in ms; 0 for none. Default 120,000. */
  timeoutMs?: number;
  /** Random source in [0,1), for tests. */
  random?: () => number;
  /** Sleep function, for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Reads a Retry-After delay in ms from response headers (seconds, HTTP date, or retry-after-ms). */
export function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const lower: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
  const ms = Number(lower['retry-after-ms']);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = lower['retry-after'];
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** True for errors worth retrying: provider errors marked retryable (408, 409, 429, 5xx). */
export function isRetryableError(error: unknown): boolean {
  if (APICallError.isInstance(error)) return error.isRetryable;
  return false;
}

/**
 * Calls `fn` with a signal that ends at the caller's abort or the per-attempt timeout, retrying
 * retryable errors with backoff. Throws the last error when retries run out, with the values of
 * key-like environment variables redacted from it (see {@link redactError}).
 */
export async function withRetry<T>(
  fn: (signal: AbortSignal) => PromiseLike<T>,
  signal: AbortSignal | undefined,
  options: RetryOptions = {},
): Promise<T> {
  return withRetryLazy((attempt) => fn(attempt()), signal, options);
}

/**
 * {@link withRetry}, with the attempt's signal made only when `fn` calls `attempt()` (a model that
 * never reads its abort signal costs none). With `outlives: true` (a stream, read after `fn` returns)
 * the successful attempt's signal keeps following the caller's abort and the timeout after the return;
 * otherwise its timer and listener are released as soon as `fn` settles.
 */
export async function withRetryLazy<T>(
  fn: (attempt: () => AbortSignal) => PromiseLike<T>,
  signal: AbortSignal | undefined,
  options: RetryOptions = {},
  outlives = false,
): Promise<T> {
  const maxRetries = options.maxRetries ?? 3;
  const base = options.baseDelayMs ?? 500;
  const cap = options.maxDelayMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw new AbortedError();
    const guard = attemptSignal(signal, timeoutMs);
    let succeeded = false;
    try {
      const result = await fn(() => guard.signal);
      succeeded = true;
      return result;
    } catch (error) {
      if (signal?.aborted) throw new AbortedError();
      const timedOut = guard.timedOut();
      if (!(timedOut || isRetryableError(error)) || attempt >= maxRetries) {
        if (timedOut) {
          throw redactError(
            new SystemError(
              'model-timeout',
              `The model call timed out after ${timeoutMs} ms (${attempt + 1} attempts). Raise \`timeoutMs\` in the retry settings.`,
              { retryable: true, cause: error },
            ),
          );
        }
        throw redactError(error);
      }
      const hinted = APICallError.isInstance(error) ? retryAfterMs(error.responseHeaders) : undefined;
      const backoff = Math.min(cap, base * 2 ** attempt) * random();
      await sleep(hinted !== undefined ? Math.min(hinted, cap * 4) : backoff, signal);
    } finally {
      if (!(succeeded && outlives)) guard.release();
    }
  }
}

/**
 * The signal of one attempt: aborted when the caller's signal aborts or `timeoutMs` after the attempt
 * started. Made only when the callee reads it (a provider passing it to `fetch`): an `AbortSignal`, its
 * timer and its listener on the caller's signal cost a measurable share of a step, and a callee that
 * never reads the signal cannot be interrupted by it anyway. Released when the attempt ends.
 */
function attemptSignal(
  signal: AbortSignal | undefined,
  timeoutMs: number,
): { readonly signal: AbortSignal; timedOut(): boolean; release(): void } {
  const started = performance.now();
  let controller: AbortController | undefined;
  let timer: NodeJS.Timeout | undefined;
  let expired = false;
  const forward = () => controller!.abort(signal!.reason);
  return {
    get signal() {
      if (controller) return controller.signal;
      const c = (controller = new AbortController());
      if (timeoutMs > 0) {
        timer = setTimeout(
          () => {
            expired = true;
            c.abort(new DOMException('The model call timed out.', 'TimeoutError'));
          },
          Math.max(0, timeoutMs - (performance.now() - started)),
        );
        timer.unref();
      }
      if (signal?.aborted) c.abort(signal.reason);
      else signal?.addEventListener('abort', forward, { once: true });
      return c.signal;
    },
    timedOut: () => expired,
    release() {
      if (!controller) return;
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    },
  };
}
