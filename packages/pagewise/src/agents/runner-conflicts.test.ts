/**
 * The runner's conflict handling, made deterministic by tools that inject a concurrent write at the
 * worst moment: after they read, before their result is appended.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { VersionConflictError } from '../errors.js';
import { scriptedModel } from '../models/scripted.js';
import { InMemorySessionStore } from '../session/memory-store.js';
import { SharedStateConflictError, type SessionStore } from '../session/store.js';
import type { Session, SessionEvent } from '../session/types.js';
import { Agent } from './agent.js';
import { Runner, SideEffectConflictError } from './runner.js';
import { tool, type ToolContext } from './tool.js';

const APP = 'pagewise';

function event(delta: Record<string, number>, reads?: Record<string, number>): SessionEvent {
  return {
    kind: 'user',
    id: randomUUID(),
    invocationId: 'elsewhere',
    author: 'other',
    timestamp: Date.now(),
    text: 'elsewhere',
    delta,
    ...(reads ? { reads } : {}),
  };
}

/** Another writer increments `key` the way a correct tool would. */
async function incrementElsewhere(store: SessionStore, session: Session, key: string): Promise<void> {
  const fresh = (await store.getSession(session))!;
  await store.appendEvent(
    fresh,
    event(
      { [key]: ((fresh.state[key] as number) ?? 0) + 1 },
      key.includes(':') ? { [key]: fresh.sharedVersions?.[key] ?? 0 } : undefined,
    ),
  );
}

/** A tool that adds one to each key and counts its own executions; `interfere` runs once, mid-call. */
function counterTool(options: {
  sideEffects?: boolean;
  keys: string[];
  interfere?: (ctx: ToolContext) => Promise<void>;
}) {
  const runs = { n: 0 };
  let interfere = options.interfere;
  const bumpTool = tool({
    name: 'bump',
    description: 'Adds one to counters.',
    inputSchema: z.object({}),
    sideEffects: options.sideEffects,
    execute: async (_args, ctx) => {
      runs.n += 1;
      const seen = options.keys.map((k) => (ctx.state.get<number>(k) ?? 0) as number);
      if (interfere) {
        const interfering = interfere;
        interfere = undefined;
        await interfering(ctx);
      }
      options.keys.forEach((k, i) => ctx.state.set(k, seen[i]! + 1));
      return `now ${seen.map((n) => n + 1).join(',')}`;
    },
  });
  return { tool: bumpTool, runs };
}

function kinds(session: Session | undefined): string[] {
  return session?.events.map((e) => e.kind) ?? [];
}

describe('Runner: conflicts and safe retries', () => {
  it('runs parallel calls of one step as if in call order when one reads what another wrote', async () => {
    const store = new InMemorySessionStore();
    const { tool: bump, runs } = counterTool({ keys: ['user:count', 'count'] });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'bump', input: {} },
          { toolName: 'bump', input: {} },
        ],
      },
      'done',
    ]);
    const result = await new Runner({ agent: new Agent({ name: 'a', tools: [bump] }), model, store }).run({
      userId: 'u',
      sessionId: 's',
      message: 'go',
    });
    const session = await store.getSession({ appName: APP, userId: 'u', sessionId: 's' });
    expect(session?.state).toMatchObject({ 'user:count': 2, count: 2 });
    // The second call saw the first one's write the second time it ran.
    expect(runs.n).toBe(3);
    const outputs = session!.events.flatMap((e) => (e.kind === 'tool-result' ? [e.output] : []));
    expect(outputs).toEqual(['now 1,1', 'now 2,2']);
    expect(result.session.state['user:count']).toBe(2);
  });

  it('re-runs a tool whose user: read was overtaken by another session, and counts both increments', async () => {
    const store = new InMemorySessionStore();
    const other = await store.createSession({ appName: APP, userId: 'u', sessionId: 'other' });
    const { tool: bump, runs } = counterTool({
      keys: ['user:count'],
      interfere: () => incrementElsewhere(store, other, 'user:count'),
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'bump', input: {} }] }, 'done']);
    await new Runner({ agent: new Agent({ name: 'a', tools: [bump] }), model, store }).run({
      userId: 'u',
      sessionId: 'mine',
      message: 'go',
    });
    model.assertComplete();
    expect(runs.n).toBe(2);
    const mine = await store.getSession({ appName: APP, userId: 'u', sessionId: 'mine' });
    expect(mine?.state['user:count']).toBe(2);
    expect(kinds(mine)).toEqual(['user', 'model', 'tool-result', 'model']);
    const result = mine!.events[2]!;
    expect(result.reads).toEqual({ 'user:count': 1 });
  });

  it('after another writer appended to the same session, reloads it and re-runs only what went stale', async () => {
    const store = new InMemorySessionStore();
    const key = { appName: APP, userId: 'u', sessionId: 's' };
    const { tool: bump, runs } = counterTool({
      keys: ['count'],
      interfere: () => incrementElsewhere(store, key as Session, 'count'),
    });
    const { tool: other, runs: otherRuns } = counterTool({ keys: ['unrelated'] });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'bump', input: {} }] },
      { toolCalls: [{ toolName: 'bump2', input: {} }] },
      'done',
    ]);
    const agent = new Agent({ name: 'a', tools: [bump, { ...other, name: 'bump2' }] });
    await new Runner({ agent, model, store }).run({ ...key, message: 'go' });
    expect(runs.n).toBe(2);
    expect(otherRuns.n).toBe(1);
    const session = await store.getSession(key);
    expect(session?.state).toMatchObject({ count: 2, unrelated: 1 });
    // The other writer's event lands before this step; the call and its result stay together.
    expect(kinds(session)).toEqual(['user', 'user', 'model', 'tool-result', 'model', 'tool-result', 'model']);
    expect(session?.events[1]?.invocationId).toBe('elsewhere');
  });

  it("keeps a side-effect tool's result when what it read did not change", async () => {
    const store = new InMemorySessionStore();
    const key = { appName: APP, userId: 'u', sessionId: 's' };
    const sends = { n: 0 };
    const send = tool({
      name: 'send',
      description: "Sends a greeting in the user's language.",
      inputSchema: z.object({}),
      sideEffects: true,
      execute: async (_args, ctx) => {
        sends.n += 1;
        const lang = ctx.state.get<string>('user:lang') ?? 'en';
        await store.appendEvent((await store.getSession(key))!, event({ unrelated: 1 }));
        ctx.state.set('sent', lang);
        return `sent in ${lang}`;
      },
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'send', input: {} }] }, 'done']);
    await new Runner({ agent: new Agent({ name: 'a', tools: [send] }), model, store }).run({ ...key, message: 'go' });
    expect(sends.n).toBe(1);
    expect((await store.getSession(key))?.state).toMatchObject({ sent: 'en', unrelated: 1 });
  });

  it('never re-runs a side-effect tool: a stale read refuses the step with SideEffectConflictError', async () => {
    const store = new InMemorySessionStore();
    const other = await store.createSession({ appName: APP, userId: 'u', sessionId: 'other' });
    const { tool: pay, runs } = counterTool({
      sideEffects: true,
      keys: ['user:count'],
      interfere: () => incrementElsewhere(store, other, 'user:count'),
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'bump', input: {} }] }, 'never']);
    const err = await new Runner({ agent: new Agent({ name: 'a', tools: [pay] }), model, store })
      .run({ userId: 'u', sessionId: 'mine', message: 'go' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SideEffectConflictError);
    expect(err).toBeInstanceOf(VersionConflictError);
    expect((err as Error).message).toMatch(/"bump".*sideEffects: true.*never re-run/);
    expect(runs.n).toBe(1);
    const mine = await store.getSession({ appName: APP, userId: 'u', sessionId: 'mine' });
    // No result of the step was stored (only the model's response, written ahead because the step has a
    // side effect, so the invocation can be resumed), and the other session's increment stands. The refusal
    // itself is recorded as an error event, which changes no state.
    expect(kinds(mine)).toEqual(['user', 'model', 'error']);
    expect(mine?.state['user:count']).toBe(1);
  });

  it("gives up after limits.maxConflictRetries with the store's conflict error", async () => {
    const store = new InMemorySessionStore();
    const other = await store.createSession({ appName: APP, userId: 'u', sessionId: 'other' });
    // Interferes on every run, so each retry is overtaken again.
    const bump = tool({
      name: 'bump',
      description: 'always overtaken',
      inputSchema: z.object({}),
      execute: async (_args, ctx) => {
        const count = ctx.state.get<number>('user:count') ?? 0;
        await incrementElsewhere(store, other, 'user:count');
        ctx.state.set('user:count', (count as number) + 1);
        return 'ok';
      },
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'bump', input: {} }] }, 'never']);
    const err = await new Runner({
      agent: new Agent({ name: 'a', tools: [bump] }),
      model,
      store,
      limits: { maxConflictRetries: 3 },
    })
      .run({ userId: 'u', sessionId: 'mine', message: 'go' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SharedStateConflictError);
    // The first run and three retries, each overtaken.
    expect((await store.getSession(other))?.state['user:count']).toBe(4);
  });

  it('counts increments from parallel calls without re-running them, and lets a later call read their sum', async () => {
    const store = new InMemorySessionStore();
    let runs = 0;
    const hit = tool({
      name: 'hit',
      description: 'counts a hit',
      inputSchema: z.object({}),
      execute: (_args, ctx) => {
        runs += 1;
        ctx.state.increment('user:hits');
        ctx.state.increment('temp:hits', 2);
        return 'ok';
      },
    });
    const total = tool({
      name: 'total',
      description: 'reads the hits',
      inputSchema: z.object({}),
      execute: (_args, ctx) => `hits ${String(ctx.state.get('user:hits'))}, temp ${String(ctx.state.get('temp:hits'))}`,
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'hit', input: {} },
          { toolName: 'hit', input: {} },
          { toolName: 'total', input: {} },
        ],
      },
      'done',
    ]);
    await new Runner({ agent: new Agent({ name: 'a', tools: [hit, total] }), model, store }).run({
      userId: 'u',
      sessionId: 's',
      message: 'go',
    });
    expect(runs).toBe(2);
    const session = await store.getSession({ appName: APP, userId: 'u', sessionId: 's' });
    expect(session?.state['user:hits']).toBe(2);
    expect(session?.events.flatMap((e) => (e.kind === 'tool-result' ? [e.output] : []))).toEqual([
      'ok',
      'ok',
      'hits 2, temp 4',
    ]);
    expect(session?.events[2]?.increments).toEqual({ 'user:hits': 1 });
    // The reader's check expects the version after both increments of the same batch.
    expect(session?.events[4]?.reads).toEqual({ 'user:hits': 2 });
  });

  it('serves concurrent invocations of one session and one user without losing an update', async () => {
    const store = new InMemorySessionStore();
    const { tool: bump } = counterTool({ keys: ['user:count', 'count', 'app:count'] });
    const agent = new Agent({ name: 'a', tools: [bump] });
    const invocations = 12;
    await Promise.all(
      Array.from({ length: invocations }, (_, index) => {
        const model = scriptedModel([
          {
            toolCalls: [
              { toolName: 'bump', input: {} },
              { toolName: 'bump', input: {} },
            ],
          },
          `done ${index}`,
        ]);
        return new Runner({ agent, model, store }).run({
          userId: 'u',
          sessionId: index % 2 ? 's1' : 's2',
          message: `go ${index}`,
        });
      }),
    );
    const s1 = (await store.getSession({ appName: APP, userId: 'u', sessionId: 's1' }))!;
    const s2 = (await store.getSession({ appName: APP, userId: 'u', sessionId: 's2' }))!;
    expect(s1.state).toMatchObject({ 'user:count': 2 * invocations, 'app:count': 2 * invocations, count: invocations });
    expect(s2.state.count).toBe(invocations);
    for (const session of [s1, s2]) {
      expect(session.events).toHaveLength((invocations / 2) * 5);
      expect(new Set(session.events.map((e) => e.id)).size).toBe(session.events.length);
      // Every model event with tool calls is followed directly by its results.
      session.events.forEach((sessionEvent, index) => {
        if (sessionEvent.kind === 'model' && sessionEvent.toolCalls.length) {
          expect(
            session.events.slice(index + 1, index + 3).map((r) => (r.kind === 'tool-result' ? r.toolCallId : r.kind)),
          ).toEqual(sessionEvent.toolCalls.map((c) => c.toolCallId));
        }
      });
    }
  });
});
