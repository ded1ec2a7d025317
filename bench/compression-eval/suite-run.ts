/**
 * Runs the multi-domain suite ({@link suiteItems}): per set, the evidence recall of each compressor
 * and of the baselines at the achieved ratio of the first compressor, item by item. Baselines:
 * truncate-head, truncate-tail, random units (sentences or lines, seeded), minify + head (JSON: the
 * compact form, its head within the same tokens) and last turns (chats: whole turns from the end within
 * the same tokens).
 */
import { countTokens } from 'pagewise';
import { DEFAULT_EXTRACTIVE_RULES } from 'pagewise/compression';
import { compressExtractive, randomUnits, truncateHead, truncateTail } from 'pagewise/extractive';
import type { SuiteItem } from './suite.js';

/** The ratio every set is compressed to. */
export const SUITE_TAU = 0.5;

/** A compressor under test: the output text for an item. */
export type ItemCompressor = (item: SuiteItem) => string;

/** The default compressor (heuristic or learned as the package ships it) at {@link SUITE_TAU}. */
export const defaultCompressor: ItemCompressor = (item) =>
  compressExtractive(item.text, { query: item.query, rules: { ...DEFAULT_EXTRACTIVE_RULES, ratio: SUITE_TAU } }).text;

/** The learned scorer with the parameters the package ships, at {@link SUITE_TAU}. */
export const learnedCompressor: ItemCompressor = (item) =>
  compressExtractive(item.text, {
    query: item.query,
    rules: { ...DEFAULT_EXTRACTIVE_RULES, ratio: SUITE_TAU },
    scoring: 'learned',
  }).text;

/** Recall and mean achieved ratio of one method on one set. */
export interface SuiteMethodFigure {
  method: string;
  recall: number;
  meanRatio: number;
}

/** The figures of one set. */
export interface SuiteSetFigures {
  set: string;
  domain: string;
  items: number;
  evidence: number;
  methods: SuiteMethodFigure[];
  /** Median milliseconds per 1,000 input tokens of the first compressor. */
  msPer1k: number;
}

function minifyHead(text: string, budgetTokens: number): string {
  const minified = JSON.stringify(JSON.parse(text));
  const tokens = countTokens(minified);
  return tokens <= budgetTokens ? minified : truncateHead(minified, budgetTokens / tokens);
}

function lastTurns(text: string, budgetTokens: number): string {
  const lines = text.split('\n');
  const kept: string[] = [];
  let used = 0;
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const cost = countTokens(lines[index] ?? '') + 1;
    if (used + cost > budgetTokens) break;
    used += cost;
    kept.unshift(lines[index] ?? '');
  }
  return kept.join('\n');
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.floor((sorted.length - 1) / 2)] ?? 0);
};

/** The name of the row that grades a JSON set's short values ({@link SuiteItem.short}). */
export function shortValuesSet(set: string): string {
  return `${set}: short values`;
}

/**
 * Per set (in order of first appearance), the recall of each compressor and of each baseline at the
 * achieved ratio of the first compressor on the same item. A JSON set whose items have short values
 * ({@link SuiteItem.short}) gets a second row right after it, the same outputs graded on those values only.
 */
export function runSuite(
  items: readonly SuiteItem[],
  compressors: readonly { name: string; compress: ItemCompressor }[],
): SuiteSetFigures[] {
  interface Tally {
    domain: string;
    items: number;
    evidence: number;
    kept: Map<string, number>;
    ratios: Map<string, number[]>;
    times: number[];
  }
  const tallies = new Map<string, Tally>();
  const tallyOf = (set: string, domain: string): Tally => {
    let tally = tallies.get(set);
    if (tally === undefined) {
      tally = { domain, items: 0, evidence: 0, kept: new Map(), ratios: new Map(), times: [] };
      tallies.set(set, tally);
    }
    return tally;
  };
  items.forEach((item, itemIndex) => {
    const main = tallyOf(item.set, item.domain);
    const short = item.short ? tallyOf(shortValuesSet(item.set), item.domain) : undefined;
    main.items += 1;
    main.evidence += item.evidenceCount;
    if (short && item.short) {
      short.items += 1;
      short.evidence += item.short.count;
    }
    const add = (method: string, output: string, ratio: number): void => {
      for (const [tally, kept] of [
        [main, item.kept(output)],
        ...(short && item.short ? [[short, item.short.kept(output)] as const] : []),
      ] as const) {
        tally.kept.set(method, (tally.kept.get(method) ?? 0) + kept);
        tally.ratios.set(method, [...(tally.ratios.get(method) ?? []), ratio]);
      }
    };
    const inputTokens = countTokens(item.text);
    let reference = 1;
    compressors.forEach(({ name, compress }, position) => {
      const start = performance.now();
      const output = compress(item);
      if (position === 0) main.times.push((performance.now() - start) / (inputTokens / 1000));
      const ratio = countTokens(output) / inputTokens;
      if (position === 0) reference = ratio;
      add(name, output, ratio);
    });
    const budget = Math.floor(reference * inputTokens);
    add('truncate-head', truncateHead(item.text, reference), reference);
    add('truncate-tail', truncateTail(item.text, reference), reference);
    add('random units', randomUnits(item.text, reference, itemIndex + 1), reference);
    if (item.json) add('minify + head', minifyHead(item.text, budget), reference);
    if (item.chat) add('last turns', lastTurns(item.text, budget), reference);
  });
  const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  // Each short-values row right after its set's row.
  const sets = [...new Set(items.map((item) => item.set))].flatMap((set) =>
    tallies.has(shortValuesSet(set)) ? [set, shortValuesSet(set)] : [set],
  );
  return sets
    .map((set) => [set, tallies.get(set)!] as const)
    .map(([set, tally]) => ({
      set,
      domain: tally.domain,
      items: tally.items,
      evidence: tally.evidence,
      methods: [...tally.kept].map(([method, kept]) => ({
        method,
        recall: kept / Math.max(1, tally.evidence),
        meanRatio: mean(tally.ratios.get(method) ?? []),
      })),
      msPer1k: median(tally.times),
    }));
}

/** The figures as a markdown table, one row per set, one column per method; `split` names the split measured. */
export function suiteTable(figures: readonly SuiteSetFigures[], split = 'test split'): string {
  const methods = [...new Set(figures.flatMap((f) => f.methods.map((m) => m.method)))];
  const cell = (figure: SuiteSetFigures, method: string): string => {
    const measured = figure.methods.find((x) => x.method === method);
    return measured ? measured.recall.toFixed(2) : '–';
  };
  return [
    `| set (${split}) | items | evidence | ratio | ${methods.join(' | ')} |`,
    `|:---|---:|---:|---:|${methods.map(() => '---:').join('|')}|`,
    ...figures.map(
      (figure) =>
        `| ${figure.set} | ${figure.items} | ${figure.evidence} | ${(figure.methods[0]?.meanRatio ?? 0).toFixed(2)} | ${methods.map((m) => cell(figure, m)).join(' | ')} |`,
    ),
  ].join('\n');
}
