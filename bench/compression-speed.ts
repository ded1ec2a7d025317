/**
 * Speed of the extractive compressor on the multi-domain suite (bench/compression-eval/suite.ts): milliseconds
 * per 1,000 input tokens of `compressExtractive` at the suite's ratio, per set and per kind of input (prose,
 * tables, JSON records, chats), median over the items. The process is warmed on the tuning split; the test
 * items are then timed the first time the process sees them (`first`) and once more (`again`: the same
 * input and query, as when a result is compressed again at a later step).
 *
 * With `--baseline <dir>` (another checkout of this repository, its package sources read in place), every
 * test item is compressed by that checkout's code and by this one, the order alternating from item to item,
 * and the run fails unless every output is identical.
 *
 * With `--scoring learned` both compress with the learned scorer instead of the default one; `--limit N` takes
 * the first N items of each set and split; `--kind <kind>` (`prose`, `tables`, `JSON records`, `chats`) only
 * the items of that kind.
 *
 * Usage: PAGEWISE_SHARED_DATA=<shared/data> node --conditions=@pagewise/source --import tsx
 *   bench/compression-speed.ts [--baseline <dir>] [--limit N] [--kind <kind>]
 *   [--scoring heuristic|learned]
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { countTokens } from 'pagewise';
import { DEFAULT_EXTRACTIVE_RULES } from 'pagewise/compression';
import { compressExtractive } from 'pagewise/extractive';
import { suiteItems, type SuiteItem } from './compression-eval/suite.js';
import { SUITE_TAU } from './compression-eval/suite-run.js';

/** The compressor of one checkout, as the suite calls it. */
type Compress = (item: SuiteItem) => string;

/** The scorer the contenders use; undefined: each checkout's default. */
let scoring: 'heuristic' | 'learned' | undefined;

function compressorOf(compress: typeof compressExtractive, rules: typeof DEFAULT_EXTRACTIVE_RULES): Compress {
  return (item) =>
    compress(item.text, {
      query: item.query,
      rules: { ...rules, ratio: SUITE_TAU },
      ...(scoring === undefined ? {} : { scoring }),
    }).text;
}

/** The compressor of the checkout at `dir`, loaded from its package sources. */
async function baselineCompressor(dir: string): Promise<Compress> {
  const at = (file: string) => pathToFileURL(path.resolve(dir, 'packages/pagewise/src', file)).href;
  // Each name from the first entry of the checkout that exports it: entries moved between releases.
  const exported = async <T>(name: string, files: readonly string[]): Promise<T> => {
    for (const file of files) {
      if (!existsSync(path.resolve(dir, 'packages/pagewise/src', file))) continue;
      const entry = (await import(at(file))) as Record<string, unknown>;
      if (entry[name] !== undefined) return entry[name] as T;
    }
    throw new Error(`baseline ${dir}: no entry of ${files.join(', ')} exports ${name}`);
  };
  return compressorOf(
    await exported<typeof compressExtractive>('compressExtractive', ['extractive.ts', 'internal.ts']),
    await exported<typeof DEFAULT_EXTRACTIVE_RULES>('DEFAULT_EXTRACTIVE_RULES', ['compression.ts', 'index.ts']),
  );
}

/** The kind of input an item is. */
function kindOf(item: SuiteItem): string {
  if (item.json) return 'JSON records';
  if (item.chat) return 'chats';
  return /TAT-QA|Report pages/u.test(item.set) ? 'tables' : 'prose';
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : (sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN);
};

/** Milliseconds per 1,000 input tokens of each contender on each item, first sight and again. */
interface Timings {
  first: number[];
  again: number[];
}

function timeOne(compress: Compress, item: SuiteItem, perK: number, into: Timings): string {
  let start = performance.now();
  const text = compress(item);
  into.first.push((performance.now() - start) / perK);
  start = performance.now();
  compress(item);
  into.again.push((performance.now() - start) / perK);
  return text;
}

/** Times `contenders` on the test items, interleaved; returns per item group the timings and the outputs that differ. */
function timeAll(
  items: readonly SuiteItem[],
  contenders: readonly { name: string; compress: Compress }[],
): { rows: Map<string, Map<string, Timings>>; differing: SuiteItem[] } {
  const rows = new Map<string, Map<string, Timings>>();
  const differing: SuiteItem[] = [];
  items.forEach((item, index) => {
    const perK = countTokens(item.text) / 1000;
    const outputs = new Map<string, string>();
    const order = index % 2 === 0 ? contenders : [...contenders].reverse();
    for (const { name, compress } of order) {
      for (const group of [item.set, `all ${kindOf(item)}`]) {
        const byName = rows.get(group) ?? new Map<string, Timings>();
        rows.set(group, byName);
        if (!byName.has(name)) byName.set(name, { first: [], again: [] });
      }
      const timings = { first: [] as number[], again: [] as number[] };
      outputs.set(name, timeOne(compress, item, perK, timings));
      for (const group of [item.set, `all ${kindOf(item)}`]) {
        const timed = rows.get(group)!.get(name)!;
        timed.first.push(...timings.first);
        timed.again.push(...timings.again);
      }
    }
    if (new Set(outputs.values()).size > 1) differing.push(item);
  });
  return { rows, differing };
}

/** Runs the bench and prints the table; returns the number of items whose outputs differ. */
export async function main(
  options: { baseline?: string; limit?: number; kind?: string; scoring?: 'heuristic' | 'learned' } = {},
): Promise<number> {
  scoring = options.scoring;
  const all = await suiteItems();
  const limit = options.limit ?? Infinity;
  const perSet = new Map<string, number>();
  const take = (item: SuiteItem): boolean => {
    const taken = perSet.get(`${item.split}:${item.set}`) ?? 0;
    perSet.set(`${item.split}:${item.set}`, taken + 1);
    return taken < limit;
  };
  const items = all.filter((item) => options.kind === undefined || kindOf(item) === options.kind).filter(take);
  const contenders: { name: string; compress: Compress }[] = [
    ...(options.baseline ? [{ name: 'baseline', compress: await baselineCompressor(options.baseline) }] : []),
    { name: 'this checkout', compress: compressorOf(compressExtractive, DEFAULT_EXTRACTIVE_RULES) },
  ];
  for (const item of items.filter((i) => i.split === 'tune')) for (const { compress } of contenders) compress(item);
  const test = items.filter((i) => i.split === 'test');
  const { rows, differing } = timeAll(test, contenders);
  const names = contenders.map((c) => c.name);
  console.log(
    `\n## compression-speed: ms per 1,000 input tokens, median (${test.length} test items, warmed on ${items.length - test.length} tuning items${scoring ? `, ${scoring} scorer` : ''})\n`,
  );
  console.log(`| set | items | ${names.map((n) => `${n}: first | ${n}: again`).join(' | ')} |`);
  console.log(`| --- | ---: | ${names.map(() => '---: | ---:').join(' | ')} |`);
  const groups = [...rows.keys()].sort((a, b) => Number(a.startsWith('all ')) - Number(b.startsWith('all ')));
  for (const group of groups) {
    const byName = rows.get(group)!;
    const count = byName.get(names[0]!)?.first.length ?? 0;
    const cells = names.map((name) => {
      const timed = byName.get(name)!;
      return `${median(timed.first).toFixed(2)} | ${median(timed.again).toFixed(2)}`;
    });
    console.log(`| ${group} | ${count} | ${cells.join(' | ')} |`);
  }
  if (options.baseline)
    console.log(`\nOutputs identical to the baseline: ${test.length - differing.length} of ${test.length} items.`);
  console.log(
    `Load average at the end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(', ')} (${process.arch}).`,
  );
  return differing.length;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      baseline: { type: 'string' },
      limit: { type: 'string' },
      kind: { type: 'string' },
      scoring: { type: 'string' },
    },
  });
  if (values.scoring !== undefined && values.scoring !== 'heuristic' && values.scoring !== 'learned') {
    throw new Error(`--scoring must be heuristic or learned, got ${values.scoring}`);
  }
  const differing = await main({
    ...(values.scoring ? { scoring: values.scoring } : {}),
    ...(values.kind ? { kind: values.kind } : {}),
    ...(values.baseline ? { baseline: values.baseline } : {}),
    ...(values.limit ? { limit: Number(values.limit) } : {}),
  });
  if (differing > 0) {
    console.error(`${differing} item(s) compressed differently from the baseline.`);
    process.exitCode = 1;
  }
}
