/**
 * Telecom gold-action traces built from the shared tau2 telecom data: each trace carries the task's gold
 * actions with the records they act on, imports as an OpenAI Chat trace, and replays. Skipped, with the
 * reason printed, when the shared data is absent.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTraces, replayTraces, usedLaterValues } from '@pagewise/lab/replay';
import { telecomDataDir, telecomTraces, type ChatMessage } from '../bench/replay-traces.js';

const dir = telecomDataDir();
if (!dir) console.log('replay-telecom: skipped, tau2/telecom not found (set PAGEWISE_SHARED_DATA to the shared data)');

interface Task {
  id: string;
  evaluation_criteria: { actions: { name: string; arguments: Record<string, unknown> }[] };
}

const calls = (messages: ChatMessage[]) =>
  messages.flatMap((message) =>
    message.role === 'assistant'
      ? (message.tool_calls ?? []).map((call) => ({
          name: call.function.name,
          args: JSON.parse(call.function.arguments) as unknown,
        }))
      : [],
  );

describe.skipIf(!dir)('telecom gold-action traces', () => {
  const traces = dir ? telecomTraces(dir) : [];
  const tasks = dir ? (JSON.parse(readFileSync(path.join(dir, 'tasks_small.json'), 'utf8')) as Task[]) : [];

  it('holds every gold action of its task, in order, after the lookups', () => {
    expect(traces.length).toBe(tasks.filter((t) => t.evaluation_criteria.actions.length > 0).length);
    for (const trace of traces) {
      const task = tasks.find((t) => t.id === trace.id)!;
      const made = calls(trace.messages);
      const gold = task.evaluation_criteria.actions.map((a) => ({ name: a.name, args: a.arguments }));
      const acted = made.filter((c) => c.name !== 'check_device_status');
      expect(acted.slice(acted.length - gold.length)).toEqual(gold);
      expect(made[0]).toEqual({ name: 'get_customer_by_phone', args: { phone_number: expect.any(String) } });
      expect(made.some((c) => c.name === 'read_document')).toBe(true);
      // Every call has exactly one result.
      expect(trace.messages.filter((m) => m.role === 'tool')).toHaveLength(made.length);
    }
  });

  it('answers the lookups with the records of db.toml, so the ids the gold actions use come from them', () => {
    const roaming = traces.find((t) => calls(t.messages).some((c) => c.name === 'enable_roaming'));
    expect(roaming).toBeDefined();
    const [trace] = parseTraces(JSON.stringify(roaming), roaming!.id);
    const used = usedLaterValues(trace!.items).filter((u) => u.usedIn === 'call enable_roaming');
    // The customer and line ids are in no user message: the model could only have them from the lookups.
    expect(used.map((u) => [u.value.raw, u.toolName]).sort()).toEqual(
      expect.arrayContaining([
        ['C1001', 'get_customer_by_phone'],
        ['L1002', 'get_customer_by_phone'],
      ]),
    );
  });

  it('replays under every default strategy: nothing lost uncompressed, no strategy costs more tokens', async () => {
    const parsed = traces.slice(0, 8).flatMap((t) => parseTraces(JSON.stringify(t), t.id));
    const report = await replayTraces(parsed, {});
    expect(report.uses).toBeGreaterThan(0);
    const none = report.strategies.find((s) => s.name === 'none')!;
    expect(none.recall).toBe(1);
    for (const strategy of report.strategies)
      expect(strategy.cumulativeTokens).toBeLessThanOrEqual(none.cumulativeTokens);
    expect(report.strategies.some((s) => s.cumulativeTokens < none.cumulativeTokens)).toBe(true);
  });
});
