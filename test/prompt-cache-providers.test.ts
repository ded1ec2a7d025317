/**
 * Prompt-cache hints in the request bodies the real providers send, against local scripted servers on
 * 127.0.0.1: `@ai-sdk/anthropic` gets `cache_control` breakpoints at the end of the system prompt and at the
 * end of the history (never on the step block after it), `@ai-sdk/openai` a `prompt_cache_key` that is the
 * same for every call of a session and differs between sessions, on the Responses and the chat API.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAiSdkPaging } from '../packages/pagewise/src/ai-sdk.js';
import { Agent, Runner, type ModelSpec, type RunnerOptions } from '../packages/pagewise/src/index.js';
import { STEP_BLOCK_HEADER } from '../packages/pagewise/src/context.js';
import { createPagingTools, pagedInstruction, PagingService } from '../packages/pagewise/src/paging.js';
import { loaderSource } from '../packages/pagewise/src/sources.js';
import { MODEL_ENV } from '../packages/pagewise/src/models/resolve.js';
import {
  answer,
  json,
  responses,
  startFakeOpenAI,
  type FakeOpenAI,
  type FakeToolCall,
  type Handler,
} from './security/openai-server.js';

let server: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.clear();
  server.requests.length = 0;
});

const INSTRUCTION = 'You read reports and save what each batch says.';
const docs: Record<string, string> = { a: 'Report a: revenue 12.', b: 'Report b: revenue 30.' };

function pagingService(): PagingService {
  return new PagingService({
    source: loaderSource(
      'test',
      (uri) => uri in docs,
      (uri) => ({ body: docs[uri]!, title: uri }),
    ),
  });
}

function pagingAgent(): Agent {
  const service = pagingService();
  const tools = createPagingTools(service);
  return new Agent({
    name: 'reader',
    instruction: pagedInstruction({
      base: INSTRUCTION,
      perStep: (ctx) => `Saved so far: ${Object.keys(ctx.state).filter((key) => key.startsWith('result:')).length}.`,
      service,
    }),
    tools: [tools.get_reports, tools.save_result],
  });
}

const loadThenSave: FakeToolCall[][] = [
  [{ name: 'get_reports', arguments: { urls: ['a', 'b'] } }],
  [{ name: 'save_result', arguments: { task_id: 'total', result: 'revenue 42' } }],
];

/** An Anthropic Messages API answer. */
function anthropicAnswer(step: { text?: string; toolCalls?: FakeToolCall[] }, index: number): Handler {
  const content = step.toolCalls
    ? step.toolCalls.map((call, callIndex) => ({
        type: 'tool_use',
        id: `toolu_${index}_${callIndex}`,
        name: call.name,
        input: call.arguments,
      }))
    : [{ type: 'text', text: step.text ?? '' }];
  return json(200, {
    id: `msg_${index}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content,
    stop_reason: step.toolCalls ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 20, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  });
}

interface AnthropicBlock {
  type: string;
  text?: string;
  cache_control?: unknown;
}
interface AnthropicBody {
  system?: AnthropicBlock[];
  messages: { role: string; content: AnthropicBlock[] }[];
  tools?: { name: string; cache_control?: unknown }[];
}

/** Where the breakpoints of a body are: `system:<i>`, `tools:<i>`, `messages:<m>:<block>`. */
function breakpoints(body: AnthropicBody): string[] {
  const at: string[] = [];
  body.system?.forEach((block, index) => block.cache_control && at.push(`system:${index}`));
  body.tools?.forEach((tool, index) => tool.cache_control && at.push(`tools:${index}`));
  body.messages.forEach((message, messageIndex) =>
    message.content.forEach((block, index) => block.cache_control && at.push(`messages:${messageIndex}:${index}`)),
  );
  return at;
}

async function runAnthropic(cacheHints?: RunnerOptions['cacheHints']): Promise<AnthropicBody[]> {
  const steps = [...loadThenSave.map((toolCalls) => ({ toolCalls })), { text: 'Total revenue: 42.' }];
  server.enqueue(...steps.map((step, index) => anthropicAnswer(step, index)));
  const model = createAnthropic({ apiKey: 'test-key', baseURL: server.baseURL })('claude-sonnet-4-5');
  const runner = new Runner({ agent: pagingAgent(), model, ...(cacheHints ? { cacheHints } : {}) });
  const result = await runner.run({ userId: 'u', sessionId: 's', message: 'What is the total revenue?' });
  expect(result.text).toBe('Total revenue: 42.');
  return server.requests.map((request) => request.body as unknown as AnthropicBody);
}

describe('Anthropic: cache_control breakpoints', () => {
  it('marks the end of the system prompt and the end of the history, never the step block after it', async () => {
    const bodies = await runAnthropic();
    expect(bodies).toHaveLength(3);
    for (const body of bodies) {
      expect(body.system).toEqual([{ type: 'text', text: INSTRUCTION, cache_control: { type: 'ephemeral' } }]);
      // The step block is the last text block of the last message (Anthropic merges it into the user turn
      // before it); the history's breakpoint is the block right before it.
      const last = body.messages.at(-1)!;
      const block = last.content.at(-1)!;
      expect(block.type).toBe('text');
      expect(block.text!.startsWith(STEP_BLOCK_HEADER)).toBe(true);
      expect(block.cache_control).toBeUndefined();
      expect(breakpoints(body)).toEqual([
        'system:0',
        `messages:${body.messages.length - 1}:${last.content.length - 2}`,
      ]);
    }
    // The history's breakpoint moves to the newest turn: after the load, on its tool result.
    const second = bodies[1]!.messages.at(-1)!.content;
    expect(second.map((block) => block.type)).toEqual(['tool_result', 'text']);
    // The prefix before the step block is the same bytes from call to call, the markers aside.
    const withoutMarks = (body: AnthropicBody) =>
      body.messages.map((message) => ({
        role: message.role,
        content: message.content
          .filter((block) => !block.text?.startsWith(STEP_BLOCK_HEADER))
          .map(({ cache_control: _marker, ...rest }) => rest),
      }));
    for (let index = 1; index < bodies.length; index++) {
      const before = withoutMarks(bodies[index - 1]!);
      const after = withoutMarks(bodies[index]!);
      const head = after.slice(0, before.length);
      // The last message of the previous call may have grown by merged blocks; each earlier one is unchanged.
      expect(head.slice(0, -1)).toEqual(before.slice(0, -1));
      expect(head.at(-1)!.content.slice(0, before.at(-1)!.content.length)).toEqual(before.at(-1)!.content);
    }
  });

  it('sets no breakpoint when turned off', async () => {
    const bodies = await runAnthropic({ breakpoints: false });
    for (const body of bodies) expect(breakpoints(body)).toEqual([]);
  });
});

describe('OpenAI: prompt_cache_key', () => {
  const env = { [MODEL_ENV.openai]: 'test-key', [MODEL_ENV.openaiBaseUrl]: '' };

  async function keysOf(model: ModelSpec, handler: typeof answer, options: Partial<RunnerOptions> = {}) {
    const runner = new Runner({
      agent: pagingAgent(),
      model,
      modelOptions: { env: { ...env, [MODEL_ENV.openaiBaseUrl]: server.baseURL } },
      ...options,
    });
    const keys: Record<string, unknown[]> = {};
    for (const sessionId of ['one', 'two']) {
      server.requests.length = 0;
      server.enqueue(...loadThenSave.map((toolCalls) => handler({ toolCalls })), handler({ text: 'done' }));
      const result = await runner.run({ userId: 'u', sessionId, message: 'Total revenue?' });
      expect(result.text).toBe('done');
      keys[sessionId] = server.requests.map((request) => request.body.prompt_cache_key);
    }
    return keys;
  }

  it('Responses API: the same key for every call of a session, another for another session', async () => {
    const keys = await keysOf('openai:gpt-4.1-mini', responses);
    expect(server.requests[0]!.path).toBe('/v1/responses');
    const one = keys.one!;
    const two = keys.two!;
    expect(one).toHaveLength(3);
    expect(typeof one[0]).toBe('string');
    expect(new Set(one).size).toBe(1);
    expect(new Set(two).size).toBe(1);
    expect(two[0]).not.toBe(one[0]);
    // A hash: neither the user nor the session id is sent.
    expect(String(one[0])).not.toContain('one');
  });

  it('chat API: the key is sent too, and not at all when turned off', async () => {
    const chat = createOpenAI({ apiKey: 'test-key', baseURL: server.baseURL }).chat('gpt-4.1-mini');
    const keys = await keysOf(chat, answer);
    expect(server.requests[0]!.path).toBe('/v1/chat/completions');
    expect(new Set(keys.one).size).toBe(1);
    expect(typeof keys.one![0]).toBe('string');
    expect(keys.two![0]).not.toBe(keys.one![0]);
    const off = await keysOf(chat, answer, { cacheHints: { cacheKey: false } });
    expect([...off.one!, ...off.two!]).toEqual(Array(6).fill(undefined));
  });
});

describe('AI SDK paging: the same hints from prepareStep', () => {
  async function run(model: Parameters<typeof generateText>[0]['model'], sessionId: string, steps: Handler[]) {
    server.requests.length = 0;
    server.enqueue(...steps);
    // The script loads with the pattern's get_reports, which the AI SDK paging offers when it is named.
    const paging = createAiSdkPaging({
      service: pagingService(),
      instruction: INSTRUCTION,
      sessionId,
      tools: ['get_reports', 'save_result'],
    });
    const result = await generateText({
      model,
      tools: paging.tools,
      prepareStep: paging.prepareStep,
      stopWhen: stepCountIs(5),
      prompt: 'What is the total revenue?',
    });
    return { text: result.text, bodies: server.requests.map((request) => request.body) };
  }

  it('Anthropic: a breakpoint at the end of the history, none on the step block', async () => {
    const model = createAnthropic({ apiKey: 'test-key', baseURL: server.baseURL })('claude-sonnet-4-5');
    const steps = [...loadThenSave.map((toolCalls) => ({ toolCalls })), { text: 'Total revenue: 42.' }];
    const { text, bodies } = await run(
      model,
      's',
      steps.map((step, index) => anthropicAnswer(step, index)),
    );
    expect(text).toBe('Total revenue: 42.');
    expect(bodies).toHaveLength(3);
    for (const raw of bodies.slice(1)) {
      const body = raw as unknown as AnthropicBody;
      const last = body.messages.at(-1)!;
      expect(last.content.at(-1)!.text!.startsWith(STEP_BLOCK_HEADER)).toBe(true);
      expect(breakpoints(body)).toEqual([`messages:${body.messages.length - 1}:${last.content.length - 2}`]);
    }
  });

  it('OpenAI: a prompt_cache_key per sessionId, the same at every step', async () => {
    const model = createOpenAI({ apiKey: 'test-key', baseURL: server.baseURL }).responses('gpt-4.1-mini');
    const steps = () => [...loadThenSave.map((toolCalls) => responses({ toolCalls })), responses({ text: 'done' })];
    const one = (await run(model, 'one', steps())).bodies.map((body) => body.prompt_cache_key);
    const two = (await run(model, 'two', steps())).bodies.map((body) => body.prompt_cache_key);
    expect(one).toHaveLength(3);
    expect(typeof one[0]).toBe('string');
    expect(new Set(one).size).toBe(1);
    expect(new Set(two).size).toBe(1);
    expect(two[0]).not.toBe(one[0]);
  });
});
