/**
 * Provider faults through the real `openai-compatible` provider against a local server: 429 and 5xx
 * are retried with exponential backoff and jitter and Retry-After is honoured; 4xx are not retried;
 * a hanging call hits the per-call timeout; an AbortSignal ends the call in flight (the server sees
 * the connection close) and a backoff wait.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APICallError } from '@ai-sdk/provider';
import {
  Agent,
  AbortedError,
  PagewiseError,
  Runner,
  type RetryOptions,
  type RunResult,
} from '../../packages/pagewise/src/index.js';
import { MODEL_ENV } from '../../packages/pagewise/src/models/resolve.js';
import { ProviderError } from '../../packages/pagewise/src/models/provider-error.js';
import { answer, error, hang, startFakeOpenAI, stream, type FakeOpenAI } from './openai-server.js';

let server: FakeOpenAI;
/** Retries observed across this file, for the report line. */
let retriesObserved = 0;

beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(async () => {
  console.log(
    `provider-faults: ${server.requests.length} requests to the local server, ${retriesObserved} of them retries`,
  );
  await server.close();
});

let requestsBefore = 0;
beforeEach(() => {
  requestsBefore = server.requests.length;
});
/** Requests made by the current test. */
const requests = () => server.requests.slice(requestsBefore);

function runner(retry: RetryOptions): Runner {
  return new Runner({
    agent: new Agent({ name: 'assistant', instruction: 'Answer briefly.' }),
    model: 'openai-compatible:test-model',
    // The key is optional for this provider; the secrets test covers it.
    modelOptions: { env: { [MODEL_ENV.compatibleBaseUrl]: server.baseURL } },
    retry,
  });
}

async function run(retry: RetryOptions, signal?: AbortSignal): Promise<RunResult> {
  const result = await runner(retry).run({ userId: 'u', message: 'Hello?', ...(signal ? { signal } : {}) });
  retriesObserved += requests().length - 1;
  return result;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (caught) {
    retriesObserved += Math.max(0, requests().length - 1);
    return caught;
  }
  throw new Error('expected the run to fail');
}

describe('provider faults through the real openai-compatible provider', () => {
  it('speaks the protocol: POST {baseURL}/chat/completions, answer parsed', async () => {
    server.enqueue(answer({ text: 'fine, thanks' }));
    const result = await run({});
    expect(result.text).toBe('fine, thanks');
    const [req] = requests();
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/v1/chat/completions');
    expect(req?.body.model).toBe('test-model');
    // Provider usage is recorded beside the local count.
    expect(result.ledger.entries[0]?.providerPromptTokens).toBe(12);
  });

  it('429 with Retry-After: the retry waits as long as the header says, then succeeds', async () => {
    server.enqueue(
      error(429, 'Rate limit reached; slow down.', { 'retry-after': '1' }),
      answer({ text: 'after the wait' }),
    );
    // The computed backoff would be at most 1 ms: only the header explains a wait of a second.
    const result = await run({ baseDelayMs: 1, maxRetries: 2 });
    expect(result.text).toBe('after the wait');
    const [first, second] = requests();
    expect(requests()).toHaveLength(2);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it('retry-after-ms is honoured too', async () => {
    server.enqueue(error(429, 'Rate limit reached.', { 'retry-after-ms': '250' }), answer({ text: 'ok' }));
    await run({ baseDelayMs: 1 });
    const [first, second] = requests();
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(240);
  });

  it('503 and 500 are retried with exponential backoff and full jitter, then succeed', async () => {
    server.enqueue(
      error(503, 'Overloaded.'),
      error(500, 'Internal error.'),
      error(502, 'Bad gateway.'),
      answer({ text: 'recovered' }),
    );
    const delays: number[] = [];
    const jitter = [0.25, 0.5, 1];
    const result = await run({
      baseDelayMs: 100,
      maxRetries: 3,
      random: () => jitter[delays.length] ?? 0,
      sleep: async (ms) => {
        delays.push(ms);
      },
    });
    expect(result.text).toBe('recovered');
    expect(requests()).toHaveLength(4);
    // base · 2^attempt, times the jitter draw: 100·1·0.25, 100·2·0.5, 100·4·1.
    expect(delays).toEqual([25, 100, 400]);
  });

  it('retries end after maxRetries with a ProviderError: status, retryable flag and the provider error as cause', async () => {
    server.enqueue(error(503, 'Still overloaded.'), error(503, 'Still overloaded.'), error(503, 'Still overloaded.'));
    const thrown = await failure(run({ baseDelayMs: 1, maxRetries: 2 }));
    expect(requests()).toHaveLength(3);
    expect(thrown).toBeInstanceOf(ProviderError);
    expect((thrown as ProviderError).code).toBe('provider-server-error');
    expect((thrown as ProviderError).statusCode).toBe(503);
    expect((thrown as ProviderError).retryable).toBe(true);
    expect((thrown as ProviderError).attempts).toBe(3);
    expect((thrown as Error).message).toContain('Still overloaded.');
    const cause = (thrown as Error).cause;
    expect(APICallError.isInstance(cause)).toBe(true);
    expect((cause as APICallError).statusCode).toBe(503);
  });

  it('400 and 401 are not retried', async () => {
    server.enqueue(error(400, 'Invalid request: messages must not be empty.'));
    const bad = await failure(run({ baseDelayMs: 1 }));
    expect(requests()).toHaveLength(1);
    expect(bad).toBeInstanceOf(ProviderError);
    expect((bad as ProviderError).statusCode).toBe(400);
    expect((bad as ProviderError).code).toBe('provider-bad-request');
    expect((bad as ProviderError).retryable).toBe(false);
    expect(((bad as Error).cause as APICallError).isRetryable).toBe(false);

    requestsBefore = server.requests.length;
    server.enqueue(error(401, 'Invalid API key.'));
    const unauthorized = await failure(run({ baseDelayMs: 1 }));
    expect(requests()).toHaveLength(1);
    expect((unauthorized as ProviderError).statusCode).toBe(401);
    expect((unauthorized as ProviderError).code).toBe('provider-auth');
    expect((unauthorized as ProviderError).fault).toBe('configuration');
  });

  it('a hanging call hits the per-call timeout, is retried once, then fails with a clear error', async () => {
    server.enqueue(hang, hang);
    const started = performance.now();
    const thrown = await failure(run({ timeoutMs: 250, maxRetries: 1, baseDelayMs: 1 }));
    const elapsed = performance.now() - started;
    expect(PagewiseError.isInstance(thrown)).toBe(true);
    expect((thrown as PagewiseError).code).toBe('model-timeout');
    expect((thrown as PagewiseError).retryable).toBe(true);
    expect((thrown as Error).message).toBe(
      'The model call timed out after 250 ms (2 attempts). Raise `timeoutMs` in the retry settings.',
    );
    expect(requests()).toHaveLength(2);
    // Both attempts were abandoned by the client, not left open.
    for (const request of requests()) expect(await request.closed).toEqual({ early: true });
    expect(elapsed).toBeGreaterThanOrEqual(490);
  });

  it('an AbortSignal aborts the call in flight: the server sees the connection close, no retry', async () => {
    server.enqueue(hang);
    const controller = new AbortController();
    void server.nextRequest().then(() => controller.abort());
    const thrown = await failure(run({ baseDelayMs: 1, timeoutMs: 30_000 }, controller.signal));
    expect(thrown).toBeInstanceOf(AbortedError);
    expect(requests()).toHaveLength(1);
    expect(await requests()[0]!.closed).toEqual({ early: true });
  });

  it('an AbortSignal also ends a Retry-After wait, without another request', async () => {
    server.enqueue(error(429, 'Rate limit reached.', { 'retry-after': '30' }));
    const controller = new AbortController();
    void server.nextRequest().then(() => setTimeout(() => controller.abort(), 50));
    const started = performance.now();
    const thrown = await failure(run({ baseDelayMs: 1 }, controller.signal));
    expect(thrown).toBeInstanceOf(AbortedError);
    expect(performance.now() - started).toBeLessThan(5_000);
    // Give a wrongly scheduled retry the chance to show up.
    await new Promise((r) => setTimeout(r, 100));
    expect(requests()).toHaveLength(1);
  });

  it('streaming: a 503 before the stream starts is retried, then the text arrives as deltas', async () => {
    server.enqueue(error(503, 'Overloaded.'), stream(['Hello', ', ', 'world.']));
    const deltas: string[] = [];
    let result: RunResult | undefined;
    for await (const part of runner({ baseDelayMs: 1 }).stream({ userId: 'u', message: 'Hi' })) {
      if (part.type === 'text-delta') deltas.push(part.delta);
      if (part.type === 'finish') result = part.result;
    }
    retriesObserved += requests().length - 1;
    expect(requests()).toHaveLength(2);
    expect(requests()[1]!.body.stream).toBe(true);
    expect(deltas.join('')).toBe('Hello, world.');
    expect(result?.text).toBe('Hello, world.');
  });

  it('streaming: an AbortSignal ends a stream in the middle; the server sees the connection close', async () => {
    const { error: thrown, deltas } = await abortMidStream();
    expect(deltas).toEqual(['Hello']);
    expect(thrown).toBeInstanceOf(Error);
    expect(await requests()[0]!.closed).toEqual({ early: true });
  });
});

/** Streams a response that stalls after its first chunk and aborts on the first text delta. */
async function abortMidStream(): Promise<{ error: unknown; deltas: string[] }> {
  server.enqueue(stream(['Hello', ' never', ' sent'], { hangAfter: 1 }));
  const controller = new AbortController();
  const deltas: string[] = [];
  const consume = async () => {
    for await (const part of runner({ baseDelayMs: 1, timeoutMs: 30_000 }).stream({
      userId: 'u',
      message: 'Hi',
      signal: controller.signal,
    })) {
      if (part.type === 'text-delta') {
        deltas.push(part.delta);
        controller.abort();
      }
    }
  };
  return { error: await failure(consume()), deltas };
}

describe('known gaps (flip to it() when fixed)', () => {
  // The abort reaches the stream, but the runner rethrows the stream's raw DOMException AbortError
  // instead of the AbortedError a non-streaming call gives, so callers cannot tell it by code.
  it('streaming: an abort in the middle of a stream is reported as AbortedError', async () => {
    const { error: thrown } = await abortMidStream();
    expect(PagewiseError.isInstance(thrown) && thrown.code === 'aborted').toBe(true);
  });
});
