/**
 * End to end: a compressed retail episode (the real tau-bench retail tools and data, observation and
 * history compression by an LLM compressor) against local servers scripted like a model, over Chat
 * Completions and the Responses API, streaming and not, with injected 500s, connection resets, stalls and
 * refusals. Each run ends with the correct answer, or with a clear PagewiseError; never a raw error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, PagewiseError, Runner, type RunResult } from '../../packages/pagewise/src/index.js';
import { historyCompressor, llmBackend, observationCompressor } from '../../packages/pagewise/src/compression.js';
import { MODEL_ENV } from '../../packages/pagewise/src/models/resolve.js';
import {
  RETAIL_TOOL_NAMES,
  TAU_RETAIL_DIR_ENV,
  checkAnswer,
  createRetailTools,
  generateRetailTasks,
  loadRetailData,
  retailDataAvailable,
  type RetailTask,
} from '../../packages/lab/src/scenarios/retail/index.js';
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
  type Handler,
} from './openai-server.js';

const available = retailDataAvailable();
if (!available)
  console.log(
    `real-model-e2e: skipped, no tau-bench retail data (run \`pagewise data fetch tau-retail\` or set ${TAU_RETAIL_DIR_ENV}).`,
  );

let agentServer: FakeOpenAI;
let compressorServer: FakeOpenAI;
let task: RetailTask;
let tools: ReturnType<typeof createRetailTools>;

beforeAll(async () => {
  if (!available) return;
  [agentServer, compressorServer] = await Promise.all([startFakeOpenAI(), startFakeOpenAI()]);
  const data = await loadRetailData();
  task = generateRetailTasks(data, { count: 1, seed: 1 })[0]!;
  tools = createRetailTools(data);
});
afterAll(async () => {
  await Promise.all([agentServer?.close(), compressorServer?.close()]);
});

type Api = 'chat' | 'responses';

function runner(api: Api): Runner {
  const compressor = llmBackend({
    model: 'openai-compatible:compressor',
    modelOptions: { env: { [MODEL_ENV.compatibleBaseUrl]: compressorServer.baseURL } },
    retry: { baseDelayMs: 1, maxRetries: 1, timeoutMs: 2_000 },
  });
  return new Runner({
    agent: new Agent({
      name: 'retail',
      instruction: 'Answer the customer from the tools.',
      tools,
      observationProcessors: [observationCompressor({ compressor, thresholdTokens: 64 })],
      processors: [historyCompressor({ compressor, thresholdTokens: 200, keepLastTurns: 1 })],
    }),
    model: api === 'chat' ? 'openai-compatible:agent' : 'openai:gpt-4.1-mini',
    modelOptions: {
      env:
        api === 'chat'
          ? { [MODEL_ENV.compatibleBaseUrl]: agentServer.baseURL }
          : { OPENAI_API_KEY: 'sk-local-test-key', [MODEL_ENV.openaiBaseUrl]: agentServer.baseURL },
    },
    retry: { baseDelayMs: 1, maxRetries: 2, timeoutMs: 2_000, idleTimeoutMs: 300 },
  });
}

/** The agent's scripted turns: a user lookup, the user's orders, then the answer. */
function agentScript(api: Api, streaming: boolean): Handler[] {
  const userId = task.customers[0]!.userId;
  const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: args }] });
  const toolTurn = (name: string, args: unknown) =>
    api === 'chat' ? answer(call(name, args)) : responses(call(name, args));
  const final = streaming
    ? api === 'chat'
      ? stream([task.goldAnswer.slice(0, 10), task.goldAnswer.slice(10)])
      : responsesStream([task.goldAnswer.slice(0, 10), task.goldAnswer.slice(10)])
    : api === 'chat'
      ? answer({ text: task.goldAnswer })
      : responses({ text: task.goldAnswer });
  const stall = streaming
    ? api === 'chat'
      ? stream(['x'], { hangAfter: 0 })
      : responsesStream(['x'], { hangAfter: 0 })
    : hang;
  return [
    error(500, 'Internal error.'),
    toolTurn(RETAIL_TOOL_NAMES.getUser, { user_id: userId }),
    reset,
    toolTurn(RETAIL_TOOL_NAMES.listUserOrders, { user_id: userId }),
    stall,
    final,
  ];
}

async function runEpisode(api: Api, streaming: boolean): Promise<RunResult> {
  const agentRunner = runner(api);
  if (!streaming) return agentRunner.run({ userId: 'u', message: task.prompt });
  let result: RunResult | undefined;
  for await (const part of agentRunner.stream({ userId: 'u', message: task.prompt }))
    if (part.type === 'finish') result = part.result;
  return result!;
}

describe.skipIf(!available)('a compressed retail episode against scripted servers with faults', () => {
  for (const api of ['chat', 'responses'] as const)
    for (const streaming of [false, true])
      it(`${api}, ${streaming ? 'streaming' : 'generated'}: 500, reset, stall and a refusing compressor; the answer is correct`, async () => {
        agentServer.clear();
        compressorServer.clear();
        const before = agentServer.requests.length;
        // Tool turns are generated calls in `run` and streamed calls in `stream`: script both the same.
        const script = agentScript(api, streaming).map((handler, index, all) =>
          streaming && index < all.length - 2 && handler !== reset && index % 2 === 1
            ? toStreamed(api, handler)
            : handler,
        );
        agentServer.enqueue(...script);
        // The compressor: an outage, then a refusal, then whatever comes (each costs only its compression).
        compressorServer.enqueue(
          error(500, 'Compressor down.'),
          error(500, 'Compressor down.'),
          answer({ text: "I'm sorry, but I can't help with that." }),
          reset,
          reset,
          reset,
          reset,
        );
        const result = await runEpisode(api, streaming);
        expect(checkAnswer(task, result.text)).toBe(true);
        expect(agentServer.requests.length - before).toBe(6);
        expect(result.ledger.summary.compressorErrors).toBeGreaterThanOrEqual(1);
        expect(result.ledger.entries.filter((e) => e.error).every((e) => e.error!.fallback !== undefined)).toBe(true);
      });

  for (const api of ['chat', 'responses'] as const)
    it(`${api}: a provider that stays down ends the run with a PagewiseError, never a raw error`, async () => {
      agentServer.clear();
      compressorServer.clear();
      agentServer.enqueue(error(503, 'Down.'), reset, error(500, 'Down.'));
      const thrown = await runEpisode(api, false).catch((x: unknown) => x);
      expect(PagewiseError.isInstance(thrown)).toBe(true);
      expect((thrown as PagewiseError).retryable).toBe(true);
      expect((thrown as Error).cause).toBeDefined();
    });
});

/** The streamed form of a scripted tool turn, for a run through `runner.stream`. */
function toStreamed(api: Api, handler: Handler): Handler {
  // The tool turn's JSON is produced by calling the handler against a capturing response.
  return (req, res) => {
    const chunks: Buffer[] = [];
    const capture = {
      writeHead: () => capture,
      end: (body: string) => {
        chunks.push(Buffer.from(body));
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        streamToolTurn(api, parsed)(req, res);
      },
    } as unknown as Parameters<Handler>[1];
    handler(req, capture);
  };
}

/** A tool-call turn as SSE events, from the JSON answer of the same turn. */
function streamToolTurn(api: Api, body: Record<string, unknown>): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    if (api === 'chat') {
      const message = (body.choices as { message: { tool_calls: unknown[] } }[])[0]!.message;
      const base = { id: 'chatcmpl-local', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'agent' };
      const calls = (message.tool_calls as { id: string; function: { name: string; arguments: string } }[]).map(
        (c, index) => ({ index, id: c.id, type: 'function', function: c.function }),
      );
      send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', tool_calls: calls }, finish_reason: null }] });
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
      res.end('data: [DONE]\n\n');
      return;
    }
    const item = (body.output as Record<string, unknown>[])[0]!;
    send({ type: 'response.created', response: { id: 'resp_local', created_at: 1_700_000_000, model: 'agent' } });
    send({ type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress' } });
    send({ type: 'response.output_item.done', output_index: 0, item });
    send({
      type: 'response.completed',
      response: { incomplete_details: null, usage: { input_tokens: 12, output_tokens: 3 } },
    });
    res.end();
  };
}
