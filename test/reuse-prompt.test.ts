/**
 * `reusePrompt: 'auto'` (the default) through a real provider: a model the runner makes from a
 * `provider:model` spec (here `openai-compatible`, against a local server), and an AI SDK provider object
 * passed in as users construct it, get the kept prompt array on the usual step; other model objects get a
 * new array, and what they kept never changes afterwards; the requests the provider sends are the same
 * either way.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import { afterAll, beforeAll, afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent, Runner, tool, type ModelSpec, type RunnerOptions } from '../packages/pagewise/src/index.js';
import { type RunTelemetry } from '../packages/pagewise/src/telemetry.js';
import { RequestHistory } from '../packages/pagewise/src/context/request-history.js';
import { MODEL_ENV } from '../packages/pagewise/src/models/resolve.js';
import { scriptedModel } from '../packages/pagewise/src/models/scripted.js';
import { answer, responses, startFakeOpenAI, type FakeOpenAI, type Handler } from './security/openai-server.js';

let server: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const lookup = tool({
  name: 'lookup',
  description: 'Looks a record up.',
  inputSchema: z.object({ id: z.string() }),
  execute: ({ id }) => `record ${id}: delivered`,
});

/** Two invocations of two tool steps and an answer each, on one session; returns the reuse flag of every render. */
async function run(model: ModelSpec, reusePrompt?: RunnerOptions['reusePrompt']): Promise<boolean[]> {
  const render = vi.spyOn(RequestHistory.prototype, 'render');
  const runner = new Runner({
    agent: new Agent({ name: 'a', instruction: 'You look records up.', tools: [lookup] }),
    model,
    modelOptions: { env: { [MODEL_ENV.compatibleBaseUrl]: server.baseURL } },
    ...(reusePrompt !== undefined ? { reusePrompt } : {}),
  });
  for (const message of ['first', 'second']) {
    const result = await runner.run({ userId: 'u', sessionId: 's', message });
    expect(result.text).toBe('done');
  }
  const flags = render.mock.calls.map((c) => c[1] === true);
  render.mockRestore();
  return flags;
}

/** Queues two invocations' answers (two tool calls and a text each) in the Chat Completions or the Responses format. */
function enqueueScript(format: typeof answer = answer): void {
  for (let round = 0; round < 2; round++) {
    server.enqueue(format({ toolCalls: [{ name: 'lookup', arguments: { id: `a${round}` }, id: `call_a${round}` }] }));
    server.enqueue(format({ toolCalls: [{ name: 'lookup', arguments: { id: `b${round}` }, id: `call_b${round}` }] }));
    server.enqueue(format({ text: 'done' }));
  }
}

/** The messages of the requests the server received since `from`: `messages` of chat bodies, `input` of Responses ones. */
const bodiesSince = (from: number) => server.requests.slice(from).map((r) => r.body.messages ?? r.body.input);

type Format = (a: Parameters<typeof answer>[0]) => Handler;

describe("reusePrompt 'auto'", () => {
  it('hands a provider model made from a spec the kept array, and it sends what a copy would have sent', async () => {
    const before = server.requests.length;
    enqueueScript();
    const auto = await run('openai-compatible:test-model');
    const autoBodies = server.requests.slice(before).map((r) => r.body.messages);
    enqueueScript();
    const copied = await run('openai-compatible:test-model', false);
    const copiedBodies = server.requests.slice(before + autoBodies.length).map((r) => r.body.messages);
    expect(auto).toEqual(Array(6).fill(true));
    expect(copied).toEqual(Array(6).fill(false));
    expect(autoBodies).toHaveLength(6);
    expect(autoBodies).toEqual(copiedBodies);
  });

  it('gives telemetry that keeps the content of each call the prompt as it was sent', async () => {
    const kept: { prompt: unknown; then: string }[] = [];
    const telemetry: RunTelemetry = {
      startInvocation: () => ({
        tool: (_call, _agent, run) => run(),
        processor: (_name, _kind, run) => run(),
        modelContent: (content) => void kept.push({ prompt: content.prompt, then: JSON.stringify(content.prompt) }),
        end: () => {},
      }),
      current: () => undefined,
    };
    enqueueScript();
    const runner = new Runner({
      agent: new Agent({ name: 'a', instruction: 'You look records up.', tools: [lookup] }),
      model: 'openai-compatible:test-model',
      modelOptions: { env: { [MODEL_ENV.compatibleBaseUrl]: server.baseURL } },
      telemetry,
    });
    for (const message of ['first', 'second']) await runner.run({ userId: 'u', sessionId: 's', message });
    expect(kept).toHaveLength(6);
    for (const { prompt, then } of kept) expect(JSON.stringify(prompt)).toBe(then);
  });

  it('gives a model object passed in a new array at every step', async () => {
    const steps = (prefix: string) => [
      { toolCalls: [{ toolName: 'lookup', input: { id: `${prefix}1` } }] },
      { toolCalls: [{ toolName: 'lookup', input: { id: `${prefix}2` } }] },
      'done',
    ];
    const model = scriptedModel([...steps('a'), ...steps('b')]);
    expect(await run(model)).toEqual(Array(6).fill(false));
    model.assertComplete();
  });

  it.each<[string, () => LanguageModelV3, Format]>([
    [
      'openai(id), the Responses API',
      () => createOpenAI({ apiKey: 'k', baseURL: server.baseURL })('test-model'),
      responses,
    ],
    ['openai.chat(id)', () => createOpenAI({ apiKey: 'k', baseURL: server.baseURL }).chat('test-model'), answer],
    [
      'createOpenAICompatible(…)(id)',
      () => createOpenAICompatible({ name: 'local', baseURL: server.baseURL })('test-model'),
      answer,
    ],
  ])(
    'hands the provider object %s, passed in, the kept array, and it sends what a copy would have sent',
    async (_n, make, format) => {
      const before = server.requests.length;
      enqueueScript(format);
      const auto = await run(make());
      const autoBodies = bodiesSince(before);
      const middle = server.requests.length;
      enqueueScript(format);
      const copied = await run(make(), false);
      expect(auto).toEqual(Array(6).fill(true));
      expect(copied).toEqual(Array(6).fill(false));
      expect(autoBodies).toHaveLength(6);
      expect(autoBodies).toEqual(bodiesSince(middle));
    },
  );

  it('copies for provider objects wrapped, subclassed or patched to keep the prompt, and what they kept never changes', async () => {
    const kept: { prompt: LanguageModelV3CallOptions['prompt']; then: string }[] = [];
    const keep = (options: LanguageModelV3CallOptions) =>
      void kept.push({ prompt: options.prompt, then: JSON.stringify(options.prompt) });
    const chat = () => createOpenAI({ apiKey: 'k', baseURL: server.baseURL }).chat('test-model');
    const patched = chat();
    const inner = patched.doGenerate.bind(patched);
    patched.doGenerate = (o) => (keep(o), inner(o));
    const wrapped = wrapLanguageModel({
      model: chat(),
      middleware: {
        specificationVersion: 'v3',
        wrapGenerate: ({ doGenerate, params }) => (keep(params), doGenerate()),
      },
    });
    const Chat = Object.getPrototypeOf(chat()).constructor as new (id: string, config: unknown) => LanguageModelV3;
    class Recording extends Chat {
      override doGenerate(options: LanguageModelV3CallOptions) {
        keep(options);
        return super.doGenerate(options);
      }
    }
    const sub = new Recording('test-model', (chat() as unknown as { config: unknown }).config);
    for (const model of [patched, wrapped as LanguageModelV3, sub]) {
      kept.length = 0;
      enqueueScript();
      expect(await run(model)).toEqual(Array(6).fill(false));
      expect(kept).toHaveLength(6);
      for (const { prompt, then } of kept) expect(JSON.stringify(prompt)).toBe(then);
    }
  });

  it('relies on a premise that holds: the provider objects keep no reference to the prompt array they are called with', async () => {
    const reaches = (root: unknown, target: unknown): boolean => {
      const seen = new Set<unknown>();
      const stack = [root];
      while (stack.length) {
        const value = stack.pop();
        if (value === target) return true;
        if (typeof value !== 'object' || value === null || seen.has(value)) continue;
        seen.add(value);
        for (const key of Reflect.ownKeys(value)) stack.push((value as Record<PropertyKey, unknown>)[key]);
      }
      return false;
    };
    const cases: [LanguageModelV3, Format][] = [
      [createOpenAI({ apiKey: 'k', baseURL: server.baseURL })('test-model'), responses],
      [createOpenAI({ apiKey: 'k', baseURL: server.baseURL }).chat('test-model'), answer],
      [createOpenAICompatible({ name: 'local', baseURL: server.baseURL })('test-model'), answer],
    ];
    for (const [model, format] of cases) {
      const prompt: LanguageModelV3CallOptions['prompt'] = [
        { role: 'system', content: 'You look records up.' },
        { role: 'user', content: [{ type: 'text', text: 'first' }] },
      ];
      server.enqueue(format({ text: 'done' }));
      const result = await model.doGenerate({ prompt });
      expect(result.content).toEqual([expect.objectContaining({ type: 'text', text: 'done' })]);
      expect([model.provider, reaches(result, prompt), reaches(model, prompt)]).toEqual([model.provider, false, false]);
    }
  });
});
