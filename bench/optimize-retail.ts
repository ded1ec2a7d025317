/**
 * Guideline optimization on retail-tool-use, offline: ACON's utility and compression steps for the
 * observation and the history compressor, starting from the default guidelines, with the deterministic
 * failure analysis and rule-edit candidates (the offline model is rules, not an LLM; the compressor is
 * the extractive backend). Prints, per target, success and tokens before and after on the training and
 * the held-out split, with the hand-tuned retail guideline measured on the same tasks for reference.
 * Each run starts from scratch (its progress folder is cleared), so the figures are of one full run.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { getScenario } from '../src/bench/index.js';
import type { GuidelineTarget } from '../src/compression/index.js';
import {
  defaultRetailDataDir,
  RETAIL_HISTORY_GUIDELINE,
  RETAIL_OBSERVATION_GUIDELINE,
  retailDataAvailable,
} from '../src/scenarios/retail/index.js';
import { optimizeGuideline, optimizeTable, type OptimizeResult } from '../src/optimize/index.js';
import { registerStandardBench } from '../src/bench/index.js';

registerStandardBench();

/** Tasks per split: large enough for every template to appear twice in each, small enough for ~1 minute. */
export const OPTIMIZE_RETAIL_SIZES = { train: 8, val: 8, seed: 1 } as const;

const OUT_DIR = path.join('bench-out', 'optimize-retail');

/** Runs the offline optimization of one target on retail from scratch. */
export async function optimizeRetail(target: GuidelineTarget): Promise<{ result: OptimizeResult; wallMs: number }> {
  const outDir = path.join(OUT_DIR, target);
  await rm(outDir, { recursive: true, force: true });
  const started = performance.now();
  const result = await optimizeGuideline({
    scenario: getScenario('retail-tool-use'),
    target,
    ...OPTIMIZE_RETAIL_SIZES,
    outDir,
    references: [
      {
        label: 'hand-tuned (reference)',
        guideline: target === 'observation' ? RETAIL_OBSERVATION_GUIDELINE : RETAIL_HISTORY_GUIDELINE,
      },
    ],
  });
  return { result, wallMs: performance.now() - started };
}

/** Prints the before/after table of both targets. */
export async function main(): Promise<void> {
  if (!retailDataAvailable()) {
    console.log(`optimize-retail: skipped, no tau-bench retail data at ${defaultRetailDataDir()}.`);
    return;
  }
  for (const target of ['observation', 'history'] as const) {
    const { result, wallMs } = await optimizeRetail(target);
    const r = result.report;
    console.log(
      `\n## optimize-retail: ${target} guideline, offline (rules, not an LLM; extractive compressor; rule-edit candidates)\n`,
    );
    console.log(
      `${r.trainTasks.length} training and ${r.valTasks.length} held-out tasks, seed ${r.seed}, K = ${r.candidates}, λ = ${r.lambda}; ${(wallMs / 1000).toFixed(0)} s. Tokens per task: cumulative agent prompt tokens plus compressor tokens.\n`,
    );
    console.log(optimizeTable(r));
    const chosen = result.candidates.filter((c) => c.chosen && c.index > 0).map((c) => `${c.step}: ${c.edit}`);
    console.log(`\nChosen edits: ${chosen.length > 0 ? chosen.join(' | ') : 'none'}.`);
    console.log(`Held-out verdict: ${r.verdict.text}.`);
    console.log(`Outputs: ${path.join(OUT_DIR, target)}/`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
