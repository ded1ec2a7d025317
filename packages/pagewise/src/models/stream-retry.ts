/**
 * A streamed model call under deadlines and retries. Three clocks: the wait for the stream to start
 * (`timeoutMs`), the wait between two parts (`idleTimeoutMs`) and the whole stream (`streamTimeoutMs`),
 * so a stream that keeps sending is not cut at the per-call timeout and one that stalls is. A failure
 * before any content arrived (a 5xx, a reset, a stall) is retried like a generated call; after content
 * reached the caller it is not, since the caller would see that text twice.
 */
import type { LanguageModelV3StreamPart, LanguageModelV3StreamResult } from '@ai-sdk/provider';
import { AbortedError } from '../errors.js';
import { backoff, finalError, isRetryableError, retrySettings, timeoutError, type RetryOptions } from './retry.js';

/** Parts that carry no content: a stream may be retried after them. */
const PREAMBLE = new Set<LanguageModelV3StreamPart['type']>([
  'stream-start',
  'response-metadata',
  'raw',
  'text-start',
  'reasoning-start',
]);

type Clock = 'start' | 'idle' | 'total';

/** Rejects once `signal` aborts, so a read the stream never ends still returns. */
function untilAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

/**
 * Opens a stream with `open` (given the attempt's signal) and yields its parts, retrying what can be
 * retried (see the module comment). Every error that leaves is a pagewise error: `aborted` when the
 * caller's signal fired, `model-timeout` when a clock ran out, else a `ProviderError` or the model's own.
 * An `error` part of the stream ends it as a thrown error.
 */
export async function* streamWithRetry(
  open: (signal: AbortSignal) => PromiseLike<LanguageModelV3StreamResult>,
  signal: AbortSignal | undefined,
  options: RetryOptions = {},
): AsyncGenerator<LanguageModelV3StreamPart> {
  const settings = retrySettings(options);
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw new AbortedError();
    const controller = new AbortController();
    const forward = () => controller.abort(signal!.reason);
    signal?.addEventListener('abort', forward, { once: true });
    let expired: Clock | undefined;
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number, clock: Clock) => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (ms <= 0 && clock !== 'total') return;
      timer = setTimeout(
        () => {
          expired = clock;
          controller.abort(new DOMException('The model call timed out.', 'TimeoutError'));
        },
        Math.max(0, ms),
      );
      timer.unref();
    };
    const started = performance.now();
    let delivered = false;
    let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
    let failure: unknown;
    try {
      arm(settings.timeoutMs, 'start');
      const { stream } = await open(controller.signal);
      reader = stream.getReader();
      for (;;) {
        const left = settings.streamTimeoutMs > 0 ? settings.streamTimeoutMs - (performance.now() - started) : Infinity;
        const idle = settings.idleTimeoutMs;
        if (idle > 0 && idle <= left) arm(idle, 'idle');
        else if (left !== Infinity) arm(left, 'total');
        else arm(0, 'idle');
        const next = await untilAbort(reader.read(), controller.signal);
        if (next.done) return;
        const part = next.value;
        if (part.type === 'error') throw part.error;
        if (!PREAMBLE.has(part.type)) delivered = true;
        // No clock runs while the caller holds the part: a slow consumer is not a stalled stream.
        arm(0, 'idle');
        yield part;
      }
    } catch (error) {
      if (signal?.aborted) throw new AbortedError();
      const attempts = attempt + 1;
      if (expired !== undefined) {
        if (delivered || attempt >= settings.maxRetries)
          throw timeoutError(timeoutMessage(expired, attempts, delivered, settings), error);
      } else if (!isRetryableError(error) || delivered || attempt >= settings.maxRetries) {
        throw finalError(error, attempts);
      }
      failure = error;
    } finally {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
      // Ends the connection of an attempt left unfinished (a failure, or a caller that stopped reading).
      reader?.cancel().catch(() => {});
      controller.abort();
    }
    await backoff(failure, attempt, settings, signal);
  }
}

function timeoutMessage(
  clock: Clock,
  attempts: number,
  delivered: boolean,
  settings: ReturnType<typeof retrySettings>,
): string {
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const partial = delivered ? ' after part of the answer had arrived (not retried, so no text is shown twice)' : '';
  switch (clock) {
    case 'start':
      return `The model call timed out after ${settings.timeoutMs} ms waiting for the stream to start (${tries}). Raise \`timeoutMs\` in the retry settings.`;
    case 'idle':
      return `The model stream sent nothing for ${settings.idleTimeoutMs} ms${partial} (${tries}). Raise \`idleTimeoutMs\` in the retry settings.`;
    case 'total':
      return `The model stream ran longer than ${settings.streamTimeoutMs} ms${partial} (${tries}). Raise \`streamTimeoutMs\` in the retry settings.`;
  }
}
