/**
 * The fair comparison behind the README's Results: every strategy at the same prompt-token budget.
 * Retail (24 tasks, seeds 1 and 2) at half of `none`'s mean peak, with `acon` (default guidelines) and
 * `acon-learned` (guidelines learned on seed 7, packages/lab/guidelines/); multi-objective QA at N = 2, 4, 8,
 * 16 without a budget (peak, dependency, EM/F1 per N), and its success and EM against budget at N = 8.
 * Writes bench/results/ (the N = 8 chart and the curve JSON) and prints markdown tables.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  budgetCurveTable,
  getScenario,
  markdownReport,
  registerStandardBench,
  runBench,
  runBudgetCurve,
  writeBudgetCurve,
} from '@pagewise/lab';
import { ConfigurationError } from 'pagewise';
import { loadGuideline } from 'pagewise/compression';
import { LEARN_RETAIL } from './optimize-retail.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LEARNED = path.join(HERE, '..', 'packages', 'lab', 'guidelines', 'retail-tool-use');
const DOCS = path.join(HERE, 'results');

/** Seed the retail guidelines were learned on: never an evaluation seed. */
export const TRAINING_SEED = LEARN_RETAIL.seed;
const RETAIL_SEEDS = [1, 2];
const RETAIL_STRATEGIES = ['none', 'fifo', 'clear-tool-results', 'summarize', 'acon', 'acon-learned'];
const QA_STRATEGIES = ['none', 'fifo', 'clear-tool-results', 'summarize', 'acon'];

async function retail(): Promise<void> {
  const scenario = getScenario('retail-tool-use');
  const { train, val } = LEARN_RETAIL;
  const training = new Set((await scenario.prepare({ tasks: train + val, seed: TRAINING_SEED })).map((t) => t.prompt));
  for (const seed of RETAIL_SEEDS) {
    const reference = await runBench({ scenario, strategies: ['none'], tasks: 24, seed });
    const budget = Math.round((reference.results[0]?.peakPromptTokens ?? 0) / 2);
    const report = await runBench({ scenario, strategies: RETAIL_STRATEGIES, tasks: 24, seed, budget });
    const shared = report.runs.episodes.filter((e) => e.strategy === 'none').length;
    const overlap = (await scenario.prepare({ tasks: 24, seed })).filter((t) => training.has(t.prompt)).length;
    console.log(
      `\n### Retail, seed ${seed}: budget ${budget} prompt tokens (half of none's mean peak ${Math.round(reference.results[0]?.peakPromptTokens ?? 0)} without a budget)\n`,
    );
    console.log(
      `Evaluation tasks also among the ${training.size} optimization tasks (seed ${TRAINING_SEED}): ${overlap} of ${shared}.\n`,
    );
    console.log(markdownReport(report));
  }
}

async function multiQa(): Promise<void> {
  const scenario = getScenario('multi-objective-qa');
  const sweep = await runBench({ scenario, strategies: QA_STRATEGIES, n: [2, 4, 8, 16], tasks: 5, seed: 1 });
  console.log('\n### Multi-objective QA, N = 2, 4, 8, 16, no budget (seed 1, 5 tasks per N)\n');
  console.log(markdownReport(sweep));
  const curve = await runBudgetCurve({ scenario, strategies: QA_STRATEGIES, n: 8, tasks: 5, seed: 1 });
  const files = await writeBudgetCurve(DOCS, 'multi-qa-n8-budget-curve', curve);
  console.log(
    `\n### Multi-objective QA, N = 8: success against budget (seed 1, 5 tasks; none's mean peak ${Math.round(curve.reference.peakPromptTokens)})\n`,
  );
  console.log(budgetCurveTable(curve));
  console.log('\nExact match per objective against budget:\n');
  for (const strategy of QA_STRATEGIES)
    console.log(
      `- ${strategy}: ${curve.points
        .filter((p) => p.strategy === strategy)
        .map((p) => `${p.budget} tok → EM ${(p.exactMatch ?? 0).toFixed(2)}`)
        .join(', ')}`,
    );
  console.log(`\nWritten: ${files.map((f) => path.relative(process.cwd(), f)).join(', ')}`);
}

/** Runs the fair comparison (see the module comment). */
export async function main(parts: readonly string[] = ['retail', 'multi-qa']): Promise<void> {
  registerStandardBench({
    learned: {
      'retail-tool-use': {
        observation: await loadGuideline(path.join(LEARNED, 'observation.md')),
        history: await loadGuideline(path.join(LEARNED, 'history.md')),
      },
    },
  });
  try {
    if (parts.includes('retail')) await retail();
    if (parts.includes('multi-qa')) await multiQa();
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    console.log(`\nfair comparison skipped: ${error.message}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]))
  await main(process.argv.slice(2).length > 0 ? process.argv.slice(2) : undefined);
