/**
 * The paths a user with a paid model takes, against local OpenAI-compatible servers scripted like a
 * model: one for the agent, one for its compressor. A compressor's provider error or bad output costs
 * only the compression; streams have an idle deadline apart from their total and fail as pagewise
 * errors; streamed usage reaches the ledger; `openai:` requests carry `store: false`; a served compressor
 * can get a system prompt and reads tool output fenced.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  PagewiseError,
  ProviderError,
  Runner,
  tool,
  type RetryOptions,
  type RunResult,
  type RunStreamPart,
} from '../../packages/pagewise/src/index.js';
import {
  compressorSystemPrompt,
  historyCompressor,
  llmBackend,
  observationCompressor,
} from '../../packages/pagewise/src/compression.js';
import { MODEL_ENV } from '../../packages/pagewise/src/models/resolve.js';
import {
  answer,
  error,
  hang,
  reset,
  responses,
  responsesStream,
  startFakeOpenAI,
  stream,
  type FakeOpenAI,
  type RecordedRequest,
} from './openai-server.js';

let agentServer: FakeOpenAI;
let compressorServer: FakeOpenAI;

beforeAll(async () => {
  [agentServer, compressorServer] = await Promise.all([startFakeOpenAI(), startFakeOpenAI()]);
});
afterAll(async () => {
  await Promise.all([agentServer.close(), compressorServer.close()]);
});
let agentBefore = 0;
let compressorBefore = 0;
beforeEach(() => {
  agentServer.clear();
  compressorServer.clear();
  agentBefore = agentServer.requests.length;
  compressorBefore = compressorServer.requests.length;
});
const agentRequests = (): RecordedRequest[] => agentServer.requests.slice(agentBefore);
const compressorRequests = (): RecordedRequest[] => compressorServer.requests.slice(compressorBefore);

const compatible = (server: FakeOpenAI) => ({ env: { [MODEL_ENV.compatibleBaseUrl]: server.baseURL } });
const fastRetry: RetryOptions = { baseDelayMs: 1, maxRetries: 1 };

/** An order lookup whose result (≈ 600 tokens of JSON) is over any threshold used here. */
const ORDER = {
  order_id: '#W2378156',
  status: 'delivered',
  items: Array.from({ length: 24 }, (_, index) => ({
    item_id: `10${index}4567890`,
    name: `Item ${index}`,
    price: 100 + index,
    options: { color: 'black', size: 'M' },
  })),
};
const ping = tool({
  name: 'ping',
  description: 'Checks the service.',
  inputSchema: z.object({}),
  execute: () => 'ok',
});
const getOrder = tool({
  name: 'get_order_details',
  description: 'Returns an order.',
  inputSchema: z.object({ order_id: z.string() }),
  execute: () => JSON.stringify(ORDER),
});

function compressedRunner(options: {
  observation?: boolean;
  history?: boolean;
  system?: boolean;
  threshold?: number;
}): Runner {
  const compressor = llmBackend({
    model: 'openai-compatible:small-compressor',
    modelOptions: compatible(compressorServer),
    retry: fastRetry,
    ...(options.system ? { system: compressorSystemPrompt } : {}),
  });
  return new Runner({
    agent: new Agent({
      name: 'retail',
      instruction: 'Help the user with their order.',
      tools: [getOrder, ping],
      observationProcessors: options.observation ? [observationCompressor({ compressor, thresholdTokens: 100 })] : [],
      processors: options.history
        ? [historyCompressor({ compressor, thresholdTokens: options.threshold ?? 50, keepLastTurns: 1 })]
        : [],
    }),
    model: 'openai-compatible:agent-model',
    modelOptions: compatible(agentServer),
    retry: fastRetry,
  });
}

const lookup = { toolCalls: [{ name: 'get_order_details', arguments: { order_id: '#W2378156' } }] };

/** The tool result the agent's request `requestIndex` carried, as the provider saw it. */
function toolResultSent(requestIndex: number): string {
  const messages = agentRequests()[requestIndex]?.body.messages as { role: string; content: unknown }[];
  const tool = messages.filter((m) => m.role === 'tool').pop();
  return typeof tool?.content === 'string' ? tool.content : JSON.stringify(tool?.content);
}

describe('item 7: a compressor provider error costs only the compression', () => {
  it('observation: 500s from the compressor leave the raw result, record the error, and the run answers', async () => {
    agentServer.enqueue(answer(lookup), answer({ text: 'Order #W2378156 was delivered.' }));
    compressorServer.enqueue(error(500, 'Compressor overloaded.'), error(500, 'Compressor overloaded.'));
    const result = await compressedRunner({ observation: true }).run({ userId: 'u', message: 'Where is #W2378156?' });
    expect(result.text).toBe('Order #W2378156 was delivered.');
    expect(compressorRequests()).toHaveLength(2);
    // The agent got the raw observation, whole.
    expect(toolResultSent(1)).toContain('"item_id":"1034567890"');
    const failures = result.ledger.entries.filter((e) => e.error);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.error).toMatchObject({
      code: 'provider-server-error',
      fault: 'system',
      retryable: true,
      fallback: 'raw-observation',
    });
    expect(result.ledger.summary.compressorErrors).toBe(1);
    expect(result.ledger.summary.compressorCalls).toBe(0);
  });

  it('history: a connection reset at the compressor keeps the raw history and the run answers', async () => {
    agentServer.enqueue(answer(lookup), answer(lookup), answer({ text: 'Delivered.' }));
    compressorServer.enqueue(reset, reset);
    const result = await compressedRunner({ history: true }).run({ userId: 'u', message: 'Where is #W2378156?' });
    expect(result.text).toBe('Delivered.');
    expect(compressorRequests().length).toBeGreaterThanOrEqual(2);
    const failure = result.ledger.entries.find((e) => e.error);
    expect(failure?.error).toMatchObject({ code: 'provider-unreachable', fallback: 'previous-history' });
    // The third request still holds the first lookup's raw result.
    expect(JSON.stringify(agentRequests()[2]?.body.messages)).toContain('1034567890');
  });
});

describe('item 9: compressor output is validated', () => {
  it('a refusal is not used: the raw observation is kept and the rejection recorded', async () => {
    agentServer.enqueue(answer(lookup), answer({ text: 'Delivered.' }));
    compressorServer.enqueue(answer({ text: "I'm sorry, but I can't help with that request." }));
    const result = await compressedRunner({ observation: true }).run({ userId: 'u', message: 'Where is #W2378156?' });
    expect(result.text).toBe('Delivered.');
    expect(toolResultSent(1)).not.toContain("I'm sorry");
    expect(toolResultSent(1)).toContain('"item_id":"1034567890"');
    expect(result.ledger.entries.find((e) => e.error)?.error).toMatchObject({
      code: 'compression-rejected',
      fault: 'model',
    });
  });

  it('a JSON observation compressed into broken JSON is not used', async () => {
    agentServer.enqueue(answer(lookup), answer({ text: 'Delivered.' }));
    compressorServer.enqueue(answer({ text: '{"order_id": "#W2378156", "status": "deliv' }));
    const result = await compressedRunner({ observation: true }).run({ userId: 'u', message: 'Where is #W2378156?' });
    expect(toolResultSent(1)).toContain('"item_id":"1034567890"');
    expect(result.ledger.entries.find((e) => e.error)?.error?.message).toMatch(/does not parse/);
  });

  it('a history summary larger than what it replaces is not saved; an empty one is not asked for again every step', async () => {
    // Six lookups, then the answer: requests 3 to 7 each have a run of turns to compress (1 to 5 turns).
    agentServer.enqueue(...Array.from({ length: 6 }, () => answer(lookup)), answer({ text: 'Done.' }));
    compressorServer.enqueue(...Array.from({ length: 5 }, () => answer({ text: '' })));
    const runner = compressedRunner({ history: true, threshold: 20 });
    const result = await runner.run({ userId: 'u', message: 'Check #W2378156 six times.' });
    expect(result.text).toBe('Done.');
    // Asked at 1 turn, again at 2 (doubled), then at 4: not at every one of the 5 requests.
    expect(compressorRequests()).toHaveLength(3);
    expect(result.ledger.summary.compressorErrors).toBe(3);
    expect(result.session.events.some((e) => e.kind === 'compaction')).toBe(false);

    compressorServer.clear();
    // A summary (capped at T_hist/2 = 2 tokens, plus its frame) longer than the small steps it replaces.
    const pingCall = { toolCalls: [{ name: 'ping', arguments: {} }] };
    agentServer.enqueue(answer(pingCall), answer(pingCall), answer({ text: 'Done.' }));
    compressorServer.enqueue(answer({ text: 'The service was checked and answered ok, twice over.' }));
    const long = await compressedRunner({ history: true, threshold: 5 }).run({ userId: 'u', message: 'Ping twice.' });
    expect(long.text).toBe('Done.');
    expect(compressorRequests()).toHaveLength(4);
    expect(long.session.events.some((e) => e.kind === 'compaction')).toBe(false);
    expect(long.ledger.entries.find((e) => e.error)?.error?.code).toBe('compression-rejected');
  });
});

async function consume(
  runner: Runner,
  message = 'Hi',
): Promise<{ deltas: string[]; result?: RunResult; error?: unknown }> {
  const deltas: string[] = [];
  let result: RunResult | undefined;
  try {
    for await (const part of runner.stream({ userId: 'u', message }) as AsyncIterable<RunStreamPart>) {
      if (part.type === 'text-delta') deltas.push(part.delta);
      if (part.type === 'finish') result = part.result;
    }
  } catch (caught) {
    return { deltas, error: caught };
  }
  return { deltas, ...(result ? { result } : {}) };
}

function streamRunner(retry: RetryOptions): Runner {
  return new Runner({
    agent: new Agent({ name: 'assistant', instruction: 'Answer briefly.' }),
    model: 'openai-compatible:test-model',
    modelOptions: compatible(agentServer),
    retry,
  });
}

describe('item 8 and reliability item 9: stream deadlines', () => {
  it('a stream that keeps sending outlives timeoutMs: only the gap between chunks is bounded', async () => {
    agentServer.enqueue(stream(['One', ' two', ' three', ' four', ' five', ' six'], { intervalMs: 120 }));
    const started = performance.now();
    const { result, error: thrown } = await consume(
      streamRunner({ timeoutMs: 400, idleTimeoutMs: 400, maxRetries: 0 }),
    );
    expect(thrown).toBeUndefined();
    expect(result?.text).toBe('One two three four five six');
    expect(performance.now() - started).toBeGreaterThan(400);
  });

  it('a stall before any content is retried; the retry answers', async () => {
    agentServer.enqueue(stream(['never'], { hangAfter: 0 }), stream(['Hello', ' again.']));
    const { result } = await consume(streamRunner({ idleTimeoutMs: 200, baseDelayMs: 1, maxRetries: 1 }));
    expect(result?.text).toBe('Hello again.');
    expect(agentRequests()).toHaveLength(2);
    expect(await agentRequests()[0]!.closed).toEqual({ early: true });
  });

  it('a stall after content ends as a model-timeout PagewiseError, not a DOMException, and is not repeated', async () => {
    agentServer.enqueue(stream(['Hello', ' never', ' sent'], { hangAfter: 1 }));
    const { deltas, error: thrown } = await consume(
      streamRunner({ idleTimeoutMs: 200, baseDelayMs: 1, maxRetries: 2 }),
    );
    expect(deltas).toEqual(['Hello']);
    expect(thrown).not.toBeInstanceOf(DOMException);
    expect(PagewiseError.isInstance(thrown)).toBe(true);
    expect((thrown as PagewiseError).code).toBe('model-timeout');
    expect((thrown as PagewiseError).retryable).toBe(true);
    expect((thrown as Error).message).toMatch(
      /sent nothing for 200 ms after part of the answer had arrived.*idleTimeoutMs/,
    );
    expect(agentRequests()).toHaveLength(1);
  });

  it('a stream that never starts hits timeoutMs as model-timeout after its retries', async () => {
    agentServer.enqueue(hang, hang);
    const { error: thrown } = await consume(streamRunner({ timeoutMs: 200, baseDelayMs: 1, maxRetries: 1 }));
    expect((thrown as PagewiseError).code).toBe('model-timeout');
    expect(agentRequests()).toHaveLength(2);
  });

  it('streamTimeoutMs caps a stream that trickles forever', async () => {
    agentServer.enqueue(
      stream(
        Array.from({ length: 40 }, (_, i) => `${i} `),
        { intervalMs: 50 },
      ),
    );
    const { error: thrown } = await consume(
      streamRunner({ idleTimeoutMs: 1000, streamTimeoutMs: 400, baseDelayMs: 1, maxRetries: 0 }),
    );
    expect((thrown as PagewiseError).code).toBe('model-timeout');
    expect((thrown as Error).message).toMatch(/ran longer than 400 ms.*streamTimeoutMs/);
  });

  it('a reset mid-stream after content is a ProviderError, not a raw TypeError', async () => {
    agentServer.enqueue(stream(['Hello', ' lost'], { resetAfter: 1 }));
    const { error: thrown } = await consume(streamRunner({ baseDelayMs: 1, maxRetries: 1 }));
    expect(thrown).toBeInstanceOf(ProviderError);
    expect((thrown as ProviderError).code).toBe('provider-unreachable');
  });

  it('a reset before the stream starts is retried', async () => {
    agentServer.enqueue(reset, stream(['Back.']));
    const { result } = await consume(streamRunner({ baseDelayMs: 1, maxRetries: 1 }));
    expect(result?.text).toBe('Back.');
  });
});

describe('item 12: streamed usage on openai-compatible', () => {
  it('runner.stream asks for usage and the ledger records the provider figures', async () => {
    agentServer.enqueue(stream(['Fine.']));
    const { result } = await consume(streamRunner({}));
    expect(agentRequests()[0]?.body.stream_options).toEqual({ include_usage: true });
    expect(result?.ledger.entries[0]?.providerPromptTokens).toBe(12);
    expect(result?.ledger.entries[0]?.providerCompletionTokens).toBe(1);
  });
});

describe('item 13: store, system prompt, fenced tool output', () => {
  const openaiRunner = (store?: boolean) =>
    new Runner({
      agent: new Agent({ name: 'assistant', instruction: 'Answer briefly.' }),
      model: 'openai:gpt-4.1-mini',
      modelOptions: {
        env: { OPENAI_API_KEY: 'sk-test-0123456789', [MODEL_ENV.openaiBaseUrl]: agentServer.baseURL },
        ...(store !== undefined ? { openaiStore: store } : {}),
      },
      retry: fastRetry,
    });

  it('openai: models speak the Responses API at OPENAI_BASE_URL with store: false, unless opted in', async () => {
    agentServer.enqueue(
      responses({ text: 'Not stored.' }),
      responsesStream(['Streamed', ' too.']),
      responses({ text: 'Stored.' }),
    );
    const generated = await openaiRunner().run({ userId: 'u', message: 'Hi' });
    expect(generated.text).toBe('Not stored.');
    const streamed = await consume(openaiRunner());
    expect(streamed.result?.text).toBe('Streamed too.');
    const stored = await openaiRunner(true).run({ userId: 'u', message: 'Hi' });
    expect(stored.text).toBe('Stored.');
    const [first, second, third] = agentRequests();
    expect(first?.path).toBe('/v1/responses');
    expect(first?.body.store).toBe(false);
    expect(second?.body.store).toBe(false);
    expect(second?.body.stream).toBe(true);
    expect(third?.body.store).toBe(true);
    expect(generated.ledger.entries[0]?.providerPromptTokens).toBe(12);
  });

  it('a served compressor gets the system prompt it was trained with, and tool output arrives fenced', async () => {
    agentServer.enqueue(answer(lookup), answer({ text: 'Delivered.' }));
    compressorServer.enqueue(answer({ text: '{"order_id":"#W2378156","status":"delivered"}' }));
    const result = await compressedRunner({ observation: true, system: true }).run({
      userId: 'u',
      message: 'Where is #W2378156?',
    });
    expect(result.text).toBe('Delivered.');
    const messages = compressorRequests()[0]?.body.messages as { role: string; content: string }[];
    expect(messages[0]).toEqual({ role: 'system', content: compressorSystemPrompt('observation') });
    const prompt = messages[1]?.content ?? '';
    const fenced = /<<<QUOTED (observation_[0-9a-f]{16})>>>\n([\s\S]*?)\n<<<END \1>>>/u.exec(prompt);
    expect(fenced?.[2]).toBe(JSON.stringify(ORDER));
    expect(toolResultSent(1)).toContain('"status":"delivered"');
    expect(toolResultSent(1)).not.toContain('1034567890');
  });
});
