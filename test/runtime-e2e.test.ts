/**
 * End to end with the scripted model: a planner transfers to a worker, which writes state through a
 * tool, receives a tool error and recovers, and escalates. Then the persisted record is checked.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Runner, escalateTool, tool } from '../packages/pagewise/src/index.js';
import { SqliteSessionStore } from '../packages/sqlite/src/index.js';
import { measureRequest } from '../packages/pagewise/src/context/request.js';
import { scriptedModel } from '../packages/pagewise/src/testing.js';

describe('runtime end to end', () => {
  it('planner -> worker -> state write -> tool error -> recovery -> escalate, all persisted', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-e2e-'));
    const store = new SqliteSessionStore({ path: path.join(dir, 'e2e.db') });
    const record = tool({
      name: 'record',
      description: 'Records a finding.',
      inputSchema: z.object({ key: z.string(), value: z.number() }),
      execute: ({ key, value }, ctx) => {
        ctx.state.set(`finding:${key}`, value);
        ctx.state.set('temp:scratch', 'never persisted');
        ctx.state.set('user:findings', ((ctx.state.get<number>('user:findings') ?? 0) as number) + 1);
        return `recorded ${key}`;
      },
    });
    const flaky = tool({
      name: 'flaky',
      description: 'Fails on odd input.',
      inputSchema: z.object({ n: z.number() }),
      execute: ({ n: value }, ctx) => {
        ctx.state.set('flaky:wrote', true);
        if (value % 2 === 1) throw new Error(`odd input ${value}`);
        return `ok ${value}`;
      },
    });
    const worker = new Agent({
      name: 'worker',
      description: 'does the work',
      instruction: 'You work.',
      tools: [record, flaky, escalateTool],
    });
    const planner = new Agent({ name: 'planner', description: 'plans', instruction: 'You plan.', subAgents: [worker] });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'transfer_to_agent', input: { agent_name: 'worker' } }] },
      {
        text: 'Recording.',
        toolCalls: [
          { toolName: 'record', input: { key: 'a', value: 1 } },
          { toolName: 'flaky', input: { n: 3 } },
        ],
      },
      ({ view }) => {
        const last = view.turns[view.turns.length - 1];
        // The worker sees the error from the failed call and recovers.
        expect(last?.role === 'tool' && last.results.some((r) => r.isError && /odd input 3/.test(r.output))).toBe(true);
        return { toolCalls: [{ toolName: 'flaky', input: { n: 4 } }] };
      },
      { toolCalls: [{ toolName: 'escalate', input: { reason: 'All done: a=1.' } }] },
    ]);
    const runner = new Runner({ agent: planner, store, model, appName: 'e2e' });
    const result = await runner.run({ userId: 'u1', message: 'Find and record things.' });
    model.assertComplete();

    expect(result.stopReason).toBe('escalate');
    expect(result.text).toBe('All done: a=1.');
    expect(result.agentName).toBe('worker');

    // The worker's requests offered its own tools plus the transfer tool back to the planner.
    expect(model.views[1]!.toolNames.sort()).toEqual(['escalate', 'flaky', 'record', 'transfer_to_agent']);
    expect(model.views[0]!.system).toBe('You plan.');
    expect(model.views[1]!.system).toBe('You work.');

    await store.close();
    const reopened = new SqliteSessionStore({ path: path.join(dir, 'e2e.db') });
    const session = (await reopened.getSession({ appName: 'e2e', userId: 'u1', sessionId: result.session.sessionId }))!;
    expect(session.events.map((e) => e.kind)).toEqual([
      'user',
      'model',
      'tool-result',
      'transfer',
      'model',
      'tool-result',
      'tool-result',
      'model',
      'tool-result',
      'model',
      'tool-result',
      'escalate',
    ]);
    // Deltas: the record call's delta is on its result event; the failed call's writes were dropped.
    const results = session.events.filter((e) => e.kind === 'tool-result');
    const recordResult = results.find((e) => e.kind === 'tool-result' && e.toolName === 'record')!;
    expect(recordResult.delta).toEqual({ 'finding:a': 1, 'user:findings': 1 });
    const failed = results.find((e) => e.kind === 'tool-result' && e.isError)!;
    expect(failed.delta).toBeUndefined();
    const recovered = results.filter((e) => e.kind === 'tool-result' && e.toolName === 'flaky' && !e.isError)[0]!;
    expect(recovered.delta).toEqual({ 'flaky:wrote': true });
    // No temp: key anywhere in what was persisted.
    expect(JSON.stringify(session)).not.toContain('temp:');
    expect(session.state).toEqual({ 'finding:a': 1, 'flaky:wrote': true, 'user:findings': 1 });
    // And the in-memory view has no temp: left once the invocation is over.
    expect(Object.keys(result.session.state).some((k) => k.startsWith('temp:'))).toBe(false);

    // Ledger: one entry per model call, parts add up, and it matches the persisted usage.
    const entries = result.ledger.entries;
    expect(entries).toHaveLength(4);
    for (const entry of entries) {
      expect(
        entry.parts.instruction + entry.parts.paged + entry.parts.history + entry.parts.observation + entry.parts.tools,
      ).toBe(entry.promptTokens);
    }
    const modelEvents = session.events.filter((e) => e.kind === 'model');
    expect(modelEvents.map((e) => (e.kind === 'model' ? e.usage?.promptTokens : -1))).toEqual(
      entries.map((e) => e.promptTokens),
    );
    expect(result.ledger.summary.modelCalls).toBe(4);
    expect(result.ledger.summary.peakPromptTokens).toBe(Math.max(...entries.map((e) => e.promptTokens)));
    expect(result.ledger.summary.cumulativePromptTokens).toBe(entries.reduce((s, e) => s + e.promptTokens, 0));
    // History grows: each later call's history+observation is at least the previous one's.
    expect(entries[3]!.parts.history).toBeGreaterThan(entries[1]!.parts.history);
    expect(measureRequest).toBeTypeOf('function');
    await reopened.close();
  });
});
