/**
 * What the prompt-cache model adds to a step: the gap between two calls of a scripted model (framework
 * time as a user waits for it, as in step-cost.ts) with the runner's `promptCache` off and with OpenAI's
 * rules, on sessions pre-filled to 500 and 5,000 events, 20 tool steps each, and the process's CPU time
 * per step beside it. Two kinds of model: one that answers at once (every piece of the runner's work lies
 * in the gap) and one that answers after `--latency-ms` (a provider's time to answer, during which the
 * runner models the cache). Both variants run in each of several fresh processes, in an order rotated per
 * round, every size and kind of model once untimed first; reported per size and kind: the median gap of
 * each variant (with the range of its round medians), the difference, that difference as a share of the
 * step without it (median and range over the rounds), and the same for CPU time per step.
 *
 *   node --conditions=@pagewise/source --import tsx bench/prompt-cache-cost.ts [--rounds 5] [--sizes 500,5000] [--latency-ms 2]
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

function latencyOf(argv: readonly string[]): number {
  const at = argv.indexOf('--latency-ms');
  const raw = at >= 0 ? argv[at + 1] : '2';
  const latency = Number(raw);
  if (!Number.isFinite(latency) || latency <= 0)
    throw new RangeError(`--latency-ms takes a time in milliseconds above 0, got "${raw}".`);
  return latency;
}

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Wraps a model so the gap between the end of one call and the start of the next is recorded, and the
 * process's CPU time at the start of each call; with `latencyMs` the model answers that long after it is
 * called, as a provider does.
 */
function timed(inner: LanguageModelV3, latencyMs: number): { model: LanguageModelV3; gaps: number[]; cpu: number[] } {
  const gaps: number[] = [];
  const cpu: number[] = [];
  let lastEnd: number | undefined;
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: inner.supportedUrls,
    async doGenerate(options) {
      const start = performance.now();
      cpu.push(cpuMs());
      if (lastEnd !== undefined) gaps.push(start - lastEnd);
      const result = await inner.doGenerate(options);
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      lastEnd = performance.now();
      return result;
    },
    doStream: (options) => inner.doStream(options),
  };
  return { model, gaps, cpu };
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

interface Steps {
  /** The steady steps' gaps, ms. */
  gaps: number[];
  /** CPU time per steady step of each run, ms: the process's CPU between the second and the last call. */
  cpu: number[];
}

/** The steady-state steps of one variant at one size: REPEATS runs of STEPS steps on a seeded session. */
async function stepsOf(variant: Variant, events: number, latencyMs: number): Promise<Steps> {
  const record = tool({
    name: 'record',
    description: 'Records an id and returns the record.',
    inputSchema: z.object({ id: z.string() }),
    execute: ({ id }: { id: string }) => ({ id, status: 'recorded' }),
  });
  const rules: PromptCacheRules | false = variant === 'off' ? false : promptCacheRulesFor('openai', 'gpt-4.1')!;
  const store = new InMemorySessionStore();
  const gaps: number[] = [];
  const cpu: number[] = [];
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
    const model = timed(scriptedModel(script), latencyMs);
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
    cpu.push((model.cpu.at(-1)! - model.cpu[1]!) / (model.cpu.length - 2));
  }
  return { gaps, cpu };
}

/** The two kinds of model: answering at once, and after the provider-like latency. */
const kindsOf = (latencyMs: number): number[] => [0, latencyMs];
type Rows = Record<string, Record<string, Steps>>;
const rowKey = (events: number, latencyMs: number): string => `${events}@${latencyMs}`;

async function child(order: readonly Variant[], sizes: readonly number[], latencyMs: number): Promise<void> {
  const result: Rows = {};
  for (const pass of [0, 1])
    for (const events of sizes)
      for (const latency of kindsOf(latencyMs))
        for (const variant of order) {
          const steps = await stepsOf(variant, events, latency);
          if (pass === 1) (result[variant] ??= {})[rowKey(events, latency)] = steps;
        }
  process.stdout.write(JSON.stringify(result));
}

const range = (values: readonly number[], digits = 3): string =>
  `${fmt(quantile(values, 0.5), digits)} [${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}]`;

/** Median over all values with the range of the round medians, and the added share per round. */
function compare(
  off: readonly number[],
  on: readonly number[],
  offRounds: readonly number[],
  onRounds: readonly number[],
): string {
  const shares = onRounds.map((value, round) => ((value - offRounds[round]!) / offRounds[round]!) * 100);
  const offMedian = quantile(off, 0.5);
  const onMedian = quantile(on, 0.5);
  return `${fmt(offMedian)} [${fmt(Math.min(...offRounds))}–${fmt(Math.max(...offRounds))}] | ${fmt(onMedian)} [${fmt(Math.min(...onRounds))}–${fmt(Math.max(...onRounds))}] | ${fmt(onMedian - offMedian)} | ${range(shares, 1)}%`;
}

/**
 * Runs the rounds in fresh processes and prints, per size and kind of model, each variant's median gap over
 * all rounds with the range of its round medians, and the share the cache model adds: median and range
 * over the rounds, each round's share taken between the two variants measured in that process; then the
 * same for CPU time per step.
 */
export async function main(argv = process.argv.slice(2)): Promise<void> {
  const rounds = Number(argv[argv.indexOf('--rounds') + 1] || 5) || 5;
  const sizes = sizesOf(argv);
  const latencyMs = latencyOf(argv);
  const all: Record<string, Record<string, Steps>> = {};
  const roundMedians: Record<string, Record<string, Steps>> = {};
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? [...VARIANTS] : [...VARIANTS].reverse();
    const out = execFileSync(
      process.execPath,
      [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        '--child',
        order.join(','),
        '--sizes',
        sizes.join(','),
        '--latency-ms',
        String(latencyMs),
      ],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    const rows = JSON.parse(out) as Rows;
    for (const [variant, byRow] of Object.entries(rows))
      for (const [key, steps] of Object.entries(byRow)) {
        const kept = ((all[variant] ??= {})[key] ??= { gaps: [], cpu: [] });
        kept.gaps.push(...steps.gaps);
        kept.cpu.push(...steps.cpu);
        const medians = ((roundMedians[variant] ??= {})[key] ??= { gaps: [], cpu: [] });
        medians.gaps.push(quantile(steps.gaps, 0.5));
        medians.cpu.push(quantile(steps.cpu, 0.5));
      }
  }
  console.log(`prompt-cache model cost per step (${rounds} rounds × ${REPEATS} runs × ${STEPS - 1} steady steps)`);
  console.log('median over all steps [range of the round medians]; added share: median [range] over rounds');
  console.log(
    'step: the gap between two model calls, what a user waits for beside the model; CPU: per step, whole process',
  );
  console.log(
    '| events | model answers | step, cache model off (ms) | step, OpenAI rules (ms) | added (ms) | added share | CPU, off (ms) | CPU, OpenAI rules (ms) | added CPU (ms) | added CPU share |',
  );
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const events of sizes)
    for (const latency of kindsOf(latencyMs)) {
      const key = rowKey(events, latency);
      const [off, on] = [all['off']![key]!, all['openai']![key]!];
      const [offRounds, onRounds] = [roundMedians['off']![key]!, roundMedians['openai']![key]!];
      const answers = latency === 0 ? 'at once' : `after ${latency} ms`;
      console.log(
        `| ${events} | ${answers} | ${compare(off.gaps, on.gaps, offRounds.gaps, onRounds.gaps)} | ${compare(off.cpu, on.cpu, offRounds.cpu, onRounds.cpu)} |`,
      );
    }
}

if (process.argv.includes('--child')) {
  const at = process.argv.indexOf('--child');
  await child(process.argv[at + 1]!.split(',') as Variant[], sizesOf(process.argv), latencyOf(process.argv));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
