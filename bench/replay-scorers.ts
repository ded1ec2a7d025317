/**
 * The default scorer chosen on replayed traces: the extractive backend with its hand-set scorer and with its
 * learned scorer (`extractiveBackend({ scoring })`), each under the observation compressor (acon-obs), the
 * history compressor (acon-hist) and both, replayed on the banking_knowledge and telecom gold-action traces and
 * the retail-tool-use runs (bench/replay.ts builds them the same way). Reported per set: used-later recall (the
 * share of values a later call or answer used that the compressed context still held) and cumulative prompt tokens,
 * with truncation beside them at the same threshold and ratio. Issue 42 asks for the default to be chosen on this
 * and the suite's leave-one-domain-out table, not on the offline reader's success.
 *
 * Usage: PAGEWISE_SHARED_DATA=<shared/data> node --conditions=@pagewise/source --import tsx bench/replay-scorers.ts
 *   [--limit N]
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { extractiveBackend } from 'pagewise/compression';
import { defaultStrategies, parseTraces, replayTraces, type ReplayTrace } from '@pagewise/lab/replay';
import { bankingDataDir, bankingTraces, retailRunTraces, telecomDataDir, telecomTraces } from './replay-traces.js';

const CONTENDERS = ['truncation', 'acon-obs', 'acon-hist', 'acon-both'];

async function traceSets(limit: number): Promise<{ title: string; traces: ReplayTrace[] }[]> {
  const sets: { title: string; traces: ReplayTrace[] }[] = [];
  const banking = bankingDataDir();
  if (banking)
    sets.push({
      title: 'banking_knowledge gold-action traces',
      traces: bankingTraces(banking, limit).flatMap((t) => parseTraces(JSON.stringify(t), t.id)),
    });
  else console.log('banking skipped: tau2/banking_knowledge not found (set PAGEWISE_SHARED_DATA).');
  const telecom = telecomDataDir();
  if (telecom)
    sets.push({
      title: 'telecom gold-action traces',
      traces: telecomTraces(telecom, limit).flatMap((t) => parseTraces(JSON.stringify(t), t.id)),
    });
  else console.log('telecom skipped: tau2/telecom not found (set PAGEWISE_SHARED_DATA).');
  const retail = await retailRunTraces(Math.min(limit, 24));
  if (typeof retail === 'string') console.log(`retail skipped: ${retail}`);
  else sets.push({ title: 'retail-tool-use runs of the offline rules model', traces: retail });
  return sets;
}

/** Replays every set under both scorers and prints one table per set. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { limit: { type: 'string' } } });
  const limit = values.limit === undefined ? Infinity : Number(values.limit);
  for (const { title, traces } of await traceSets(limit)) {
    console.log(`\n### ${traces.length} ${title}\n`);
    console.log('| strategy | scorer | used-later recall | lost values | cumulative prompt tokens |');
    console.log('|:---|:---|---:|---:|---:|');
    for (const scoring of ['heuristic', 'learned'] as const) {
      const strategies = defaultStrategies({ compressor: extractiveBackend({ scoring }) }).filter((strategy) =>
        CONTENDERS.includes(strategy.name),
      );
      for (const strategy of strategies) {
        if (strategy.name === 'truncation' && scoring === 'learned') continue;
        const report = await replayTraces(traces, { strategies: [strategy] });
        const summary = report.strategies[0]!;
        console.log(
          `| ${summary.name} | ${strategy.name === 'truncation' ? '–' : scoring === 'heuristic' ? 'hand-set' : 'learned'} | ${(summary.recall * 100).toFixed(2)}% | ${summary.lost} | ${summary.cumulativeTokens.toLocaleString('en-US')} |`,
        );
      }
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
