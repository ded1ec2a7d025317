/**
 * History compaction under prompt caching: a sweep of C_hist's threshold T_hist and batch ratio for the two ACON
 * strategies with history compression (`acon-hist`, `acon`) on retail-tool-use and multi-objective-qa, offline
 * model, every strategy (`none` included) run in the same benchmark and so modelled by the same prompt-cache model
 * and priced with caching as openai:gpt-4.1, openai:gpt-5 and anthropic:claude-sonnet-4-5 (list prices of the
 * table's date). The two OpenAI entries share OpenAI's cache rules, so they are priced from one run; Anthropic's
 * rules (breakpoints) need a run of their own.
 *
 * Tasks: one prepared set of 2 × `--per-split` tasks per scenario, split within each kind of task (a retail
 * template; every multi-QA episode is of one kind) by position: the first, third, ... of a kind tune, the second,
 * fourth, ... are held out, so both splits hold every template. The configuration is chosen on the tuning split only, as the cheapest in dollars whose
 * success (and, on multi-objective QA, mean exact match) is at least `none`'s there; it is then reported on the
 * held-out split beside `none`, the standard `acon-hist`/`acon` (the scenario's preset T_hist, default batch) and
 * the library's defaults (T_hist 4,096, batch 0.5). The sweep's held-out figures are printed too, for the record.
 * Leave one domain out: chosen on one scenario's tuning split, reported on the other's held-out split.
 *
 * Each compaction rewrites the prompt from its summary on; the tables give compactions per episode and the prompt
 * dollars those calls paid past the cache (`prefixRewriteCostUsd`, an upper bound of what the rewrites cost).
 *
 * Run: node --conditions=@pagewise/source --import tsx bench/history-threshold.ts [--per-split 8] [--seed 1]
 *        [--thresholds 1024,2048,4096,8192,16384] [--batches 0.25,0.5,1]
 */
import { parseArgs } from 'node:util';
import {
  aconHistoryStrategy,
  aconStrategy,
  getScenario,
  MULTI_QA_SCENARIO,
  RETAIL_SCENARIO,
  registerStandardBench,
  registerStrategy,
  runBench,
  type BenchRuns,
} from '@pagewise/lab';
import { hotpotAvailable, hotpotDataMissing } from '@pagewise/lab/scenarios/multi-qa';
import { retailDataAvailable, retailDataMissing } from '@pagewise/lab/scenarios/retail';
import { DEFAULT_HISTORY_BATCH_RATIO, DEFAULT_HISTORY_THRESHOLD } from 'pagewise/compression';
import { callCostUsd, prefixRewriteCostUsd, DEFAULT_PRICES, type ModelPrice } from 'pagewise/cost';

const PRICED = ['openai:gpt-4.1', 'openai:gpt-5', 'anthropic:claude-sonnet-4-5'] as const;
/** The run whose cache model prices each entry: the OpenAI entries share OpenAI's rules. */
const RULES_RUN: Record<(typeof PRICED)[number], string> = {
  'openai:gpt-4.1': 'openai:gpt-4.1',
  'openai:gpt-5': 'openai:gpt-4.1',
  'anthropic:claude-sonnet-4-5': 'anthropic:claude-sonnet-4-5',
};
const REFERENCE = ['none', 'fifo', 'clear-tool-results', 'summarize', 'acon-obs', 'acon-hist', 'acon'];
const FAMILIES = ['acon-hist', 'acon'] as const;
type Family = (typeof FAMILIES)[number];

/** One configuration of the sweep. */
interface Config {
  strategy: string;
  family: Family;
  threshold: number;
  batch: number;
}

/** A strategy's figures over some tasks at one price. */
interface Stats {
  episodes: number;
  success: number;
  /** Mean exact match (multi-objective QA), else null. */
  em: number | null;
  usd: number;
  rewrites: number;
  rewriteUsd: number;
}

interface ScenarioRuns {
  name: string;
  /** Runs by the price entry whose rules they were modelled with. */
  runs: Map<string, BenchRuns>;
  tuning: Set<string>;
  heldOut: Set<string>;
}

function options() {
  const { values } = parseArgs({
    options: {
      'per-split': { type: 'string', default: '8' },
      seed: { type: 'string', default: '1' },
      thresholds: { type: 'string', default: '1024,2048,4096,8192,16384' },
      batches: { type: 'string', default: '0.25,0.5,1' },
    },
  });
  const list = (text: string, name: string) =>
    text.split(',').map((item) => {
      const value = Number(item);
      if (!(value > 0) || !Number.isFinite(value)) throw new Error(`--${name}: "${item}" is not a positive number.`);
      return value;
    });
  const perSplit = Number(values['per-split']);
  if (!Number.isInteger(perSplit) || perSplit < 1) throw new Error('--per-split must be a positive integer.');
  return {
    perSplit,
    seed: Number(values.seed),
    thresholds: list(values.thresholds, 'thresholds').map(Math.round),
    batches: list(values.batches, 'batches'),
  };
}

/** Registers one strategy per family, threshold and batch ratio, for both tool-use scenarios. */
function registerSweep(thresholds: readonly number[], batches: readonly number[]): Config[] {
  const configs: Config[] = [];
  for (const family of FAMILIES) {
    for (const threshold of thresholds) {
      for (const batch of batches) {
        const strategy = `${family}-t${threshold}-b${Math.round(batch * 100)}`;
        const settings = { historyThreshold: threshold, batchRatio: batch };
        registerStrategy(
          strategy,
          (ctx) => (family === 'acon' ? aconStrategy(ctx, settings) : aconHistoryStrategy(ctx, settings)),
          { scenarios: [RETAIL_SCENARIO, MULTI_QA_SCENARIO], replace: true },
        );
        configs.push({ strategy, family, threshold, batch });
      }
    }
  }
  return configs;
}

async function runScenario(name: string, strategies: string[], perSplit: number, seed: number): Promise<ScenarioRuns> {
  const runs = new Map<string, BenchRuns>();
  for (const priceAs of new Set(Object.values(RULES_RUN))) {
    const started = performance.now();
    const report = await runBench({
      scenario: getScenario(name),
      strategies,
      tasks: 2 * perSplit,
      seed,
      ...(name === MULTI_QA_SCENARIO ? { n: 4 } : {}),
      priceAs,
    });
    console.error(`${name}, cache modelled as ${priceAs}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
    runs.set(priceAs, report.runs);
  }
  const first = [...runs.values()][0]!;
  const order = first.episodes.filter((e) => e.strategy === 'none').map((e) => e.taskId);
  // The kind of a task: its id without numbers (the retail template stays).
  const seen = new Map<string, number>();
  const position = order.map((id) => {
    const kind = id.replace(/\d+/gu, '#');
    const at = seen.get(kind) ?? 0;
    seen.set(kind, at + 1);
    return at;
  });
  const tuning = new Set(order.filter((_, i) => position[i]! % 2 === 0));
  const heldOut = new Set(order.filter((_, i) => position[i]! % 2 === 1));
  if ([...tuning].some((id) => heldOut.has(id))) throw new Error(`${name}: a task is in both splits.`);
  if (heldOut.size === 0)
    throw new Error(
      `${name}: no task of any kind twice, so nothing is held out; raise --per-split (retail: at least 4).`,
    );
  return { name, runs, tuning, heldOut };
}

function stats(sc: ScenarioRuns, strategy: string, tasks: ReadonlySet<string>, priced: (typeof PRICED)[number]): Stats {
  const price: ModelPrice = DEFAULT_PRICES[priced]!;
  const episodes = sc.runs
    .get(RULES_RUN[priced])!
    .episodes.filter((e) => e.strategy === strategy && tasks.has(e.taskId));
  if (episodes.length === 0) throw new Error(`${sc.name}: no episodes of ${strategy}.`);
  const mean = (metric: (e: (typeof episodes)[number]) => number) =>
    episodes.reduce((s, e) => s + metric(e), 0) / episodes.length;
  const ems = episodes.flatMap((e) => (e.exactMatch === undefined ? [] : [e.exactMatch]));
  return {
    episodes: episodes.length,
    success: mean((e) => (e.success ? 1 : 0)),
    em: ems.length === episodes.length ? ems.reduce((s, v) => s + v, 0) / ems.length : null,
    usd: mean((e) => e.ledger.reduce((s, entry) => s + callCostUsd(entry, price), 0)),
    rewrites: mean((e) => e.ledger.reduce((s, entry) => s + (entry.compactions ?? 0), 0)),
    rewriteUsd: mean((e) => e.ledger.reduce((s, entry) => s + prefixRewriteCostUsd(entry, price), 0)),
  };
}

/** At least `none`'s success (and exact match, where there is one). */
function atLeast(stats: Stats, none: Stats): boolean {
  return stats.success >= none.success - 1e-9 && (stats.em === null || none.em === null || stats.em >= none.em - 1e-9);
}

/** The cheapest configuration of `family` at `none`'s success on the tuning split; else the most successful. */
function choose(sc: ScenarioRuns, configs: readonly Config[], family: Family, priced: (typeof PRICED)[number]) {
  const none = stats(sc, 'none', sc.tuning, priced);
  const rows = configs
    .filter((c) => c.family === family)
    .map((c) => ({ config: c, tuning: stats(sc, c.strategy, sc.tuning, priced) }));
  const equal = rows.filter((r) => atLeast(r.tuning, none)).sort((a, b) => a.tuning.usd - b.tuning.usd);
  // Ties (configurations that never compacted on these tasks cost the same) go to the first in the grid's order.
  if (equal.length > 0) {
    const tied = equal.filter((r) => r.tuning.usd <= equal[0]!.tuning.usd + 1e-12).length - 1;
    return { ...equal[0]!, atNoneSuccess: true, tied };
  }
  const best = [...rows].sort((a, b) => b.tuning.success - a.tuning.success || a.tuning.usd - b.tuning.usd)[0]!;
  return { ...best, atNoneSuccess: false, tied: 0 };
}

const pct = (v: number) => `${Math.round(v * 100)}%`;
const usd = (v: number) => `$${v.toFixed(4)}`;
const quality = (s: Stats) => (s.em === null ? pct(s.success) : `${pct(s.success)} (EM ${s.em.toFixed(2)})`);

function printSweep(sc: ScenarioRuns, configs: readonly Config[], split: 'tuning' | 'held-out'): void {
  const tasks = split === 'tuning' ? sc.tuning : sc.heldOut;
  const why = split === 'tuning' ? '' : ' (for the record: the choice never reads it)';
  console.log(`\n### ${sc.name}: the sweep on the ${split} split (${tasks.size} tasks)${why}, dollars per episode\n`);
  console.log(`| strategy | T_hist | batch | success | compactions | ${PRICED.join(' | ')} | rewrites, ${PRICED[0]} |`);
  console.log(`| --- | ---: | ---: | --- | ---: | ${PRICED.map(() => '---:').join(' | ')} | ---: |`);
  const rows: { strategy: string; t: string; b: string }[] = [
    ...REFERENCE.map((strategy) => ({ strategy, t: '', b: '' })),
    ...configs.map((c) => ({ strategy: c.strategy, t: String(c.threshold), b: String(c.batch) })),
  ];
  for (const row of rows) {
    const priced = PRICED.map((p) => stats(sc, row.strategy, tasks, p));
    console.log(
      `| ${row.strategy} | ${row.t} | ${row.b} | ${quality(priced[0]!)} | ${priced[0]!.rewrites.toFixed(1)} | ${priced.map((x) => usd(x.usd)).join(' | ')} | ${usd(priced[0]!.rewriteUsd)} |`,
    );
  }
}

/** Held-out figures of the configuration chosen on `tune` (maybe another scenario), reported on `report`. */
function printChoice(tune: ScenarioRuns, report: ScenarioRuns, configs: readonly Config[], heading: string): void {
  console.log(`\n### ${heading}\n`);
  console.log(
    `| priced as | strategy | chosen (T_hist, batch) | held-out success | held-out $ | none: success, $ | ratio to none, $ | preset: success, $ | T_hist ${DEFAULT_HISTORY_THRESHOLD}, batch ${DEFAULT_HISTORY_BATCH_RATIO}: success, $ |`,
  );
  console.log('| --- | --- | --- | --- | ---: | --- | ---: | --- | --- |');
  for (const priced of PRICED) {
    const none = stats(report, 'none', report.heldOut, priced);
    for (const family of FAMILIES) {
      const chosen = choose(tune, configs, family, priced);
      const held = stats(report, chosen.config.strategy, report.heldOut, priced);
      const standard = stats(report, family, report.heldOut, priced);
      const byDefault = configs.find(
        (config) =>
          config.family === family &&
          config.threshold === DEFAULT_HISTORY_THRESHOLD &&
          config.batch === DEFAULT_HISTORY_BATCH_RATIO,
      );
      const atDefault = byDefault ? stats(report, byDefault.strategy, report.heldOut, priced) : undefined;
      const note = `${chosen.tied > 0 ? ` (${chosen.tied} tied)` : ''}${chosen.atNoneSuccess ? '' : ' (below none on tuning)'}`;
      console.log(
        `| ${priced} | ${family} | ${chosen.config.threshold}, ${chosen.config.batch}${note} | ${quality(held)} | ${usd(held.usd)} | ${quality(none)}, ${usd(none.usd)} | ${(held.usd / none.usd).toFixed(2)}× | ${quality(standard)}, ${usd(standard.usd)} | ${atDefault ? `${quality(atDefault)}, ${usd(atDefault.usd)}` : 'not in the grid'} |`,
      );
    }
  }
}

async function main(): Promise<void> {
  const opts = options();
  const scenarios = [
    { name: RETAIL_SCENARIO, available: retailDataAvailable(), missing: () => retailDataMissing() },
    { name: MULTI_QA_SCENARIO, available: hotpotAvailable(), missing: () => hotpotDataMissing() },
  ];
  registerStandardBench();
  const configs = registerSweep(opts.thresholds, opts.batches);
  const strategies = [...REFERENCE, ...configs.map((c) => c.strategy)];
  const done: ScenarioRuns[] = [];
  for (const scenario of scenarios) {
    if (!scenario.available) {
      console.log(`${scenario.name}: skipped, ${scenario.missing()}`);
      continue;
    }
    done.push(await runScenario(scenario.name, strategies, opts.perSplit, opts.seed));
  }
  console.log(
    `\nOffline model, seed ${opts.seed}, ${done.map((sc) => `${sc.name}: ${sc.tuning.size} tuning + ${sc.heldOut.size} held-out tasks`).join(', ')} (alternate tasks of each kind of one prepared set); multi-objective QA at k = 4. Defaults: T_hist ${DEFAULT_HISTORY_THRESHOLD}, batch ${DEFAULT_HISTORY_BATCH_RATIO}. Prices of ${Object.keys(DEFAULT_PRICES).length} entries, with caching.`,
  );
  for (const sc of done) printSweep(sc, configs, 'tuning');
  for (const sc of done) printSweep(sc, configs, 'held-out');
  for (const sc of done)
    printChoice(sc, sc, configs, `${sc.name}: chosen on its tuning split, reported on its held-out split`);
  const [first, second] = done;
  if (first && second) {
    printChoice(
      first,
      second,
      configs,
      `Leave one domain out: chosen on ${first.name} (tuning), reported on ${second.name} (held-out)`,
    );
    printChoice(
      second,
      first,
      configs,
      `Leave one domain out: chosen on ${second.name} (tuning), reported on ${first.name} (held-out)`,
    );
  } else console.log('\nLeave one domain out: skipped, it needs both scenarios.');
}

await main();
