/**
 * Replay on gold-action traces of tau2-bench banking_knowledge and telecom (built by bench/replay-traces.ts
 * from the shared data at run time; gold-action traces, not model traces), and on the sessions of the project's
 * retail-tool-use scenario run by the offline rules model over the tau-bench retail records (the project's
 * own runs, not an LLM's): per strategy, prompt tokens saved against none and used-later recall, the
 * baselines beside the compressors, and the replay's time per 100 tool results. Every strategy is warmed
 * on the first traces, then timed alone over all of them.
 *
 * With `--baseline <dir>` (another checkout of this repository, its packages' sources read in place), the
 * same traces are replayed by that checkout's code and by this one, strategy by strategy, the two
 * interleaved and each warmed: the table shows both times, and the run fails unless the two reports (times
 * left out) and every text the compressor returned are identical.
 *
 * Usage: PAGEWISE_SHARED_DATA=<shared/data> node --conditions=@pagewise/source --import tsx bench/replay.ts
 *   [--limit N] [--baseline <dir>]
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as current from '@pagewise/lab/replay';
import type { CompressorBackend } from 'pagewise/compression';
import { defaultStrategies, parseTraces, replayTraces, toolResultCount, type ReplayTrace } from '@pagewise/lab/replay';
import { bankingDataDir, bankingTraces, retailRunTraces, telecomDataDir, telecomTraces } from './replay-traces.js';

const WARM_TRACES = 5;

/** The trace sets of the bench: banking, telecom and the retail runs, each skipped (and said so) when its data is absent. */
async function traceSets(limit: number): Promise<{ title: string; traces: ReplayTrace[] }[]> {
  const sets: { title: string; traces: ReplayTrace[] }[] = [];
  const dir = bankingDataDir();
  if (!dir) console.log('replay bench (banking) skipped: tau2/banking_knowledge not found (set PAGEWISE_SHARED_DATA).');
  else {
    const traces = bankingTraces(dir, limit).flatMap((t) => parseTraces(JSON.stringify(t), t.id));
    sets.push({ title: `${traces.length} banking_knowledge gold-action traces`, traces });
  }
  const telecom = telecomDataDir();
  if (!telecom) console.log('replay bench (telecom) skipped: tau2/telecom not found (set PAGEWISE_SHARED_DATA).');
  else {
    const traces = telecomTraces(telecom, limit).flatMap((t) => parseTraces(JSON.stringify(t), t.id));
    sets.push({ title: `${traces.length} telecom gold-action traces`, traces });
  }
  const retail = await retailRunTraces(Math.min(limit, 24));
  if (typeof retail === 'string') console.log(`replay bench (retail) skipped: ${retail}`);
  else {
    sets.push({
      title: `${retail.length} retail-tool-use sessions run by the offline rules model (the project's own runs)`,
      traces: retail,
    });
  }
  return sets;
}

/** Builds the traces and prints the tables. */
export async function replayBench(limit = Infinity): Promise<void> {
  for (const [index, { title, traces }] of (await traceSets(limit)).entries()) {
    await printReplay(`${index > 0 ? '\n' : ''}Replay of ${title}`, traces);
  }
}

/** Replays `traces` under every default strategy, each warmed first, and prints the table. */
async function printReplay(title: string, traces: ReplayTrace[]): Promise<void> {
  const results = traces.reduce((n, t) => n + toolResultCount(t), 0);
  const strategies = defaultStrategies();
  for (const strategy of strategies) await replayTraces(traces.slice(0, WARM_TRACES), { strategies: [strategy] });
  const rows: string[][] = [];
  let uses = 0;
  let none: { peak: number; cumulative: number } | undefined;
  for (const strategy of strategies) {
    const cpu0 = process.cpuUsage();
    const report = await replayTraces(traces, { strategies: [strategy] });
    const cpu = process.cpuUsage(cpu0);
    const strategySummary = report.strategies[0]!;
    uses = report.uses;
    if (strategy.kind === 'none')
      none = { peak: strategySummary.peakTokens, cumulative: strategySummary.cumulativeTokens };
    const saved = (x: number, base: number | undefined) => (base ? `${((1 - x / base) * 100).toFixed(1)}%` : '–');
    rows.push([
      `${strategySummary.name}${strategySummary.baseline ? ' (baseline)' : ''}`,
      saved(strategySummary.peakTokens, none?.peak),
      saved(strategySummary.cumulativeTokens, none?.cumulative),
      `${(strategySummary.recall * 100).toFixed(1)}%`,
      String(strategySummary.lost),
      ((strategySummary.elapsedMs / results) * 100).toFixed(0),
      (((cpu.user + cpu.system) / 1000 / results) * 100).toFixed(0),
    ]);
  }
  console.log(`${title}: ${results} tool results, ${uses} used-later values.\n`);
  console.log(
    '| strategy | peak saved | tokens saved | used-later recall | lost | ms / 100 results | CPU ms / 100 results |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

/** The replay entry points and the extractive backend of one checkout. */
interface Checkout {
  replay: Pick<typeof current, 'defaultStrategies' | 'replayTraces'>;
  backend: () => CompressorBackend;
}

/** The extractive backend's factory under any name a checkout exported it by. */
interface BackendExports {
  extractiveBackend?: () => CompressorBackend;
  extractiveCompressor?: () => CompressorBackend;
}

/**
 * Loads the replay and the extractive backend from the package sources of the checkout at `dir`. The backend is
 * `extractiveBackend` of `pagewise/compression`, `extractiveCompressor` in a checkout from before that name, and the
 * root entry's in one from before the subpath entries.
 */
async function loadCheckout(dir: string): Promise<Checkout> {
  const at = (file: string) => pathToFileURL(path.resolve(dir, file)).href;
  const replay = (await import(at('packages/lab/src/replay/index.ts'))) as typeof current;
  const entry = existsSync(path.resolve(dir, 'packages/pagewise/src/compression.ts'))
    ? 'packages/pagewise/src/compression.ts'
    : 'packages/pagewise/src/index.ts';
  const pagewise = (await import(at(entry))) as BackendExports;
  const create = pagewise.extractiveBackend ?? pagewise.extractiveCompressor;
  if (!create) throw new Error(`${dir}: ${entry} exports no extractive backend`);
  return { replay, backend: () => create() };
}

/** A run of one strategy by one checkout: its report without times, every compressor output, its times. */
interface TimedRun {
  report: string;
  outputs: string[];
  wallMs: number;
  cpuMs: number;
}

async function timedRun(checkout: Checkout, name: string, traces: readonly ReplayTrace[]): Promise<TimedRun> {
  const outputs: string[] = [];
  const inner = checkout.backend();
  const recording: CompressorBackend = {
    name: inner.name,
    compress: async (input, context) => {
      const text = await inner.compress(input, context);
      outputs.push(text);
      return text;
    },
  };
  const strategies = checkout.replay.defaultStrategies({ compressor: recording }).filter((s) => s.name === name);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const report = await checkout.replay.replayTraces(traces, { strategies });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const withoutTimes = JSON.stringify(report, (key, value: unknown) => (key === 'elapsedMs' ? undefined : value));
  return { report: withoutTimes, outputs, wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/**
 * Replays every trace set by the checkout at `baselineDir` and by this one, strategy by strategy, the order
 * of the two alternating; prints ms and CPU ms per 100 tool results of both and returns the number of
 * strategies whose report or compressor outputs differ.
 */
export async function compareWithBaseline(baselineDir: string, limit = Infinity): Promise<number> {
  const contenders = {
    baseline: await loadCheckout(baselineDir),
    current: await loadCheckout(path.resolve(fileURLToPath(import.meta.url), '../..')),
  };
  let differing = 0;
  for (const { title, traces } of await traceSets(limit)) {
    const per100 = 100 / traces.reduce((n, t) => n + toolResultCount(t), 0);
    const rows: string[] = [];
    const totals = { baseline: { wall: 0, cpu: 0 }, current: { wall: 0, cpu: 0 } };
    for (const [si, { name }] of defaultStrategies().entries()) {
      for (const checkout of Object.values(contenders)) await timedRun(checkout, name, traces.slice(0, WARM_TRACES));
      const order = si % 2 === 0 ? (['baseline', 'current'] as const) : (['current', 'baseline'] as const);
      const runs = {} as Record<'baseline' | 'current', TimedRun>;
      for (const side of order) runs[side] = await timedRun(contenders[side], name, traces);
      const same =
        runs.baseline.report === runs.current.report &&
        runs.baseline.outputs.length === runs.current.outputs.length &&
        runs.baseline.outputs.every((text, i) => text === runs.current.outputs[i]);
      if (!same) differing += 1;
      for (const side of order) {
        totals[side].wall += runs[side].wallMs;
        totals[side].cpu += runs[side].cpuMs;
      }
      const cell = (run: TimedRun) => `${(run.wallMs * per100).toFixed(0)} / ${(run.cpuMs * per100).toFixed(0)}`;
      rows.push(
        `| ${name} | ${cell(runs.baseline)} | ${cell(runs.current)} | ${(runs.current.cpuMs / runs.baseline.cpuMs).toFixed(2)} | ${runs.current.outputs.length} | ${same ? 'yes' : 'NO'} |`,
      );
    }
    const total = (side: 'baseline' | 'current') =>
      `${(totals[side].wall * per100).toFixed(0)} / ${(totals[side].cpu * per100).toFixed(0)}`;
    rows.push(
      `| all strategies | ${total('baseline')} | ${total('current')} | ${(totals.current.cpu / totals.baseline.cpu).toFixed(2)} | | |`,
    );
    console.log(`\nReplay of ${title}: ms / CPU ms per 100 tool results (each run includes the trace analysis).\n`);
    console.log('| strategy | baseline | this checkout | CPU ratio | compressor calls | identical |');
    console.log('| --- | ---: | ---: | ---: | ---: | :---: |');
    for (const row of rows) console.log(row);
  }
  return differing;
}

const invokedDirectly =
  process.argv[1] && import.meta.url.endsWith('/replay.ts') && process.argv[1].endsWith('replay.ts');
if (invokedDirectly) {
  const { values } = parseArgs({ options: { limit: { type: 'string' }, baseline: { type: 'string' } } });
  const limit = values.limit ? Number(values.limit) : Infinity;
  if (values.baseline) {
    const differing = await compareWithBaseline(values.baseline, limit);
    if (differing > 0) {
      console.error(`\n${differing} strategy run(s) differ from the baseline.`);
      process.exitCode = 1;
    }
  } else await replayBench(limit);
}
