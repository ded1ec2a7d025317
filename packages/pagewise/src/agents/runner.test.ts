import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AbortedError,
  ContextWindowExceededError,
  LimitExceededError,
  ModelBehaviorError,
  SystemError,
} from '../errors.js';
import { fifoHistory } from '../context/processors.js';
import type { ContextProcessor } from '../context/request.js';
import { scriptedModel } from '../models/scripted.js';
import { InMemorySessionStore } from '../session/memory-store.js';
import { Agent } from './agent.js';
import { Runner } from './runner.js';
import { tool } from './tool.js';

const echo = tool({
  name: 'echo',
  description: 'Echoes a word.',
  inputSchema: z.object({ word: z.string().max(20) }),
  execute: ({ word }) => `echo: ${word}`,
});

function lastToolOutputs(model: ReturnType<typeof scriptedModel>, call: number): string[] {
  const turn = model.views[call]!.turns.at(-1);
  return turn?.role === 'tool' ? turn.results.map((r) => r.output) : [];
}

describe('Runner: bad input from the model becomes an error result and the run continues', () => {
  it('handles unknown tools, invalid JSON, schema failures and oversized arguments', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'nope', input: {} },
          { toolName: 'echo', input: { word: 123 } },
          { toolName: 'echo', input: { word: 'x'.repeat(50) } },
        ],
        rawToolCalls: [{ toolName: 'echo', inputText: '{"word": ' }],
      },
      'done',
    ]);
    const runner = new Runner({
      agent: new Agent({ name: 'a', tools: [echo] }),
      model,
      limits: { maxToolArgumentBytes: 40 },
    });
    const result = await runner.run({ userId: 'u', message: 'go' });
    expect(result.text).toBe('done');
    const outputs = lastToolOutputs(model, 1);
    expect(outputs[0]).toMatch(/unknown tool "nope"\. Available tools: echo/);
    expect(outputs[1]).toMatch(/invalid arguments for echo/);
    expect(outputs[2]).toMatch(/maxToolArgumentBytes/);
    expect(outputs[3]).toMatch(/not valid \(not JSON/);
    model.assertComplete();
  });

  it('caps tool calls per step with an error that names the setting', async () => {
    const model = scriptedModel([
      { toolCalls: Array.from({ length: 3 }, (_, i) => ({ toolName: 'echo', input: { word: `w${i}` } })) },
      'ok',
    ]);
    const runner = new Runner({
      agent: new Agent({ name: 'a', tools: [echo] }),
      model,
      limits: { maxToolCallsPerStep: 2 },
    });
    await runner.run({ userId: 'u', message: 'go' });
    const outputs = lastToolOutputs(model, 1);
    expect(outputs.slice(0, 2)).toEqual(['echo: w0', 'echo: w1']);
    expect(outputs[2]).toMatch(/limits\.maxToolCallsPerStep/);
  });

  it('nudges after an empty response and fails after three in a row', async () => {
    const ok = scriptedModel([{}, 'answer']);
    const result = await new Runner({ agent: new Agent({ name: 'a' }), model: ok }).run({ userId: 'u', message: 'hi' });
    expect(result.text).toBe('answer');
    expect(ok.views[1]!.lastUserText).toMatch(/empty/);
    const bad = scriptedModel([{}, {}, {}]);
    await expect(
      new Runner({ agent: new Agent({ name: 'a' }), model: bad }).run({ userId: 'u', message: 'hi' }),
    ).rejects.toBeInstanceOf(ModelBehaviorError);
  });
});

describe('Runner: limits, abort, window, retries', () => {
  it('stops at maxSteps with a typed error naming the setting', async () => {
    const model = scriptedModel(
      Array.from({ length: 3 }, () => ({ toolCalls: [{ toolName: 'echo', input: { word: 'a' } }] })),
    );
    const runner = new Runner({ agent: new Agent({ name: 'a', tools: [echo] }), model, limits: { maxSteps: 3 } });
    const err = await runner.run({ userId: 'u', message: 'loop' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitExceededError);
    expect((err as Error).message).toMatch(/limits\.maxSteps/);
  });

  it('honours an AbortSignal between steps and keeps what was appended', async () => {
    const controller = new AbortController();
    const slow = tool({
      name: 'slow',
      description: 'aborts the run',
      inputSchema: z.object({}),
      execute: () => {
        controller.abort();
        return 'ok';
      },
    });
    const store = new InMemorySessionStore();
    const model = scriptedModel([{ toolCalls: [{ toolName: 'slow', input: {} }] }]);
    const runner = new Runner({ agent: new Agent({ name: 'a', tools: [slow] }), model, store });
    await expect(
      runner.run({ userId: 'u', sessionId: 's', message: 'go', signal: controller.signal }),
    ).rejects.toBeInstanceOf(AbortedError);
    const session = await store.getSession({ appName: 'pagewise', userId: 'u', sessionId: 's' });
    // What was appended stays; the abort itself is recorded as the invocation's last event.
    expect(session?.events.map((e) => e.kind)).toEqual(['user', 'model', 'tool-result', 'error']);
    expect(session?.events.at(-1)).toMatchObject({ kind: 'error', scope: 'run', code: 'aborted' });
  });

  it('refuses a request larger than the context window with a typed error', async () => {
    const model = scriptedModel(['never']);
    const runner = new Runner({
      agent: new Agent({ name: 'a', instruction: 'word '.repeat(200) }),
      model,
      contextWindow: 100,
    });
    const err = await runner.run({ userId: 'u', message: 'hi' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextWindowExceededError);
    expect((err as ContextWindowExceededError).promptTokens).toBeGreaterThan(100);
    expect(model.calls).toHaveLength(0);
  });

  it('retries a 429 honouring Retry-After, then succeeds', async () => {
    const rateLimited = new APICallError({
      message: 'rate limited',
      url: 'https://example.invalid',
      requestBodyValues: {},
      statusCode: 429,
      responseHeaders: { 'retry-after': '0' },
      isRetryable: true,
    });
    const model = scriptedModel([rateLimited, 'fine']);
    const runner = new Runner({ agent: new Agent({ name: 'a' }), model, retry: { baseDelayMs: 1 } });
    const result = await runner.run({ userId: 'u', message: 'x' });
    expect(result.text).toBe('fine');
    expect(model.calls).toHaveLength(2);
  });

  it('does not retry a 400', async () => {
    const bad = new APICallError({
      message: 'bad request',
      url: 'https://example.invalid',
      requestBodyValues: {},
      statusCode: 400,
      isRetryable: false,
    });
    const model = scriptedModel([bad, 'unused']);
    await expect(
      new Runner({ agent: new Agent({ name: 'a' }), model }).run({ userId: 'u', message: 'x' }),
    ).rejects.toThrow(/bad request/);
    expect(model.calls).toHaveLength(1);
  });
});

describe('Runner: sessions, streaming and the context pipeline', () => {
  it("resumes a session: the second invocation sees the first one's history", async () => {
    const store = new InMemorySessionStore();
    const model = scriptedModel(['first answer', 'second answer']);
    const runner = new Runner({ agent: new Agent({ name: 'a' }), model, store });
    await runner.run({ userId: 'u', sessionId: 's1', message: 'one' });
    await runner.run({ userId: 'u', sessionId: 's1', message: 'two' });
    const texts = model.views[1]!.turns.map((t) => (t.role === 'tool' ? '' : t.text));
    expect(texts).toEqual(['one', 'first answer', 'two']);
  });

  it('streams text deltas and events in order', async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: 'echo', input: { word: 'hi' } }] }, 'the final answer']);
    const runner = new Runner({ agent: new Agent({ name: 'a', tools: [echo] }), model });
    const parts: string[] = [];
    let text = '';
    for await (const part of runner.stream({ userId: 'u', message: 'go' })) {
      parts.push(part.type === 'event' ? `event:${part.event.kind}` : part.type);
      if (part.type === 'text-delta') text += part.delta;
    }
    expect(text).toBe('the final answer');
    expect(parts[0]).toBe('event:user');
    expect(parts.filter((p) => p === 'text-delta').length).toBeGreaterThan(1);
    expect(parts.at(-1)).toBe('finish');
    expect(parts.at(-2)).toBe('event:model');
  });

  it('applies agent processors without touching the runner (last-N seam)', async () => {
    const steps = [
      ...Array.from({ length: 6 }, (_, i) => ({ toolCalls: [{ toolName: 'echo', input: { word: `w${i}` } }] })),
      'end',
    ];
    const model = scriptedModel(steps);
    const agent = new Agent({ name: 'a', tools: [echo], processors: [fifoHistory({ lastTurns: 2 })] });
    await new Runner({ agent, model }).run({ userId: 'u', message: 'the task' });
    const last = model.views[6]!;
    // The task, then the last two assistant turns each with its result.
    expect(last.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(last.firstUserText).toBe('the task');
    expect(last.fullText).toContain('echo: w5');
    expect(last.fullText).not.toContain('echo: w2');
  });

  it('refuses a processor that separates a tool call from its result', async () => {
    const dropResults: ContextProcessor = {
      name: 'drop-results',
      process: (req) => void (req.items = req.items.filter((i) => i.type !== 'tool-result')),
    };
    const model = scriptedModel([{ toolCalls: [{ toolName: 'echo', input: { word: 'a' } }] }, 'x']);
    const runner = new Runner({ agent: new Agent({ name: 'a', tools: [echo], processors: [dropResults] }), model });
    const err = await runner.run({ userId: 'u', message: 'go' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SystemError);
    expect((err as Error).message).toMatch(/drop-results.*separated a tool call/);
  });

  it('re-evaluates an instruction provider before every model call', async () => {
    const counter = tool({
      name: 'bump',
      description: 'bumps a counter',
      inputSchema: z.object({}),
      execute: (_args, ctx) => void ctx.state.set('temp:n', ((ctx.state.get<number>('temp:n') ?? 0) as number) + 1),
    });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'bump', input: {} }] },
      { toolCalls: [{ toolName: 'bump', input: {} }] },
      'done',
    ]);
    const agent = new Agent({
      name: 'a',
      tools: [counter],
      instruction: ({ state }) => `n=${String(state['temp:n'] ?? 0)}`,
    });
    const result = await new Runner({ agent, model }).run({ userId: 'u', message: 'go' });
    expect(model.views.map((v) => v.system)).toEqual(['n=0', 'n=1', 'n=2']);
    expect(result.session.state['temp:n']).toBeUndefined();
  });
});
