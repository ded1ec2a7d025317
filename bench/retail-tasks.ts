/**
 * Retail task by task: which tasks each strategy solves at half of `none`'s mean peak, for one seed, so a
 * change to a compressor can be judged per task (and on a seed that is neither an evaluation seed nor the
 * training seed) before `bench/fair.ts` is run. About 30 s for three strategies.
 *
 * Usage: PAGEWISE_TAU_RETAIL_DIR=<tau-retail folder> npx tsx bench/retail-tasks.ts [seed=3] [strategies=summarize,acon,acon-learned]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getScenario, registerStandardBench, runBench } from '@pagewise/lab';
import { ConfigurationError } from 'pagewise';
import { loadGuideline } from 'pagewise/compression';

const LEARNED = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'packages',
  'lab',
  'guidelines',
  'retail-tool-use',
);

/** Prints one row per task: OK or FAIL per strategy, with the model calls made (E: ended in an error). */
export async function retailTasks(seed: number, strategies: readonly string[]): Promise<void> {
  registerStandardBench({
    learned: {
      'retail-tool-use': {
        observation: await loadGuideline(path.join(LEARNED, 'observation.md')),
        history: await loadGuideline(path.join(LEARNED, 'history.md')),
      },
    },
  });
  const scenario = getScenario('retail-tool-use');
  const reference = await runBench({ scenario, strategies: ['none'], tasks: 24, seed });
  const budget = Math.round((reference.results[0]?.peakPromptTokens ?? 0) / 2);
  const report = await runBench({ scenario, strategies: [...strategies], tasks: 24, seed, budget });
  const tasks = await scenario.prepare({ tasks: 24, seed });
  console.log(`Retail, seed ${seed}, budget ${budget} prompt tokens (half of none's mean peak)\n`);
  for (const strategy of strategies) {
    const episodes = report.runs.episodes.filter((e) => e.strategy === strategy);
    console.log(`${strategy}: ${episodes.filter((e) => e.success).length} of ${episodes.length}`);
  }
  console.log(`\n| task | ${strategies.join(' | ')} |\n|---|${strategies.map(() => '---').join('|')}|`);
  for (const task of tasks) {
    const cells = strategies.map((strategy) => {
      const episode = report.runs.episodes.find((x) => x.strategy === strategy && x.taskId === task.id);
      if (!episode) return '-';
      return `${episode.success ? 'OK' : 'FAIL'} ${episode.ledger.length}${episode.error === undefined ? '' : ' E'}`;
    });
    console.log(`| ${task.id} | ${cells.join(' | ')} |`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [seed = '3', strategies = 'summarize,acon,acon-learned'] = process.argv.slice(2);
  try {
    await retailTasks(Number(seed), strategies.split(','));
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    console.log(`retail tasks skipped: ${error.message}`);
  }
}
