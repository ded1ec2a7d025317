/**
 * `reusePrompt: 'auto'` (the default) through a real provider: a model the runner makes from a
 * `provider:model` spec (here `openai-compatible`, against a local server) gets the kept prompt array on
 * the usual step, a model object passed in gets a new array, and the requests the provider sends are the
 * same either way.
 */
import { afterAll, beforeAll, afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  Runner,
  tool,
  type ModelSpec,
  type RunnerOptions,
  type RunTelemetry,
} from '../packages/pagewise/src/index.js';
import { RequestHistory } from '../packages/pagewise/src/context/request-history.js';
import { MODEL_ENV } from '../packages/pagewise/src/models/resolve.js';
import { scriptedModel } from '../packages/pagewise/src/models/scripted.js';
import { answer, startFakeOpenAI, type FakeOpenAI } from './security/openai-server.js';

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

function enqueueScript(): void {
  for (let i = 0; i < 2; i++) {
    server.enqueue(answer({ toolCalls: [{ name: 'lookup', arguments: { id: `a${i}` } }] }));
    server.enqueue(answer({ toolCalls: [{ name: 'lookup', arguments: { id: `b${i}` } }] }));
    server.enqueue(answer({ text: 'done' }));
  }
}

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
    const steps = (p: string) => [
      { toolCalls: [{ toolName: 'lookup', input: { id: `${p}1` } }] },
      { toolCalls: [{ toolName: 'lookup', input: { id: `${p}2` } }] },
      'done',
    ];
    const model = scriptedModel([...steps('a'), ...steps('b')]);
    expect(await run(model)).toEqual(Array(6).fill(false));
    model.assertComplete();
  });
});
