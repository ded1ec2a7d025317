/**
 * Guideline optimization on retail-tool-use, offline: ACON's utility and compression steps for the
 * observation and the history compressor, starting from the default guidelines, with the deterministic
 * failure analysis and rule-edit candidates (the offline model is rules, not an LLM; the compressor is
 * the extractive backend). Prints, per target, success and tokens before and after on the training and
 * the held-out split, with the hand-tuned retail guideline measured on the same tasks for reference.
 * Each run starts from scratch (its progress folder is cleared), so the figures are of one full run.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { getScenario, registerStandardBench } from '@pagewise/lab';
import { formatGuideline, type GuidelineTarget, DEFAULT_OBSERVATION_GUIDELINE } from 'pagewise/compression';
import {
  retailDataMissing,
  RETAIL_HISTORY_GUIDELINE,
  RETAIL_OBSERVATION_GUIDELINE,
  retailDataAvailable,
} from '@pagewise/lab/scenarios/retail';
import {
  fieldNecessity,
  jointPartner,
  optimizeGuideline,
  optimizeMarkdown,
  optimizeTable,
  type OptimizeResult,
} from '@pagewise/lab/optimize';

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

/**
 * How the checked-in `acon-learned` guidelines are made: both compressors learned together (`joint`)
 * at the budget the bench evaluates them at, on tasks of the training seed only (never 1 or 2, the
 * evaluation seeds). The first `train` tasks select candidates, the next `val` are the held-out check.
 */
export const LEARN_RETAIL = { seed: 7, train: 12, val: 6, budget: 3224, candidates: 5, concurrency: 2 } as const;

/** The folder of the checked-in learned guidelines. */
export const LEARNED_DIR = path.join('packages', 'lab', 'guidelines', 'retail-tool-use');

/**
 * Learns the retail guidelines (see {@link LEARN_RETAIL}) and writes `observation.md`, `history.md` (the
 * same rules on the default history template) and `report.md` to {@link LEARNED_DIR}.
 */
export async function learnRetail(): Promise<OptimizeResult> {
  const outDir = path.join(OUT_DIR, 'joint');
  await rm(outDir, { recursive: true, force: true });
  const { seed, train, val, budget, candidates, concurrency } = LEARN_RETAIL;
  const scenario = getScenario('retail-tool-use');
  // UT by ablation on the training tasks only: which fields success needs, which it never uses.
  const trainTasks = (await scenario.prepare({ tasks: train + val, seed })).slice(0, train);
  const ablation = await fieldNecessity({ scenario, tasks: trainTasks, concurrency });
  const needed = ablation.needed.map((n) => n.rule);
  const unneeded = ablation.unneeded.map((n) => n.rule);
  const rules = DEFAULT_OBSERVATION_GUIDELINE.rules;
  const start = {
    ...DEFAULT_OBSERVATION_GUIDELINE,
    id: 'observation-ablated',
    version: 1,
    description: `The default observation guideline with the fields that field ablation on ${ablation.solved.length} training tasks found needed kept and the unneeded dropped.`,
    rules: {
      ...rules,
      jsonKeepFields: [...new Set([...rules.jsonKeepFields, ...needed])],
      jsonDropFields: [...new Set([...rules.jsonDropFields, ...unneeded])].filter((f) => !needed.includes(f)),
    },
  };
  console.log(
    `Ablation: ${ablation.episodes} episodes on ${ablation.solved.length} solved training tasks; needed ${needed.join(', ')}; unneeded ${unneeded.join(', ')}`,
  );
  const result = await optimizeGuideline({
    scenario,
    start,
    target: 'observation',
    joint: true,
    seed,
    train,
    val,
    budget,
    candidates,
    concurrency,
    outDir,
  });
  await mkdir(LEARNED_DIR, { recursive: true });
  await writeFile(path.join(LEARNED_DIR, 'observation.md'), formatGuideline(result.chosen));
  await writeFile(path.join(LEARNED_DIR, 'history.md'), formatGuideline(jointPartner(result.chosen)));
  await writeFile(path.join(LEARNED_DIR, 'report.md'), `${optimizeMarkdown(result.report, result)}\n`);
  return result;
}

/** Prints the before/after table of both targets. */
export async function main(): Promise<void> {
  if (!retailDataAvailable()) {
    console.log(`optimize-retail: skipped, ${retailDataMissing()}`);
    return;
  }
  for (const target of ['observation', 'history'] as const) {
    const { result, wallMs } = await optimizeRetail(target);
    const report = result.report;
    console.log(
      `\n## optimize-retail: ${target} guideline, offline (rules, not an LLM; extractive compressor; rule-edit candidates)\n`,
    );
    console.log(
      `${report.trainTasks.length} training and ${report.valTasks.length} held-out tasks, seed ${report.seed}, K = ${report.candidates}, λ = ${report.lambda}; ${(wallMs / 1000).toFixed(0)} s. Tokens per task: cumulative agent prompt tokens plus compressor tokens.\n`,
    );
    console.log(optimizeTable(report));
    const chosen = result.candidates.filter((c) => c.chosen && c.index > 0).map((c) => `${c.step}: ${c.edit}`);
    console.log(`\nChosen edits: ${chosen.length > 0 ? chosen.join(' | ') : 'none'}.`);
    console.log(`Held-out verdict: ${report.verdict.text}.`);
    console.log(`Outputs: ${path.join(OUT_DIR, target)}/`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] === 'learn') {
    const result = await learnRetail();
    console.log(optimizeTable(result.report));
    console.log(`Held-out verdict: ${result.report.verdict.text}.`);
  } else await main();
}
