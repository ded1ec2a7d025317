/**
 * What the prompt-cache model adds to a step: the gap between two calls of a scripted model (framework
 * time as a user waits for it, as in step-cost.ts) with the runner's `promptCache` off and with OpenAI's
 * rules, on sessions pre-filled to 500 and 5,000 events, 20 tool steps each. Both variants run in each
 * of several fresh processes, in an order rotated per round, every size once untimed first; reported: the
 * median gap of each variant (with the range of its round medians), the difference, and that difference as
 * a share of the step without it (median and range over the rounds).
 *
 *   node --conditions=@pagewise/source --import tsx bench/prompt-cache-cost.ts [--rounds 5] [--sizes 500,5000]
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { z } from 'zod';
import { Agent, InMemorySessionStore, Runner, tool, type SessionEvent } from 'pagewise';
import { promptCacheRulesFor, type PromptCacheRules } from 'pagewise/cost';
import { scriptedModel } from 'pagewise/testing';
import { fmt, quantile } from './stats.js';

const STEPS = 20;
const REPEATS = 3;
const VARIANTS = ['off', 'openai'] as const;
type Variant = (typeof VARIANTS)[number];

function sizesOf(argv: readonly string[]): number[] {
  const at = argv.indexOf('--sizes');
  const raw = at >= 0 ? argv[at + 1] : undefined;
  const sizes = (raw ?? '500,5000').split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 2))
    throw new RangeError(`--sizes takes event counts ≥ 2 separated by commas, got "${raw}".`);
  return sizes;
}

/** Wraps a model so the gap between the end of one call and the start of the next is recorded. */
function timed(inner: LanguageModelV3): { model: LanguageModelV3; gaps: number[] } {
  const gaps: number[] = [];
  let lastEnd: number | undefined;
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: inner.supportedUrls,
    async doGenerate(options) {
      const start = performance.now();
      if (lastEnd !== undefined) gaps.push(start - lastEnd);
      const result = await inner.doGenerate(options);
      lastEnd = performance.now();
      return result;
    },
    doStream: (options) => inner.doStream(options),
  };
  return { model, gaps };
}

const recordOutput = (index: number) =>
  JSON.stringify({ id: `r${index}`, status: 'delivered', total: 100 + index, note: 'x'.repeat(120) });

function seedPair(index: number): SessionEvent[] {
  return [
    {
      kind: 'model',
      id: `m${index}`,
      invocationId: 'seed',
      author: 'a',
      timestamp: 0,
      text: `Recording ${index}.`,
      toolCalls: [{ toolCallId: `seed-${index}`, toolName: 'record', input: { id: `r${index}` } }],
    },
    {
      kind: 'tool-result',
      id: `t${index}`,
      invocationId: 'seed',
      author: 'a',
      timestamp: 0,
      toolCallId: `seed-${index}`,
      toolName: 'record',
      output: recordOutput(index),
      isError: false,
    },
  ];
}

let runs = 0;

/** The steady-state gaps of one variant at one size: REPEATS runs of STEPS steps on a seeded session. */
async function gapsOf(variant: Variant, events: number): Promise<number[]> {
  const record = tool({
    name: 'record',
    description: 'Records an id and returns the record.',
    inputSchema: z.object({ id: z.string() }),
    execute: ({ id }: { id: string }) => ({ id, status: 'recorded' }),
  });
  const rules: PromptCacheRules | false = variant === 'off' ? false : promptCacheRulesFor('openai', 'gpt-4.1')!;
  const store = new InMemorySessionStore();
  const gaps: number[] = [];
  for (let repeat = 0; repeat < REPEATS; repeat += 1) {
    const sessionId = `s-${events}-${repeat}`;
    const session = await store.createSession({ appName: 'bench', userId: 'u', sessionId });
    for (let index = 0; session.events.length < events; index += 1) await store.appendEvents(session, seedPair(index));
    // Every run's tool calls (and so its results) are new texts, as in a real run: none was counted or
    // tokenized before, so a step pays for tokenizing what it appends.
    runs += 1;
    const script = [
      ...Array.from({ length: STEPS }, (_, index) => ({
        toolCalls: [{ toolName: 'record', input: { id: `n${runs}-${index}` } }],
      })),
      'done',
    ];
    const model = timed(scriptedModel(script));
    const runner = new Runner({
      agent: new Agent({ name: 'a', instruction: 'You record things.', tools: [record] }),
      model: model.model,
      store,
      appName: 'bench',
      contextWindow: 0,
      promptCache: rules,
    });
    await runner.run({ userId: 'u', sessionId, message: 'Record the ids.' });
    // The first gap warms the caches for the seeded history (the cache model's included); the rest are steady.
    gaps.push(...model.gaps.slice(1));
  }
  return gaps;
}

async function child(order: readonly Variant[], sizes: readonly number[]): Promise<void> {
  const result: Record<string, Record<number, number[]>> = {};
  for (const pass of [0, 1])
    for (const events of sizes)
      for (const variant of order) {
        const gaps = await gapsOf(variant, events);
        if (pass === 1) (result[variant] ??= {})[events] = gaps;
      }
  process.stdout.write(JSON.stringify(result));
}

const range = (values: readonly number[], digits = 3): string =>
  `${fmt(quantile(values, 0.5), digits)} [${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}]`;

/**
 * Runs the rounds in fresh processes and prints, per size, each variant's median gap over all rounds with
 * the range of its round medians, and the share the cache model adds: median and range over the rounds, each
 * round's share taken between the two variants measured in that process.
 */
export async function main(argv = process.argv.slice(2)): Promise<void> {
  const rounds = Number(argv[argv.indexOf('--rounds') + 1] || 5) || 5;
  const sizes = sizesOf(argv);
  const all: Record<string, Record<number, number[]>> = {};
  const roundMedians: Record<string, Record<number, number[]>> = {};
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? [...VARIANTS] : [...VARIANTS].reverse();
    const out = execFileSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--child', order.join(','), '--sizes', sizes.join(',')],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    const rows = JSON.parse(out) as Record<string, Record<number, number[]>>;
    for (const [variant, bySize] of Object.entries(rows))
      for (const [events, gaps] of Object.entries(bySize)) {
        ((all[variant] ??= {})[Number(events)] ??= []).push(...gaps);
        ((roundMedians[variant] ??= {})[Number(events)] ??= []).push(quantile(gaps, 0.5));
      }
  }
  console.log(`prompt-cache model cost per step (${rounds} rounds × ${REPEATS} runs × ${STEPS - 1} steady steps)`);
  console.log('median over all steps [range of the round medians]; added share: median [range] over rounds');
  console.log('| events | step, cache model off (ms) | step, OpenAI rules (ms) | added (ms) | added share |');
  console.log('|---:|---:|---:|---:|---:|');
  for (const events of sizes) {
    const off = quantile(all['off']![events]!, 0.5);
    const on = quantile(all['openai']![events]!, 0.5);
    const offRounds = roundMedians['off']![events]!;
    const onRounds = roundMedians['openai']![events]!;
    const shares = onRounds.map((value, round) => ((value - offRounds[round]!) / offRounds[round]!) * 100);
    console.log(
      `| ${events} | ${fmt(off)} [${fmt(Math.min(...offRounds))}–${fmt(Math.max(...offRounds))}] | ${fmt(on)} [${fmt(Math.min(...onRounds))}–${fmt(Math.max(...onRounds))}] | ${fmt(on - off)} | ${range(shares, 1)}% |`,
    );
  }
}

if (process.argv.includes('--child')) {
  const at = process.argv.indexOf('--child');
  await child(process.argv[at + 1]!.split(',') as Variant[], sizesOf(process.argv));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
