/**
 * Context compression on the retail tool-use scenario, offline model: the full history (none), FIFO,
 * tool-result clearing, the prompting baseline, ACON's observation compression, history compression
 * and both. Prints peak prompt tokens (mean over episodes of each episode's largest request, and the
 * largest of all), cumulative prompt tokens and success per strategy, then checks the target: ACON at
 * least 60% below none's peak with success at least none's. The offline model is rules, not an LLM,
 * so every compressor here is the extractive backend (the prompting baseline: the naive stand-in).
 */
import { Agent, Runner, OfflineModel, Ledger, summarizeLedger, type LedgerEntry } from 'pagewise';
import { clearToolResults, fifoHistory } from 'pagewise/context';
import {
  aconHistoryStrategy,
  aconObservationStrategy,
  aconStrategy,
  promptingStrategy,
  type CompressionStrategySetup,
} from '@pagewise/lab';
import {
  checkAnswer,
  createRetailTools,
  retailDataMissing,
  generateRetailTasks,
  loadRetailData,
  RETAIL_INSTRUCTION,
  retailDataAvailable,
  retailOfflinePolicy,
  type RetailData,
  type RetailTask,
} from '@pagewise/lab/scenarios/retail';

/** Model calls allowed per episode, as in the retail benchmark scenario. */
const MAX_STEPS = 60;
const SCENARIO = 'retail-tool-use';

/** One row of the table. */
export interface CompressionRow {
  strategy: string;
  description: string;
  episodes: number;
  success: number;
  /** Mean over episodes of each episode's largest request. */
  peakMean: number;
  /** The largest request of any episode. */
  peakMax: number;
  cumulativeMean: number;
  modelCallsMean: number;
  compressorCallsMean: number;
  errors: number;
}

interface StrategySpec {
  name: string;
  description: string;
  setup: () => CompressionStrategySetup;
}

// Seeded fence boundaries: random boundaries tokenize to slightly different counts from run to run.
function seededBoundary(seed: number): () => string {
  let state = seed >>> 0;
  return () => {
    let out = '';
    for (let word = 0; word < 3; word += 1) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      out += state.toString(16).padStart(8, '0');
    }
    return out.slice(0, 12);
  };
}

/** The strategies compared, each a fresh setup per episode. */
export function compressionStrategies(seed = 1): StrategySpec[] {
  const context = { scenario: SCENARIO, model: 'offline' };
  const boundary = seededBoundary(seed);
  return [
    { name: 'none', description: 'full history', setup: () => ({}) },
    {
      name: 'fifo',
      description: 'task + last 5 turns',
      setup: () => ({ processors: [fifoHistory({ lastTurns: 5 })] }),
    },
    {
      name: 'clear-tool-results',
      description: 'all but the last 3 tool results cleared',
      setup: () => ({ processors: [clearToolResults({ keepLast: 3 })] }),
    },
    {
      name: 'summarize',
      description: 'generic summary prompt (extractive stand-in: default rules, no guideline)',
      setup: () => promptingStrategy(context, { boundary }),
    },
    {
      name: 'acon-obs',
      description: 'C_obs, default guideline (retail thresholds)',
      setup: () => aconObservationStrategy(context, { boundary }),
    },
    {
      name: 'acon-hist',
      description: 'C_hist (accumulate), default guideline (retail thresholds)',
      setup: () => aconHistoryStrategy(context, { boundary }),
    },
    {
      name: 'acon',
      description: 'C_obs + C_hist (accumulate), default guidelines (retail thresholds)',
      setup: () => aconStrategy(context, { boundary }),
    },
    {
      name: 'acon (reset)',
      description: 'as acon, history re-summarized from the raw events each time',
      setup: () => aconStrategy(context, { boundary, mode: 'reset' }),
    },
    {
      name: 'acon + page_in',
      description: 'as acon, with the page_in tool offered for the handles',
      setup: () => aconStrategy(context, { boundary, pageIn: true }),
    },
  ];
}

async function runEpisode(
  data: RetailData,
  task: RetailTask,
  setup: CompressionStrategySetup,
): Promise<{ success: boolean; entries: readonly LedgerEntry[]; error?: string }> {
  const agent = new Agent({
    name: 'retail_agent',
    instruction: setup.instruction ? setup.instruction(RETAIL_INSTRUCTION) : RETAIL_INSTRUCTION,
    tools: [...createRetailTools(data), ...(setup.tools ?? [])],
    ...(setup.processors ? { processors: setup.processors } : {}),
    ...(setup.observationProcessors ? { observationProcessors: setup.observationProcessors } : {}),
  });
  // This ledger keeps the agent's calls of a failed run too; compressor calls go to the run's own.
  const ledger = new Ledger();
  const runner = new Runner({
    agent,
    model: new OfflineModel({ policies: [retailOfflinePolicy] }),
    limits: { maxSteps: MAX_STEPS },
    ledger,
    services: setup.services ?? {},
  });
  try {
    const result = await runner.run({ userId: 'bench', message: task.prompt });
    return { success: checkAnswer(task, result.text), entries: result.ledger.entries };
  } catch (error) {
    return { success: false, entries: ledger.entries, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Runs every strategy on `tasks` retail tasks drawn with `seed`. */
export async function compressionRetail(
  options: { tasks?: number; seed?: number; data?: RetailData } = {},
): Promise<CompressionRow[]> {
  const data = options.data ?? (await loadRetailData());
  const seed = options.seed ?? 1;
  const tasks = generateRetailTasks(data, { count: options.tasks ?? 24, seed });
  const rows: CompressionRow[] = [];
  for (const spec of compressionStrategies(seed)) {
    let success = 0;
    let errors = 0;
    const peaks: number[] = [];
    let cumulative = 0;
    let calls = 0;
    let compressorCalls = 0;
    for (const task of tasks) {
      const run = await runEpisode(data, task, spec.setup());
      const summary = summarizeLedger(run.entries);
      if (run.success) success += 1;
      if (run.error !== undefined) errors += 1;
      peaks.push(summary.peakPromptTokens);
      cumulative += summary.cumulativePromptTokens;
      calls += summary.modelCalls - summary.compressorCalls;
      compressorCalls += summary.compressorCalls;
    }
    const taskCount = tasks.length;
    rows.push({
      strategy: spec.name,
      description: spec.description,
      episodes: taskCount,
      success: success / taskCount,
      peakMean: peaks.reduce((a, b) => a + b, 0) / taskCount,
      peakMax: Math.max(...peaks),
      cumulativeMean: cumulative / taskCount,
      modelCallsMean: calls / taskCount,
      compressorCallsMean: compressorCalls / taskCount,
      errors,
    });
  }
  return rows;
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const pct = (n: number): string => `${(n * 100).toFixed(0)}%`;

/** Prints the table and the target check. */
export async function main(): Promise<void> {
  if (!retailDataAvailable()) {
    console.log(`compression-retail: skipped, ${retailDataMissing()}`);
    return;
  }
  const tasks = 24;
  const rows = await compressionRetail({ tasks, seed: 1 });
  console.log(
    `\n## compression-retail: context strategies on ${tasks} retail tasks (offline model: rules, not an LLM; extractive compressors)\n`,
  );
  console.log(
    '| strategy | success | peak prompt tokens (mean) | peak (max) | cumulative prompt tokens (mean) | agent calls (mean) | compressor calls (mean) | errors | what |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const row of rows) {
    console.log(
      `| ${row.strategy} | ${pct(row.success)} | ${int(row.peakMean)} | ${int(row.peakMax)} | ${int(row.cumulativeMean)} | ${row.modelCallsMean.toFixed(1)} | ${row.compressorCallsMean.toFixed(1)} | ${row.errors} | ${row.description} |`,
    );
  }
  const none = rows.find((r) => r.strategy === 'none');
  if (!none) return;
  console.log(
    '\nErrors are runs that hit limits.maxSteps (60): the offline policy fetches again what the context lost, and loops when it never comes back.\n',
  );
  for (const row of rows.filter((x) => x.strategy.startsWith('acon'))) {
    const mean = 1 - row.peakMean / none.peakMean;
    const max = 1 - row.peakMax / none.peakMax;
    const met = mean >= 0.6 && row.success >= none.success;
    console.log(
      `${row.strategy}: peak ${pct(mean)} below none (mean over episodes), ${pct(max)} (largest); success ${pct(row.success)} vs ${pct(none.success)} — target (≥ 60% below, success ≥ none's) ${met ? 'met' : 'not met'}.`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
