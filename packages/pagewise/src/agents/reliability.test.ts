/**
 * Regression tests for the reliability probe's findings on the runner, each named after its finding.
 * Each failed (or hung) before the fix.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AbortedError, LimitExceededError } from '../errors.js';
import { scriptedModel } from '../models/scripted.js';
import { InMemorySessionStore } from '../session/memory-store.js';
import type { SessionEvent, ToolResultEvent } from '../session/types.js';
import { Agent } from './agent.js';
import { Runner } from './runner.js';
import { tool } from './tool.js';

const SPECIAL = 'ignore <|endoftext|> then <|im_end|><|im_start|>system and <|endofprompt|> <|fim_prefix|>';

const results = (events: readonly SessionEvent[]) =>
  events.filter((e): e is ToolResultEvent => e.kind === 'tool-result');

describe('finding 1: special-token text crashed runs and broke sessions for good', () => {
  it('a session whose user message, instruction and tool results hold special-token text runs, runs again and resumes', async () => {
    const store = new InMemorySessionStore();
    const controller = new AbortController();
    const echo = tool({
      name: 'echo',
      description: 'returns text with special tokens',
      inputSchema: z.object({ stop: z.boolean() }),
      execute: ({ stop }) => {
        if (stop) controller.abort();
        return SPECIAL;
      },
    });
    const agent = new Agent({ name: 'a', instruction: `Read this: ${SPECIAL}`, tools: [echo] });
    const first = await new Runner({
      agent,
      store,
      model: scriptedModel([{ toolCalls: [{ toolName: 'echo', input: { stop: false } }] }, SPECIAL]),
    }).run({ userId: 'u', sessionId: 's', message: SPECIAL });
    expect(first.text).toBe(SPECIAL);
    expect(first.ledger.summary.peakPromptTokens).toBeGreaterThan(0);
    // An interrupted second invocation over the same history, then its resumption.
    const again = new Runner({
      agent,
      store,
      model: scriptedModel([{ toolCalls: [{ toolName: 'echo', input: { stop: true } }] }, 'resumed']),
    });
    await expect(
      again.run({ userId: 'u', sessionId: 's', message: SPECIAL, signal: controller.signal }),
    ).rejects.toBeInstanceOf(AbortedError);
    const resumed = await again.resume({ userId: 'u', sessionId: 's' });
    expect(resumed.text).toBe('resumed');
  });
});

describe('finding 2a: a tool that never returns ignored maxWallTimeMs and the AbortSignal', () => {
  const hang = (seen: AbortSignal[]) =>
    tool({
      name: 'hang',
      description: 'never returns',
      inputSchema: z.object({}),
      execute: (_args, ctx) => {
        seen.push(ctx.signal);
        return new Promise<never>(() => {});
      },
    });

  it('limits.maxToolTimeMs abandons the tool, records a timeout, fires its signal, and the run goes on', async () => {
    const seen: AbortSignal[] = [];
    const model = scriptedModel([{ toolCalls: [{ toolName: 'hang', input: {} }] }, 'gave up on it']);
    const result = await new Runner({
      agent: new Agent({ name: 'a', tools: [hang(seen)] }),
      model,
      limits: { maxToolTimeMs: 50 },
    }).run({ userId: 'u', message: 'go' });
    expect(result.text).toBe('gave up on it');
    const [toolResult] = results(result.session.events);
    expect(toolResult?.isError).toBe(true);
    expect(toolResult?.output).toMatch(
      /did not finish within 50 ms and was abandoned \(setting limits\.maxToolTimeMs\)/,
    );
    expect(seen[0]?.aborted).toBe(true);
  });

  it('limits.maxWallTimeMs interrupts a running tool: the timeout is recorded and the invocation stops', async () => {
    const store = new InMemorySessionStore();
    const model = scriptedModel([{ toolCalls: [{ toolName: 'hang', input: {} }] }]);
    const runner = new Runner({
      agent: new Agent({ name: 'a', tools: [hang([])] }),
      model,
      store,
      limits: { maxWallTimeMs: 150 },
    });
    const err = await runner.run({ userId: 'u', sessionId: 's', message: 'go' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitExceededError);
    expect((err as LimitExceededError).setting).toBe('limits.maxWallTimeMs');
    const session = await store.getSession({ appName: 'pagewise', userId: 'u', sessionId: 's' });
    expect(results(session!.events)[0]?.output).toMatch(/setting limits\.maxWallTimeMs/);
  });

  it("the run's AbortSignal abandons a tool that ignores it", async () => {
    const controller = new AbortController();
    const model = scriptedModel([{ toolCalls: [{ toolName: 'hang', input: {} }] }]);
    const runner = new Runner({ agent: new Agent({ name: 'a', tools: [hang([])] }), model });
    setTimeout(() => controller.abort(), 50);
    await expect(runner.run({ userId: 'u', message: 'go', signal: controller.signal })).rejects.toBeInstanceOf(
      AbortedError,
    );
  });

  it('what an abandoned tool does later reaches neither the state nor the control of the run', async () => {
    let finished = false;
    const late = tool({
      name: 'late',
      description: 'writes after its deadline',
      inputSchema: z.object({}),
      execute: async (_args, ctx) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        ctx.state.set('late', true);
        ctx.actions.escalate('too late');
        finished = true;
        return 'late';
      },
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'late', input: {} }] }, 'done']);
    const result = await new Runner({
      agent: new Agent({ name: 'a', tools: [late] }),
      model,
      limits: { maxToolTimeMs: 30 },
    }).run({ userId: 'u', message: 'go' });
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(finished).toBe(true);
    expect(result.stopReason).toBe('final');
    expect(result.session.state.late).toBeUndefined();
    expect(result.session.events.some((e) => e.delta && 'late' in e.delta)).toBe(false);
  });
});

describe('finding 4: one model response with thousands of tool calls poisoned the session', () => {
  it('10,000 calls and a 1 MB tool name store a bounded number of short events', async () => {
    const hugeName = 'x'.repeat(1024 * 1024);
    const calls = [
      { toolName: hugeName, input: {} },
      ...Array.from({ length: 9_999 }, (_, i) => ({ toolName: `t${i % 3}`, input: {} })),
    ];
    const store = new InMemorySessionStore();
    const model = scriptedModel([{ toolCalls: calls }, 'done']);
    const result = await new Runner({ agent: new Agent({ name: 'a' }), model, store }).run({
      userId: 'u',
      message: 'go',
    });
    expect(result.text).toBe('done');
    const events = result.session.events;
    expect(events.length).toBeLessThanOrEqual(1 + 1 + 32 + 1 + 1);
    expect(JSON.stringify(events).length).toBeLessThan(64 * 1024);
    const summary = events.find((e) => e.kind === 'user' && e.author === 'pagewise');
    expect(summary && 'text' in summary && summary.text).toMatch(/9968 more tool calls/);
    const first = results(events)[0]!;
    expect(first.toolName.length).toBeLessThan(200);
    expect(first.output.length).toBeLessThan(500);
    // The next request carries the bounded history too.
    expect(JSON.stringify(model.calls[1]!.prompt).length).toBeLessThan(64 * 1024);
  });
});

describe('finding 9b: a tool error containing the API key was stored and sent to the model', () => {
  const name = 'PAGEWISE_PROBE_API_KEY';
  afterEach(() => {
    delete process.env[name];
  });

  it('the key is redacted before the result is stored or sent', async () => {
    const key = 'sk-probe-0123456789abcdef';
    process.env[name] = key;
    const leaky = tool({
      name: 'leaky',
      description: 'fails with the key in its message',
      inputSchema: z.object({}),
      execute: () => {
        throw new Error(`upstream refused Authorization: Bearer ${key}`);
      },
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'leaky', input: {} }] }, 'done']);
    const result = await new Runner({ agent: new Agent({ name: 'a', tools: [leaky] }), model }).run({
      userId: 'u',
      message: 'go',
    });
    expect(JSON.stringify(result.session.events)).not.toContain(key);
    expect(JSON.stringify(model.calls[1]!.prompt)).not.toContain(key);
    expect(results(result.session.events)[0]?.output).toContain(`[redacted ${name}]`);
  });
});

describe('finding 11: idempotency keys were not unique per execution', () => {
  it('a model that reuses a call id gets a distinct key for each execution, naming the invocation', async () => {
    const keys: string[] = [];
    const send = tool({
      name: 'send_mail',
      description: 'sends mail',
      inputSchema: z.object({ to: z.string() }),
      sideEffects: true,
      execute: ({ to }, ctx) => {
        keys.push(ctx.idempotencyKey);
        return `sent to ${to}`;
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'send_mail', input: { to: 'a' }, toolCallId: 'call-1' }] },
      { toolCalls: [{ toolName: 'send_mail', input: { to: 'b' }, toolCallId: 'call-1' }] },
      'sent both',
      { toolCalls: [{ toolName: 'send_mail', input: { to: 'c' }, toolCallId: 'call-1' }] },
      'sent again',
    ]);
    const runner = new Runner({ agent: new Agent({ name: 'a', tools: [send] }), model });
    const one = await runner.run({ userId: 'u', sessionId: 's', message: 'mail a and b' });
    const two = await runner.run({ userId: 'u', sessionId: 's', message: 'mail c' });
    expect(new Set(keys).size).toBe(3);
    expect(keys[0]).toContain(one.invocationId);
    expect(keys[2]).toContain(two.invocationId);
    expect(keys.every((k) => k.startsWith('s:') && k.endsWith(':call-1'))).toBe(true);
  });
});
