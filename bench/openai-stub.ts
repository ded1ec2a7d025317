/**
 * A scripted stand-in for the OpenAI Responses API on 127.0.0.1 (node:http), so a benchmark can run a real
 * AI SDK provider object (`createOpenAI({ baseURL })('gpt-4.1')`) without a network: each `POST /responses`
 * is answered with the next queued answer, after its body has been read in full.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: text, or calls of tools with their JSON input. */
export type StubAnswer = string | { toolCalls: { toolName: string; input: unknown }[] };

/** A running stub server. */
export interface ResponsesStub {
  /** The base URL to pass to `createOpenAI`, ending in `/v1`. */
  baseURL: string;
  /** Queues answers for the next requests, in order. */
  enqueue(answers: readonly StubAnswer[]): void;
  close(): Promise<void>;
}

let calls = 0;

function body(answer: StubAnswer): string {
  const output =
    typeof answer === 'string'
      ? [
          {
            type: 'message',
            id: 'msg_stub',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: answer, annotations: [] }],
          },
        ]
      : answer.toolCalls.map((call) => {
          calls += 1;
          return {
            type: 'function_call',
            id: `fc_${calls}`,
            call_id: `call_${calls}`,
            name: call.toolName,
            arguments: JSON.stringify(call.input),
            status: 'completed',
          };
        });
  return JSON.stringify({
    id: 'resp_stub',
    object: 'response',
    created_at: 1_700_000_000,
    model: 'gpt-4.1',
    status: 'completed',
    output,
    incomplete_details: null,
    usage: { input_tokens: 12, output_tokens: 3, total_tokens: 15 },
  });
}

/** Starts the stub on an ephemeral port. A request with nothing queued gets a 500. */
export async function startResponsesStub(): Promise<ResponsesStub> {
  const queue: StubAnswer[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const next = queue.shift();
      if (next === undefined || req.url !== '/v1/responses') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `nothing queued for ${req.url}` } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body(next));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    enqueue: (answers) => queue.push(...answers),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
