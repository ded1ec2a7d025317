import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NotFoundError } from '../errors.js';
import { scriptedModel } from '../models/scripted.js';
import { InMemorySessionStore } from '../session/memory-store.js';
import type { Session, SessionEvent } from '../session/types.js';
import { Agent } from './agent.js';
import { Runner, findInterrupted } from './runner.js';
import { tool } from './tool.js';

/** A store whose next append of tool results fails, as if the process died right there. */
class FailingStore extends InMemorySessionStore {
  failNextResults = false;
  override async appendEvents(session: Session, events: SessionEvent[]): Promise<SessionEvent[]> {
    if (this.failNextResults && events.some((e) => e.kind === 'tool-result')) {
      this.failNextResults = false;
      throw new Error('simulated crash while appending the results');
    }
    return super.appendEvents(session, events);
  }
}

function payments() {
  const charged = new Map<string, number>();
  const charge = tool({
    name: 'charge',
    description: 'Charges a card (a side effect).',
    inputSchema: z.object({ cents: z.number().int() }),
    sideEffects: true,
    execute: ({ cents }, ctx) => {
      // The payment system deduplicates by idempotency key, as real ones do.
      if (!charged.has(ctx.idempotencyKey)) charged.set(ctx.idempotencyKey, cents);
      return `charged ${cents}`;
    },
  });
  return { charge, charged };
}

describe('resuming an interrupted invocation', () => {
  it('finishes the pending calls with the same idempotency key and never asks the model again for that step', async () => {
    const store = new FailingStore();
    const { charge, charged } = payments();
    let lookups = 0;
    const lookup = tool({
      name: 'lookup',
      description: 'reads',
      inputSchema: z.object({}),
      execute: () => `lookup ${++lookups}`,
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'charge', input: { cents: 500 } },
          { toolName: 'lookup', input: {} },
        ],
      },
      'paid',
    ]);
    const runner = new Runner({ agent: new Agent({ name: 'a', tools: [charge, lookup] }), model, store });
    store.failNextResults = true;
    await expect(runner.run({ userId: 'u', sessionId: 's', message: 'pay' })).rejects.toThrow(/simulated crash/);
    expect(charged.size).toBe(1);

    const stored = (await store.getSession({ appName: 'pagewise', userId: 'u', sessionId: 's' }))!;
    const interrupted = findInterrupted(stored)!;
    expect(interrupted.pending.map((c) => c.toolName)).toEqual(['charge', 'lookup']);

    const result = await runner.resume({ userId: 'u', sessionId: 's' });
    expect(result.text).toBe('paid');
    model.assertComplete();
    // Executed again with the same key: the payment system charged once.
    expect([...charged.values()]).toEqual([500]);
    const kinds = result.session.events.map((e) => e.kind);
    // The failed first attempt is recorded (an error event the model never sees), then the resumed step.
    expect(kinds).toEqual(['user', 'model', 'error', 'tool-result', 'tool-result', 'model']);
    expect(new Set(result.session.events.map((e) => e.invocationId)).size).toBe(1);
    await expect(runner.resume({ userId: 'u', sessionId: 's' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('does not repeat calls whose results were recorded', async () => {
    const store = new InMemorySessionStore();
    const { charge, charged } = payments();
    const controller = new AbortController();
    const stop = tool({
      name: 'stop',
      description: 'aborts',
      inputSchema: z.object({}),
      execute: () => void controller.abort(),
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'charge', input: { cents: 100 } },
          { toolName: 'stop', input: {} },
        ],
      },
      'done',
    ]);
    const runner = new Runner({ agent: new Agent({ name: 'a', tools: [charge, stop] }), model, store });
    await expect(
      runner.run({ userId: 'u', sessionId: 's', message: 'go', signal: controller.signal }),
    ).rejects.toThrow();
    let executions = 0;
    const counting = tool({
      ...charge,
      execute: (args: { cents: number }, ctx) => (executions++, charge.execute(args, ctx)),
    });
    const again = new Runner({ agent: new Agent({ name: 'a', tools: [counting, stop] }), model, store });
    const result = await again.resume({ userId: 'u', sessionId: 's' });
    expect(result.text).toBe('done');
    expect(executions).toBe(0);
    expect(charged.size).toBe(1);
  });
});
