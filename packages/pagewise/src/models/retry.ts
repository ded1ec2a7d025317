/**
 * Retries of provider calls: 429 and 5xx (whatever the provider marks retryable) with exponential
 * backoff and full jitter, honouring Retry-After; a per-call timeout; cancellation through AbortSignal.
 * Errors leave here as pagewise errors (a provider library's error is the `cause` of a
 * {@link ProviderError}) with secret values redacted: a provider may echo the caller's key in an error body.
 */
import { APICallError } from '@ai-sdk/provider';
import type { PagewiseError } from '../errors.js';
import { AbortedError, SystemError, redactError } from '../errors.js';
import { ProviderError, toProviderError } from './provider-error.js';

/** Retry settings. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** First backoff in ms. Default 500. */
  baseDelayMs?: number;
  /** Largest backoff in ms. Default 30,000. */
  maxDelayMs?: number;
  /**
   * Timeout of one attempt in ms; 0 for none. Default 120,000. For a streamed call it bounds the wait
   * for the response to start; {@link RetryOptions.idleTimeoutMs} and {@link RetryOptions.streamTimeoutMs}
   * bound the stream after that.
   */
  timeoutMs?: number;
  /**
   * Streams: the longest wait between two parts of a stream, in ms; 0 for none. Default `timeoutMs`. A
   * stream that keeps sending is never cut by it, however long it runs.
   */
  idleTimeoutMs?: number;
  /** Streams: the longest a whole stream may take, in ms; 0 for none. Default 600,000. */
  streamTimeoutMs?: number;
  /** Random source in [0,1), for tests. */
  random?: () => number;
  /** Sleep function, for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Reads a Retry-After delay in ms from response headers (seconds, HTTP date, or retry-after-ms). */
export function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
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

/** True for errors worth retrying: provider errors marked retryable (408, 409, 429, 5xx, network). */
export function isRetryableError(error: unknown): boolean {
  if (APICallError.isInstance(error)) return error.isRetryable;
  if (error instanceof ProviderError) return error.retryable;
  return false;
}

/** The retry settings with their defaults filled in. */
export interface RetrySettings {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  idleTimeoutMs: number;
  streamTimeoutMs: number;
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** {@link RetryOptions} with every default applied. */
export function retrySettings(options: RetryOptions = {}): RetrySettings {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return {
    maxRetries: options.maxRetries ?? 3,
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs ?? timeoutMs,
    streamTimeoutMs: options.streamTimeoutMs ?? 600_000,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? defaultSleep,
  };
}

/** Waits before retry `attempt` (0 for the first retry): the provider's Retry-After, else backoff with full jitter. */
export function backoff(error: unknown, attempt: number, settings: RetrySettings, signal?: AbortSignal): Promise<void> {
  const cause = error instanceof ProviderError ? error.cause : error;
  const hinted = APICallError.isInstance(cause) ? retryAfterMs(cause.responseHeaders) : undefined;
  const cap = settings.maxDelayMs;
  const jittered = Math.min(cap, settings.baseDelayMs * 2 ** attempt) * settings.random();
  return settings.sleep(hinted !== undefined ? Math.min(hinted, cap * 4) : jittered, signal);
}

/** The error that leaves a provider call: a pagewise error, secrets redacted. */
export function finalError(error: unknown, attempts: number): unknown {
  return redactError(toProviderError(error, attempts));
}

/** The `model-timeout` error of a call that ran out of time. */
export function timeoutError(message: string, cause?: unknown): PagewiseError {
  return redactError(new SystemError('model-timeout', message, { retryable: true, cause }));
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
  const settings = retrySettings(options);
  const { maxRetries, timeoutMs } = settings;
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
          throw timeoutError(
            `The model call timed out after ${timeoutMs} ms (${attempt + 1} attempts). Raise \`timeoutMs\` in the retry settings.`,
            error,
          );
        }
        throw finalError(error, attempt + 1);
      }
      await backoff(error, attempt, settings, signal);
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
      const created = (controller = new AbortController());
      if (timeoutMs > 0) {
        timer = setTimeout(
          () => {
            expired = true;
            created.abort(new DOMException('The model call timed out.', 'TimeoutError'));
          },
          Math.max(0, timeoutMs - (performance.now() - started)),
        );
        timer.unref();
      }
      if (signal?.aborted) created.abort(signal.reason);
      else signal?.addEventListener('abort', forward, { once: true });
      return created.signal;
    },
    timedOut: () => expired,
    release() {
      if (!controller) return;
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    },
  };
}
