/**
 * The documented OpenAI Agents setup (examples/openai-agents-session.ts, the code block of docs/adapters.md
 * and of this package's README), run by the SDK's own runner and OpenAI models against a local
 * OpenAI-compatible server, over Chat Completions and over Responses: two runs on one session, a tool
 * result of about 7,000 tokens compressed once, its raw text behind the handle byte for byte.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAnalyst } from '../../../examples/openai-agents-session.js';
import {
  answer,
  responses,
  startFakeOpenAI,
  type FakeOpenAI,
  type FakeToolCall,
  type Handler,
  type RecordedRequest,
} from '../../../test/security/openai-server.js';
import { handleOf } from '../../pagewise/src/compression/transcript.js';
import { parseFencedPages } from '../../pagewise/src/paging/fence.js';
import { STEP_BLOCK_HEADER } from '../../pagewise/src/context/request.js';
import { PagingService } from '../../pagewise/src/paging/service.js';
import { countTokens } from '../../pagewise/src/tokens/tokenizer.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** The region of the example between its `docs:` markers. */
async function documentedSetup(): Promise<string> {
  const example = await readFile(path.join(ROOT, 'examples/openai-agents-session.ts'), 'utf8');
  const start = example.indexOf('// docs:start\n') + '// docs:start\n'.length;
  return example.slice(start, example.indexOf('// docs:end')).trimEnd();
}

/** The code of every ```ts block of a markdown file. */
async function typescriptBlocksOf(file: string): Promise<string[]> {
  const markdown = await readFile(path.join(ROOT, file), 'utf8');
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gmu)].map((match) => match[1]!.trimEnd());
}

describe('the documented OpenAI Agents setup', () => {
  it('is the code the guide and the package README show', async () => {
    const setup = await documentedSetup();
    expect(setup).toContain('new PagewiseSession(');
    expect(await typescriptBlocksOf('docs/adapters.md')).toContain(setup);
    expect(await typescriptBlocksOf('packages/openai-agents/README.md')).toContain(setup);
  });
});

/** A catalogue of about 7,000 tokens; the line the question needs is one of its first. */
const NEEDED = 'Part E-4711 (brass widget) is held in warehouse Oslo, bin 3.';
const catalogue = [
  'Parts catalogue, spring edition.',
  NEEDED,
  ...Array.from(
    { length: 300 },
    (_, index) => `Part G-${1000 + index} (gasket, ${index % 12} mm) is held in warehouse Lyon, bin ${index % 40}.`,
  ),
].join('\n');

/** The text of a message's or a result's content: a string, or its parts' texts joined. */
const text = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: string }) => part.text ?? '').join('')
      : '';

/** The function results of a Chat Completions or Responses request, in order. */
function functionOutputs(request: RecordedRequest): string[] {
  const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
  const items = (Array.isArray(request.body.input) ? request.body.input : []) as { type?: string; output?: unknown }[];
  return [
    ...messages.filter((message) => message.role === 'tool').map((message) => text(message.content)),
    ...items.filter((item) => item.type === 'function_call_output').map((item) => text(item.output)),
  ];
}

/** The system instructions of a request. */
function instructionsOf(request: RecordedRequest): string {
  if (typeof request.body.instructions === 'string') return request.body.instructions;
  const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
  const system = messages.find((message) => message.role === 'system' || message.role === 'developer');
  return typeof system?.content === 'string' ? system.content : '';
}

/** The step block of a request: its last message, when that is a user message with the step block's header. */
function stepBlockOf(request: RecordedRequest): string {
  const list = (request.body.messages ?? request.body.input ?? []) as { role?: string; content?: unknown }[];
  const last = Array.isArray(list) ? list.at(-1) : undefined;
  const body = last?.role === 'user' ? text(last.content) : '';
  return body.startsWith(STEP_BLOCK_HEADER) ? body : '';
}

const APIS = {
  chat_completions: { path: '/v1/chat/completions', reply: answer },
  responses: { path: '/v1/responses', reply: responses },
} as const;

// One server and one client for both APIs: the SDK's default provider keeps the first client it is given.
let server: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI({ requireKey: 'local-test-key' });
  setDefaultOpenAIClient(new OpenAI({ baseURL: server.baseURL, apiKey: 'local-test-key' }));
  setTracingDisabled(true);
});
afterAll(async () => {
  await server.close();
});

describe.each(Object.keys(APIS) as (keyof typeof APIS)[])('the documented setup over %s', (api) => {
  const { path: endpoint, reply } = APIS[api];

  it('compresses the result once over two runs of one session; page_in returns the raw text byte for byte', async () => {
    expect(countTokens(catalogue)).toBeGreaterThan(6900);
    expect(countTokens(catalogue)).toBeLessThan(7200);
    setOpenAIAPI(api);
    server.clear();
    const first = server.requests.length;
    const paging = new PagingService();
    const fetchCatalogue = tool({
      name: 'fetch_catalogue',
      description: 'The parts catalogue.',
      parameters: z.object({}),
      execute: () => catalogue,
    });
    const analyst = await createAnalyst(paging, [fetchCatalogue]);
    const call = (toolCall: FakeToolCall): Handler => reply({ toolCalls: [toolCall] });
    // The second run follows the handle it is shown.
    const followHandle: Handler = (request, response) =>
      call({ name: 'page_in', arguments: { uris: [handleOf(functionOutputs(request)[0] ?? '')] }, id: 'call_page' })(
        request,
        response,
      );
    server.enqueue(
      call({ name: 'fetch_catalogue', arguments: {}, id: 'call_catalogue' }),
      reply({ text: 'Oslo, bin 3.' }),
      followHandle,
      reply({ text: 'Checked against the full catalogue.' }),
    );

    expect(await analyst.ask('Which warehouse holds part E-4711?')).toBe('Oslo, bin 3.');
    expect(await analyst.ask('Check that against the full catalogue.')).toBe('Checked against the full catalogue.');
    const requests = server.requests.slice(first);
    expect(requests.map((request) => request.path)).toEqual(Array(4).fill(endpoint));

    const [, firstSeen, secondRun, afterPageIn] = requests.map(functionOutputs);
    const compressed = firstSeen![0]!;
    const handle = handleOf(compressed);
    expect(handle).toBe('tool://fetch_catalogue/call_catalogue');
    expect(countTokens(compressed)).toBeLessThan(countTokens(catalogue));
    // The first compression kept the needed line, so the second run has it too: the stored result is shown
    // as it was, not compressed again.
    expect(compressed).toContain(NEEDED);
    expect(secondRun![0]).toBe(compressed);
    expect(afterPageIn![0]).toBe(compressed);
    for (const output of [...firstSeen!, ...secondRun!, ...afterPageIn!]) {
      expect(output.match(/^<<<QUOTED /gmu) ?? []).toHaveLength(output === compressed ? 1 : 0);
      expect(output).not.toContain('‹‹‹QUOTED');
      expect(output.match(/\[pagewise\] Compressed from/gu) ?? []).toHaveLength(output === compressed ? 1 : 0);
    }
    // The session stores the compressed text once, with the handle the model followed.
    const stored = (await analyst.session.getItems()).filter(
      (item) => 'type' in item && item.type === 'function_call_result' && item.callId === 'call_catalogue',
    );
    expect(stored.map((item) => (item as { output: unknown }).output)).toEqual([compressed]);
    // The raw text behind the handle, byte for byte: in the store, and as page_in put it into the instruction.
    expect(await paging.body(handle!, analyst.context.pagewise.sessionId)).toBe(catalogue);
    // page_in put it in the step block after the history; the instructions stay the same on every call.
    const paged = parseFencedPages(stepBlockOf(requests[3]!)).pages;
    expect(paged.map((page) => [page.uri, page.body])).toEqual([[handle, catalogue]]);
    expect(new Set(requests.map(instructionsOf))).toEqual(new Set([instructionsOf(requests[0]!)]));
    expect(parseFencedPages(instructionsOf(requests[3]!)).pages).toEqual([]);
  });
});
