/**
 * Replay on gold-action traces of tau2-bench banking_knowledge and telecom (built by bench/replay-traces.ts
 * from the shared data at run time; gold-action traces, not model traces), and on the sessions of the project's
 * retail-tool-use scenario run by the offline rules model over the tau-bench retail records (the project's
 * own runs, not an LLM's): per strategy, prompt tokens saved against none and used-later recall, the
 * baselines beside the compressors, and the replay's time per 100 tool results. Every strategy is warmed
 * on the first traces, then timed alone over all of them.
 *
 * Usage: PAGEWISE_SHARED_DATA=<shared/data> npx tsx bench/replay.ts [--limit N]
 */
import { parseArgs } from 'node:util';
import { defaultStrategies, parseTraces, replayTraces, toolResultCount, type ReplayTrace } from '@pagewise/lab/replay';
import { bankingDataDir, bankingTraces, retailRunTraces, telecomDataDir, telecomTraces } from './replay-traces.js';

const WARM_TRACES = 5;

/** Builds the traces and prints the tables. */
export async function replayBench(limit = Infinity): Promise<void> {
  const dir = bankingDataDir();
  if (!dir) console.log('replay bench (banking) skipped: tau2/banking_knowledge not found (set PAGEWISE_SHARED_DATA).');
  else {
    const traces = bankingTraces(dir, limit).flatMap((t) => parseTraces(JSON.stringify(t), t.id));
    await printReplay(`Replay of ${traces.length} banking_knowledge gold-action traces`, traces);
  }
  const telecom = telecomDataDir();
  if (!telecom) console.log('\nreplay bench (telecom) skipped: tau2/telecom not found (set PAGEWISE_SHARED_DATA).');
  else {
    const traces = telecomTraces(telecom, limit).flatMap((t) => parseTraces(JSON.stringify(t), t.id));
    await printReplay(`\nReplay of ${traces.length} telecom gold-action traces`, traces);
  }
  const retail = await retailRunTraces(Math.min(limit, 24));
  if (typeof retail === 'string') console.log(`\nreplay bench (retail) skipped: ${retail}`);
  else
    await printReplay(
      `\nReplay of ${retail.length} retail-tool-use sessions run by the offline rules model (the project's own runs)`,
      retail,
    );
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
    const s = report.strategies[0]!;
    uses = report.uses;
    if (strategy.kind === 'none') none = { peak: s.peakTokens, cumulative: s.cumulativeTokens };
    const saved = (x: number, base: number | undefined) => (base ? `${((1 - x / base) * 100).toFixed(1)}%` : '–');
    rows.push([
      `${s.name}${s.baseline ? ' (baseline)' : ''}`,
      saved(s.peakTokens, none?.peak),
      saved(s.cumulativeTokens, none?.cumulative),
      `${(s.recall * 100).toFixed(1)}%`,
      String(s.lost),
      ((s.elapsedMs / results) * 100).toFixed(0),
      (((cpu.user + cpu.system) / 1000 / results) * 100).toFixed(0),
    ]);
  }
  console.log(`${title}: ${results} tool results, ${uses} used-later values.\n`);
  console.log(
    '| strategy | peak saved | tokens saved | used-later recall | lost | ms / 100 results | CPU ms / 100 results |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

const invokedDirectly =
  process.argv[1] && import.meta.url.endsWith('/replay.ts') && process.argv[1].endsWith('replay.ts');
if (invokedDirectly) {
  const { values } = parseArgs({ options: { limit: { type: 'string' } } });
  await replayBench(values.limit ? Number(values.limit) : Infinity);
}
