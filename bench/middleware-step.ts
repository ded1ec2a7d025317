/**
 * What the AI SDK `compressionMiddleware()` adds to a `generateText` tool loop: the same scripted work (one
 * `record` tool, 20 tool steps, then an answer) on a history pre-filled to 500 and 5,000 events (pairs of a
 * `record` call and its result, after a user message), run by the plain AI SDK loop and by the loop with the
 * model wrapped in `compressionMiddleware()` at its defaults, created for the invocation (so its first call
 * meets the whole history, as a new process does).
 *
 * Measured from outside, by the scripted model (`MockLanguageModelV3` of `ai/test`): a step is the gap between
 * the model returning and being called again; the fixed cost of an invocation is its wall time less those
 * gaps (the prompt's conversion before the first call, the middleware's first pass, the result after the last).
 * Each contender runs in a fresh process per round, every size once untimed (warm-up) and then timed, in an
 * order rotated per round; medians over rounds, and ratios taken within a round, median [min–max].
 *
 * The middleware's own time is also measured from inside, around its `transformParams`: the first call (the whole
 * history new) and the median of the later ones (its own cost per step, without the AI SDK's).
 *
 * `--baseline <src>` adds the middleware of another source tree (a checkout of an older commit's
 * `packages/pagewise/src`, inside this repository so its imports resolve), for a before/after in one run.
 *
 *   npx tsx bench/middleware-step.ts [--rounds 5] [--sizes 500,5000] [--baseline path/to/old/src]
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmt, quantile } from './stats.js';

const STEPS = 20;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const OWN_SRC = path.join(HERE, '..', 'packages', 'pagewise', 'src');

function argOf(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
}

function sizesOf(raw: string | undefined): number[] {
  const sizes = (raw ?? '500,5000').split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 4))
    throw new RangeError(`--sizes takes event counts ≥ 4 separated by commas, got "${raw}".`);
  return sizes;
}

/** One timed invocation: the gaps between model calls and the rest of its wall time, ms. */
interface ChildRow {
  events: number;
  stepMs: number;
  fixedMs: number;
  invocationMs: number;
  /** The middleware's first `transformParams` call, ms (0 for the plain loop). */
  firstCallMs: number;
  /** The median of its later calls, ms (0 for the plain loop). */
  callMs: number;
}

const recordResult = (index: number, note: string): string => `recorded ${index} (${note.length} chars)`;

/** A pre-filled history of `events` messages in AI SDK form, then the task. */
function history(events: number): unknown[] {
  const messages: unknown[] = [{ role: 'user', content: 'Start recording.' }];
  for (let index = 0; messages.length < events; index++) {
    const input = { i: index, note: `earlier observation ${index}: ${'detail '.repeat(15).trim()}` };
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: `s${index}`, toolName: 'record', input }],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `s${index}`,
          toolName: 'record',
          output: { type: 'text', value: recordResult(index, input.note) },
        },
      ],
    });
  }
  messages.push({ role: 'user', content: 'Record the new observations.' });
  return messages;
}

async function child(contender: string, src: string, sizes: readonly number[]): Promise<void> {
  const { generateText, stepCountIs, tool, wrapLanguageModel } = await import('ai');
  const { MockLanguageModelV3 } = await import('ai/test');
  const { z: zod } = await import('zod');
  const { compressionMiddleware } =
    contender === 'ai-sdk'
      ? { compressionMiddleware: undefined }
      : await import(pathToFileURL(path.join(src, 'ai-sdk.ts')).href);
  const usage = {
    inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: undefined, reasoning: undefined },
  };
  const invoke = async (events: number): Promise<ChildRow> => {
    const messages = history(events);
    const gaps: number[] = [];
    let lastExit: number | undefined;
    let call = 0;
    const mock = new MockLanguageModelV3({
      doGenerate: async () => {
        const now = performance.now();
        if (lastExit !== undefined) gaps.push(now - lastExit);
        const step = call++;
        const content =
          step < STEPS
            ? [
                {
                  type: 'tool-call' as const,
                  toolCallId: `c${step}`,
                  toolName: 'record',
                  input: JSON.stringify({ i: step, note: `observation ${step}: the value went from ${100 + step}` }),
                },
              ]
            : [{ type: 'text' as const, text: 'All observations are recorded.' }];
        lastExit = performance.now();
        return {
          content,
          finishReason: { unified: step < STEPS ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const calls: number[] = [];
    const created = compressionMiddleware?.();
    const timed = created && {
      ...created,
      transformParams: async (options: Parameters<NonNullable<typeof created.transformParams>>[0]) => {
        const before = performance.now();
        const params = await created.transformParams(options);
        calls.push(performance.now() - before);
        return params;
      },
    };
    const model = timed ? wrapLanguageModel({ model: mock, middleware: timed }) : mock;
    globalThis.gc?.();
    const start = performance.now();
    const result = await generateText({
      model,
      system: 'You record observations.',
      messages: messages as never,
      tools: {
        record: tool({
          description: 'Records one observation by index and returns a short acknowledgement.',
          inputSchema: zod.object({ i: zod.number().int(), note: zod.string() }),
          execute: async ({ i: index, note }) => recordResult(index, note),
        }),
      },
      stopWhen: stepCountIs(STEPS + 2),
    });
    const invocationMs = performance.now() - start;
    if (result.text !== 'All observations are recorded.' || call !== STEPS + 1)
      throw new Error(`${contender}: ${call} model calls, final text "${result.text}"`);
    const stepsMs = gaps.reduce((a, b) => a + b, 0);
    return {
      events,
      stepMs: quantile(gaps, 0.5),
      fixedMs: invocationMs - stepsMs,
      invocationMs,
      firstCallMs: calls[0] ?? 0,
      callMs: calls.length > 1 ? quantile(calls.slice(1), 0.5) : 0,
    };
  };
  const rows: ChildRow[] = [];
  for (const events of sizes) {
    await invoke(events); // warm-up at this size: the JIT, caches, code paths only this length takes
    rows.push(await invoke(events));
  }
  process.stdout.write(JSON.stringify(rows));
}

/** Runs every contender in a fresh process per round and prints medians and within-round ratios. */
async function main(argv: readonly string[]): Promise<void> {
  const rounds = Number(argOf(argv, '--rounds') ?? 5);
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`--rounds takes an integer ≥ 1, got ${rounds}.`);
  const sizes = sizesOf(argOf(argv, '--sizes'));
  const baseline = argOf(argv, '--baseline');
  const contenders = [
    { name: 'ai-sdk', src: OWN_SRC },
    { name: 'middleware', src: OWN_SRC },
    ...(baseline ? [{ name: 'middleware-baseline', src: path.resolve(baseline) }] : []),
  ];
  const byRound = new Map<string, ChildRow[]>();
  for (let round = 0; round < rounds; round++) {
    for (let at = 0; at < contenders.length; at++) {
      const contender = contenders[(at + round) % contenders.length]!;
      const out = execFileSync(
        process.execPath,
        [
          '--expose-gc',
          '--conditions=@pagewise/source',
          '--import',
          'tsx',
          fileURLToPath(import.meta.url),
          '--child',
          contender.name,
          contender.src,
          sizes.join(','),
        ],
        { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      );
      for (const row of JSON.parse(out) as ChildRow[]) {
        const key = `${contender.name}@${row.events}`;
        byRound.set(key, [...(byRound.get(key) ?? []), row]);
      }
      process.stderr.write('.');
    }
  }
  const rowsOf = (name: string, events: number): ChildRow[] => byRound.get(`${name}@${events}`) ?? [];
  const med = (name: string, events: number, field: 'stepMs' | 'fixedMs'): number =>
    quantile(
      rowsOf(name, events).map((r) => r[field]),
      0.5,
    );
  const ratio = (xs: number[], ys: number[]): string => {
    const ratios = xs.map((x, i) => x / ys[i]!);
    return `${fmt(quantile(ratios, 0.5), 2)} [${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}]`;
  };
  const field = (name: string, events: number, which: 'stepMs' | 'fixedMs'): number[] =>
    rowsOf(name, events).map((r) => r[which]);
  const small = sizes[0]!;
  const large = sizes[sizes.length - 1]!;
  console.log(`\n## middleware-step: AI SDK generateText, plain and with compressionMiddleware(), ${rounds} rounds\n`);
  console.log('ms medians over rounds; ratios within rounds, median [min–max] over rounds.\n');
  console.log(
    `| contender | ${sizes.map((n) => `step at ${n}`).join(' | ')} | ${sizes.map((n) => `fixed at ${n}`).join(' | ')} | ${sizes.map((n) => `step ÷ plain at ${n}`).join(' | ')} | ${sizes.map((n) => `fixed ÷ plain at ${n}`).join(' | ')} | step ${large} ÷ ${small} |`,
  );
  console.log(`|---|${[...sizes, ...sizes, ...sizes, ...sizes].map(() => '---:').join('|')}|---:|`);
  for (const { name } of contenders) {
    console.log(
      `| ${name} | ${sizes.map((n) => fmt(med(name, n, 'stepMs'))).join(' | ')} | ${sizes.map((n) => fmt(med(name, n, 'fixedMs'), 1)).join(' | ')} | ${sizes.map((n) => ratio(field(name, n, 'stepMs'), field('ai-sdk', n, 'stepMs'))).join(' | ')} | ${sizes.map((n) => ratio(field(name, n, 'fixedMs'), field('ai-sdk', n, 'fixedMs'))).join(' | ')} | ${ratio(field(name, large, 'stepMs'), field(name, small, 'stepMs'))} |`,
    );
  }
  // The middleware's own time, from inside: what the ratios above hold of it, without the AI SDK's own growth.
  const own = (name: string, events: number, which: 'firstCallMs' | 'callMs'): number[] =>
    rowsOf(name, events).map((r) => r[which]);
  const spread = (values: number[], digits: number): string =>
    `${fmt(quantile(values, 0.5), digits)} [${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}]`;
  console.log(
    `\nThe middleware's own calls (its \`transformParams\`, timed around it): ms medians [min–max] over rounds.\n`,
  );
  console.log(
    `| contender | ${sizes.map((n) => `first call at ${n}`).join(' | ')} | ${sizes.map((n) => `later call at ${n}`).join(' | ')} | later call ${large} ÷ ${small} |`,
  );
  console.log(`|---|${[...sizes, ...sizes].map(() => '---:').join('|')}|---:|`);
  for (const { name } of contenders.filter((c) => c.name !== 'ai-sdk')) {
    console.log(
      `| ${name} | ${sizes.map((n) => spread(own(name, n, 'firstCallMs'), 1)).join(' | ')} | ${sizes.map((n) => spread(own(name, n, 'callMs'), 3)).join(' | ')} | ${ratio(own(name, large, 'callMs'), own(name, small, 'callMs'))} |`,
    );
  }
  console.log(
    `\nLoad average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.cpus().length} cores.`,
  );
}

if (process.argv[2] === '--child') await child(process.argv[3]!, process.argv[4]!, sizesOf(process.argv[5]));
else await main(process.argv.slice(2));
