/**
 * Compression on real data: TAT-QA dev (annual-report tables and paragraphs, the table as markdown and
 * one cell per line), HotpotQA dev through observationCompressor, generated multi-session chats through
 * compressMessages, and the project's English and Japanese report pages. Each against baselines at the
 * same achieved ratio, with the time per call per 1,000 input tokens (median, p90; warm process). Data in
 * ../shared/data (or PAGEWISE_SHARED_DATA); a set whose data is absent is skipped with the reason.
 *
 * The previous compressor is the project's extractive compressor before table rows, chat turns and
 * Intl.Segmenter units, read from git at {@link PREVIOUS_COMMIT}; skipped when git cannot provide it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compressExtractive } from 'pagewise/extractive';
import { DEFAULT_EXTRACTIVE_RULES, OBSERVATION_THRESHOLD } from 'pagewise/compression';
import { TUNING_SPLIT } from './compression-eval/data.js';
import {
  evaluateChats,
  evaluateHotpot,
  evaluateReportPages,
  evaluateTatQa,
  pageSizes,
  realData,
  rulesAt,
  type SetFigures,
  type TextCompressor,
} from './compression-eval/run.js';
import { fmt } from './stats.js';
import { suiteItems } from './compression-eval/suite.js';
import { defaultCompressor, learnedCompressor, runSuite, suiteTable } from './compression-eval/suite-run.js';

/** The commit whose extractive compressor is "the previous compressor". */
export const PREVIOUS_COMMIT = 'ff54bc2e34a7f2a94a0480f822410e4d4ee39e70';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

type PreviousModule = {
  compressExtractive: (input: string, options: { query: string; rules: unknown }) => { text: string };
};

/** The previous compressor, from git, in a temporary folder; undefined (with the reason printed) when unavailable. */
async function loadPrevious(): Promise<{ compress: TextCompressor; cleanup: () => void } | undefined> {
  let dir: string | undefined;
  try {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-previous-'));
    const archive = execFileSync('git', ['-C', repoRoot, 'archive', PREVIOUS_COMMIT, 'src'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'));
    const module = (await import(
      pathToFileURL(path.join(dir, 'src/compression/extractive.ts')).href
    )) as PreviousModule;
    const folder = dir;
    return {
      compress: (text, query, ratio) => module.compressExtractive(text, { query, rules: rulesAt(ratio) }).text,
      cleanup: () => rmSync(folder, { recursive: true, force: true }),
    };
  } catch (error) {
    if (dir) rmSync(dir, { recursive: true, force: true });
    console.log(`previous compressor: skipped, ${(error as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

function table(figures: SetFigures): string {
  const lines = [
    `### ${figures.set} (${figures.items} evidence items${figures.notes ? `; ${figures.notes}` : ''})`,
    '',
    '| method | evidence recall | mean ratio | max ratio |',
    '|:---|---:|---:|---:|',
    ...figures.methods.map((m) => `| ${m.method} | ${fmt(m.recall)} | ${fmt(m.meanRatio)} | ${fmt(m.maxRatio)} |`),
    '',
    `Time per call per 1,000 input tokens: median ${fmt(figures.timing.medianMsPer1k, 2)} ms, p90 ${fmt(figures.timing.p90MsPer1k, 2)} ms wall-clock; ` +
      `CPU median ${fmt(figures.timing.cpuMedianMsPer1k, 2)} ms, p90 ${fmt(figures.timing.cpuP90MsPer1k, 2)} ms (${figures.timing.calls} calls).`,
  ];
  return lines.join('\n');
}

/** Runs every set and prints its tables. */
export async function main(): Promise<void> {
  console.log('\n## Compression on real data (τ = 0.5)\n');
  console.log(
    `Tuned on TAT-QA contexts 1–${TUNING_SPLIT.tatqaContexts} and HotpotQA questions 1–${TUNING_SPLIT.hotpotQuestions}; ` +
      'the figures below leave them out.\n',
  );
  // Warm the tokenizer and the segmenters, so timings are of a warm process.
  for (let round = 0; round < 20; round += 1) {
    compressExtractive(`Warm up ${round}. `.repeat(200), { query: 'warm', rules: DEFAULT_EXTRACTIVE_RULES });
    compressExtractive(`売上高は${round}億円でした。`.repeat(100), {
      query: '売上高',
      rules: DEFAULT_EXTRACTIVE_RULES,
    });
  }
  const load = (): string =>
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', ');
  console.log(`Load average at the start (1, 5, 15 min; ${os.cpus().length} cores): ${load()}.`);
  const data = realData();
  if (typeof data.tatqa === 'string') console.log(`TAT-QA: skipped, ${data.tatqa}`);
  else {
    const previous = await loadPrevious();
    for (const form of ['markdown', 'cells'] as const) {
      console.log(
        `\n${table(evaluateTatQa(data.tatqa, { form, ...(previous ? { previous: previous.compress } : {}) }))}`,
      );
    }
    previous?.cleanup();
    console.log(`\n### Page sizes and T_obs (default ${OBSERVATION_THRESHOLD})\n`);
    console.log('| TAT-QA page form | p25 tokens | median | p75 | share > 256 | share > 512 | share > 1,024 |');
    console.log('|:---|---:|---:|---:|---:|---:|---:|');
    for (const sizes of pageSizes(data.tatqa)) {
      console.log(
        `| ${sizes.form} | ${Math.round(sizes.p25)} | ${Math.round(sizes.p50)} | ${Math.round(sizes.p75)} | ${fmt(sizes.above[256] ?? 0, 2)} | ${fmt(sizes.above[512] ?? 0, 2)} | ${fmt(sizes.above[1024] ?? 0, 2)} |`,
      );
    }
  }
  if (typeof data.hotpot === 'string') console.log(`\nHotpotQA: skipped, ${data.hotpot}`);
  else {
    console.log(`\n${table(await evaluateHotpot(data.hotpot.file))}`);
    console.log(`\n${table(await evaluateHotpot(data.hotpot.file, 0.52))}`);
  }
  console.log(`\n${table(await evaluateChats([1, 2, 3, 4, 5]))}`);
  const pages = evaluateReportPages();
  for (const figures of pages.figures) console.log(`\n${table(figures)}`);
  const items = await suiteItems();
  console.log('\n### Multi-domain suite, test splits (bench/compression-eval/suite.ts)\n');
  console.log(
    'Learned: the shipped parameters, fitted on every domain’s tuning split (in-domain); `npm run train:compressor` reports leave-one-domain-out.\n',
  );
  const figures = runSuite(
    items.filter((item) => item.split === 'test'),
    [
      { name: 'pagewise (default scoring)', compress: defaultCompressor },
      { name: 'pagewise (learned scoring)', compress: learnedCompressor },
    ],
  );
  console.log(suiteTable(figures));
  console.log(
    `\nMedian ms per 1,000 input tokens (default scoring): ${figures.map((f) => `${f.set} ${fmt(f.msPer1k, 2)}`).join('; ')}.`,
  );
  console.log(`\nLoad average at the end: ${load()}.`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
