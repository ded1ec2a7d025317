/**
 * A local stand-in for an OpenAI-compatible server (node:http on 127.0.0.1), so provider faults and key
 * handling are tested through the real `openai-compatible` and `openai` providers: the AI SDK posts to
 * `{baseURL}/chat/completions` (or `{baseURL}/responses`, the Responses API of `openai:` models) and
 * parses the JSON answer (or SSE events when streaming). Faults: error statuses, a connection reset
 * before or in the middle of an answer, a stall, a stream that trickles.
 * Each request is answered by the next queued handler; every request is recorded with the time it
 * arrived and whether the client closed the connection before the answer was complete.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** `performance.now()` when the body had arrived. */
  at: number;
  /** Resolves when the connection closes; `early` is true when that was before the answer was complete. */
  closed: Promise<{ early: boolean }>;
}

/** Answers one request. */
export type Handler = (req: RecordedRequest, res: http.ServerResponse) => void;

/** A tool call in a scripted completion. */
export interface FakeToolCall {
  name: string;
  arguments: unknown;
  /** The call id. Default `call_<n>`, numbered within the answer. */
  id?: string;
}

/** A minimal valid chat completion, with text or tool calls. */
export function completion(answer: { text?: string; toolCalls?: FakeToolCall[] }): Record<string, unknown> {
  const toolCalls = answer.toolCalls?.map((call, index) => ({
    id: call.id ?? `call_${index + 1}`,
    type: 'function',
    function: {
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
  return {
    id: 'chatcmpl-local',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'test-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.text ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        finish_reason: toolCalls ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
  };
}

/** Handler: a JSON answer with a status and headers. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

/** Handler: a successful completion. */
export function answer(reply: { text?: string; toolCalls?: FakeToolCall[] }): Handler {
  return json(200, completion(reply));
}

/** Handler: an OpenAI-style error body. */
export function error(status: number, message: string, headers: Record<string, string> = {}): Handler {
  return json(status, { error: { message, type: 'server_error', code: status } }, headers);
}

/** Handler: never answers (the connection stays open until the client gives up). */
export const hang: Handler = () => {};

/** Options of the streamed handlers. */
export interface StreamOptions {
  /** Send this many content chunks, then stop sending without ending the response. */
  hangAfter?: number;
  /** Send this many content chunks, then reset the connection. */
  resetAfter?: number;
  /** Wait this long before each chunk (a slow but live stream). */
  intervalMs?: number;
}

/** Writes SSE events one by one, with the options' pacing, stall and reset. */
function paced(
  res: http.ServerResponse,
  events: unknown[],
  contentEvents: number,
  options: StreamOptions,
  end: () => void,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  let sent = 0;
  const next = () => {
    if (res.destroyed) return;
    if (options.hangAfter !== undefined && sent >= options.hangAfter && sent < contentEvents) return;
    if (options.resetAfter !== undefined && sent >= options.resetAfter && sent < contentEvents) {
      // After a pause, so the chunks before it reach the client first.
      setTimeout(() => res.socket?.destroy(), 50);
      return;
    }
    if (sent >= events.length) return end();
    res.write(`data: ${JSON.stringify(events[sent])}\n\n`);
    sent += 1;
    if (options.intervalMs) setTimeout(next, options.intervalMs);
    else next();
  };
  if (options.intervalMs) setTimeout(next, options.intervalMs);
  else next();
}

/**
 * Handler: a streamed chat completion (SSE) of `chunks` text pieces. Usage comes in a last chunk only
 * when the request asked for it (`stream_options.include_usage`), as OpenAI's server does.
 */
export function stream(chunks: string[], options: StreamOptions = {}): Handler {
  return (req, res) => {
    const base = { id: 'chatcmpl-local', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'test-model' };
    const events: unknown[] = chunks.map((text, index) => ({
      ...base,
      choices: [
        {
          index: 0,
          delta: index === 0 ? { role: 'assistant', content: text } : { content: text },
          finish_reason: null,
        },
      ],
    }));
    events.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    const streamOptions = req.body.stream_options as { include_usage?: boolean } | undefined;
    if (streamOptions?.include_usage)
      events.push({
        ...base,
        choices: [],
        usage: { prompt_tokens: 12, completion_tokens: chunks.length, total_tokens: 12 + chunks.length },
      });
    paced(res, events, chunks.length, options, () => res.end('data: [DONE]\n\n'));
  };
}

/** Handler: the connection is reset before any answer (a proxy or server dying mid-request). */
export const reset: Handler = (_req, res) => {
  res.socket?.destroy();
};

/** A Responses API answer (`POST /responses`), as `openai:` models receive it. */
export function responsesBody(answer: { text?: string; toolCalls?: FakeToolCall[] }): Record<string, unknown> {
  const output: unknown[] = [];
  if (answer.text !== undefined)
    output.push({
      type: 'message',
      id: 'msg_local',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: answer.text, annotations: [] }],
    });
  answer.toolCalls?.forEach((call, index) =>
    output.push({
      type: 'function_call',
      id: `fc_${call.id ?? index + 1}`,
      call_id: call.id ?? `call_${index + 1}`,
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      status: 'completed',
    }),
  );
  return {
    id: 'resp_local',
    object: 'response',
    created_at: 1_700_000_000,
    model: 'test-model',
    status: 'completed',
    output,
    incomplete_details: null,
    usage: { input_tokens: 12, output_tokens: 3, total_tokens: 15 },
  };
}

/** Handler: a Responses API answer. */
export function responses(answer: { text?: string; toolCalls?: FakeToolCall[] }): Handler {
  return json(200, responsesBody(answer));
}

/** Handler: a streamed Responses API answer of `chunks` text pieces. */
export function responsesStream(chunks: string[], options: StreamOptions = {}): Handler {
  return (_req, res) => {
    const events: unknown[] = chunks.map((delta) => ({
      type: 'response.output_text.delta',
      item_id: 'msg_local',
      delta,
    }));
    events.unshift(
      { type: 'response.created', response: { id: 'resp_local', created_at: 1_700_000_000, model: 'test-model' } },
      { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'msg_local' } },
    );
    events.push(
      { type: 'response.output_item.done', output_index: 0, item: { type: 'message', id: 'msg_local' } },
      {
        type: 'response.completed',
        response: { incomplete_details: null, usage: { input_tokens: 12, output_tokens: chunks.length } },
      },
    );
    // The two opening events carry no content: the stall or reset comes after `n` text deltas.
    const shift = (n: number | undefined) => (n === undefined ? undefined : n + 2);
    paced(
      res,
      events,
      chunks.length + 2,
      { ...options, hangAfter: shift(options.hangAfter), resetAfter: shift(options.resetAfter) },
      () => res.end(),
    );
  };
}

/** A running local server. */
export interface FakeOpenAI {
  /** The base URL to put in PAGEWISE_OPENAI_COMPATIBLE_BASE_URL. */
  baseURL: string;
  requests: RecordedRequest[];
  /** Queues handlers for the next requests, in order. */
  enqueue(...handlers: Handler[]): void;
  /** Drops the handlers still queued. */
  clear(): void;
  /** Resolves with the next request to arrive. */
  nextRequest(): Promise<RecordedRequest>;
  close(): Promise<void>;
}

/**
 * Starts the server. Without a queued handler a request gets a 500 naming the problem, so a test that
 * makes more calls than it scripted fails visibly. With `requireKey`, any request whose Authorization
 * header is not `Bearer <key>` gets a 401, which proves the key reached the provider.
 */
export async function startFakeOpenAI(options: { requireKey?: string } = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const queue: Handler[] = [];
  const waiters: ((r: RecordedRequest) => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // Recorded as empty; the handler decides what to answer.
      }
      const closed = new Promise<{ early: boolean }>((resolve) =>
        res.on('close', () => resolve({ early: !res.writableFinished })),
      );
      const rec: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        at: performance.now(),
        closed,
      };
      requests.push(rec);
      waiters.shift()?.(rec);
      if (options.requireKey !== undefined && req.headers.authorization !== `Bearer ${options.requireKey}`) {
        error(401, 'The Authorization header does not carry the expected key.')(rec, res);
        return;
      }
      const handler =
        queue.shift() ?? error(500, `The local test server had no answer queued for request #${requests.length}.`);
      handler(rec, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...handlers) => queue.push(...handlers),
    clear: () => void queue.splice(0),
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
