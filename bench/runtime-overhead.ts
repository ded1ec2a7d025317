/**
 * Framework time per step with the scripted model and the SQLite store, at 10, 100 and 500 events of
 * history, two ways: the ledger's figure (the runner's own account, model and tool time subtracted) and
 * the time measured from outside the runner (the gap between the model returning and the runner calling
 * it again), which is what a user waits for. Reports median and spread (p10..p90) per history size.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { Agent, Runner, tool, type SessionEvent } from 'pagewise';
import { SqliteSessionStore } from '@pagewise/sqlite';
import { scriptedModel } from 'pagewise/testing';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { fmt, spread } from './stats.js';

const lookup = tool({
  name: 'lookup',
  description: 'Looks up a record by id and returns it.',
  inputSchema: z.object({ id: z.string() }),
  execute: ({ id }) => ({
    id,
    status: 'delivered',
    items: [{ name: 'Desk Lamp', price: 149.99 }],
    note: 'Record returned by the lookup tool.',
  }),
});

async function seed(store: SqliteSessionStore, sessionId: string, events: number): Promise<void> {
  const session = await store.createSession({ appName: 'bench', userId: 'u', sessionId });
  for (let pair = 0; session.events.length < events; pair++) {
    const callId = `seed-${pair}`;
    const model: SessionEvent = {
      kind: 'model',
      id: `m${pair}`,
      invocationId: 'seed',
      author: 'a',
      timestamp: Date.now(),
      text: `Looking up record ${pair}.`,
      toolCalls: [{ toolCallId: callId, toolName: 'lookup', input: { id: `r${pair}` } }],
    };
    const result: SessionEvent = {
      kind: 'tool-result',
      id: `t${pair}`,
      invocationId: 'seed',
      author: 'a',
      timestamp: Date.now(),
      toolCallId: callId,
      toolName: 'lookup',
      output: JSON.stringify({ id: `r${pair}`, status: 'delivered', total: 100 + pair, note: 'x'.repeat(120) }),
      isError: false,
    };
    await store.appendEvent(session, model);
    await store.appendEvent(session, result);
  }
}

/** Wraps a model so the gaps between its calls are timed from outside the runner. */
function timedFromOutside(model: LanguageModelV3, gaps: number[]): LanguageModelV3 {
  let lastReturn: number | undefined;
  const around = async <T>(call: () => PromiseLike<T>): Promise<T> => {
    const now = performance.now();
    if (lastReturn !== undefined) gaps.push(now - lastReturn);
    try {
      return await call();
    } finally {
      lastReturn = performance.now();
    }
  };
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (options) => around(() => model.doGenerate(options)),
    doStream: (options) => around(() => model.doStream(options)),
  };
}

/** One history size: the ledger's framework time per step and the time measured from outside. */
export interface OverheadRow {
  events: number;
  median: number;
  p10: number;
  p90: number;
  n: number;
  /** Median gap between model calls measured outside the runner (includes the trivial tool). */
  outsideMedian: number;
  outsideP10: number;
  outsideP90: number;
}

/** Runs the benchmark and returns its rows. */
export async function runtimeOverhead(options: { steps?: number; repeats?: number } = {}): Promise<OverheadRow[]> {
  const steps = options.steps ?? 20;
  const repeats = options.repeats ?? 5;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-bench-'));
  const rows = [];
  for (const events of [10, 100, 500]) {
    const store = new SqliteSessionStore({ path: path.join(dir, `h${events}.db`) });
    const samples: number[] = [];
    const outside: number[] = [];
    for (let repeat = 0; repeat < repeats; repeat++) {
      const sessionId = `s-${events}-${repeat}`;
      const gaps: number[] = [];
      await seed(store, sessionId, events);
      const script = [
        ...Array.from({ length: steps }, (_, i) => ({ toolCalls: [{ toolName: 'lookup', input: { id: `n${i}` } }] })),
        'done',
      ];
      const runner = new Runner({
        agent: new Agent({ name: 'a', instruction: 'You look things up.', tools: [lookup] }),
        model: timedFromOutside(scriptedModel(script), gaps),
        store,
        appName: 'bench',
      });
      const result = await runner.run({ userId: 'u', sessionId, message: 'Look up the records.' });
      // The first step of each run warms caches for the seeded history; the rest are steady state.
      samples.push(...result.ledger.entries.slice(1).map((e) => e.frameworkMs));
      outside.push(...gaps.slice(1));
    }
    const outsideSpread = spread(outside);
    rows.push({
      events,
      ...spread(samples),
      outsideMedian: outsideSpread.median,
      outsideP10: outsideSpread.p10,
      outsideP90: outsideSpread.p90,
    });
    await store.close();
  }
  return rows;
}

/** Prints the benchmark as a markdown table. */
export async function main(): Promise<void> {
  const rows = await runtimeOverhead();
  console.log('\n## runtime-overhead: framework ms per step (scripted model, SQLite store)\n');
  console.log("Ledger: the runner's own account. Outside: the gap between two model calls, timed around the model.\n");
  console.log(
    '| history events | ledger median ms | ledger p10..p90 | outside median ms | outside p10..p90 | outside ÷ ledger | steps |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows)
    console.log(
      `| ${row.events} | ${fmt(row.median)} | ${fmt(row.p10)}..${fmt(row.p90)} | ${fmt(row.outsideMedian)} | ${fmt(row.outsideP10)}..${fmt(row.outsideP90)} | ${fmt(row.outsideMedian / row.median)} | ${row.n} |`,
    );
  const at500 = rows.find((r) => r.events === 500)!;
  console.log(
    `\nTarget: median < 1 ms at 500 events, measured from outside: ${at500.outsideMedian < 1 ? 'met' : 'NOT met'} (${fmt(at500.outsideMedian)} ms; ledger ${fmt(at500.median)} ms).`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
