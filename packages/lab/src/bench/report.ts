/**
 * Report writers of the benchmark: the markdown table, the versioned results JSON, the saved runs they
 * are computed from (validated when read back), and the output folder with the charts. A report can be
 * rebuilt from saved runs alone, so results of a paid model run are never lost to a formatting change.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConfigurationError, OFFLINE_DISCLAIMER, PROMPT_PARTS } from 'pagewise';
import { PRICES_CHECKED, type ModelPrice } from 'pagewise/cost';
import { renderBenchCharts } from './charts.js';
import { BENCH_RUNS_SCHEMA, summarizeRuns, type BenchReport, type BenchRuns } from './harness.js';
import type { StrategyResult } from './metrics.js';

/** Version of the results JSON written by {@link resultsJson}. */
export const BENCH_RESULTS_SCHEMA = 1;

/** The results JSON (schema 1). Means are per episode; see `StrategyResult` for each field. */
export interface BenchResultsJson {
  schema: typeof BENCH_RESULTS_SCHEMA;
  scenario: string;
  params: BenchRuns['params'];
  /** The model label; `offline` is the rule-based model, not an LLM. */
  model: string;
  results: StrategyResult[];
}

/** File names inside an output folder. */
export const BENCH_FILES = { results: 'results.json', runs: 'runs.json', table: 'report.md' } as const;

/** The results JSON of a report. */
export function resultsJson(report: BenchReport): BenchResultsJson {
  const { runs } = report;
  return {
    schema: BENCH_RESULTS_SCHEMA,
    scenario: runs.scenario,
    params: runs.params,
    model: runs.model,
    results: report.results,
  };
}

const int = (x: number) => Math.round(x).toString();
const fixed = (x: number | null, digits: number) => (x === null ? '–' : x.toFixed(digits));
const percent = (x: number | null) => (x === null ? '–' : `${Math.round(x * 100)}%`);
function compact(value: number): string {
  if (value >= 1e9) return `${(value / 1e9).toFixed(2)}G`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)}M`;
  if (value >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  return int(value);
}
function usd(value: number | null): string {
  if (value === null) return '–';
  return value === 0 ? '$0' : value < 0.01 ? `$${value.toFixed(5)}` : `$${value.toFixed(3)}`;
}

const ratio = (x: number | null) => (x === null ? '–' : `${x.toFixed(2)}×`);

interface Column {
  title: string;
  align: 'l' | 'r';
  cell: (r: StrategyResult) => string;
}

/**
 * The line under the table on prices: which entry agent calls were priced at (and its date), the cache
 * rules the hit rate and the cost with caching come from, and the price entries without cache prices.
 */
function pricesNote(runs: BenchRuns, results: readonly StrategyResult[]): string {
  const priced = runs.priceAs ?? runs.model;
  const rules = [...new Set(runs.episodes.flatMap((e) => e.ledger.map((l) => l.cache?.modelled.rules)))].filter(
    (name): name is string => name !== undefined,
  );
  const uncached = Object.entries(runs.prices)
    .filter(([name, price]) => name !== 'offline' && price.cacheReadPerMTok === undefined)
    .map(([name]) => name);
  return [
    `Cost is in USD with prompt caching, agent calls priced as ${priced} (built-in list prices as of ${PRICES_CHECKED}, to be checked; \`--prices\` overrides them).`,
    rules.length > 0 || results.some((r) => r.cacheHitRate !== null)
      ? `Cache hit = prompt tokens read from the cache ÷ prompt tokens, by the provider's report where it gave one, else by the prompt-cache model (rules: ${rules.join(', ') || 'none'}).`
      : 'No call carries cache figures: every prompt token is priced as uncached.',
    results.some((r) => r.floorCostUsd !== null)
      ? 'Floor = the cost if every distinct page the prompts held were paid once at the uncached price and every other prompt token at the cached price, output as billed (a lower bound); ÷ floor = cost ÷ floor.'
      : undefined,
    uncached.length > 0
      ? `Without cache prices (cache reads and writes priced as input): ${uncached.join(', ')}.`
      : undefined,
  ]
    .filter((line): line is string => line !== undefined)
    .join(' ');
}

/**
 * The report as markdown: a heading naming the scenario and model, the parameters, one line on how the
 * figures are aggregated, and one table row per strategy and N. Columns with no value for any row
 * (N, evidence recall, EM/F1) are left out.
 */
export function markdownReport(report: BenchReport): string {
  const { runs, results } = report;
  const has = (pick: (r: StrategyResult) => unknown) => results.some((r) => pick(r) !== null);
  const columns: Column[] = [
    { title: 'strategy', align: 'l', cell: (r) => r.strategy },
    ...(has((r) => r.n) ? [{ title: 'N', align: 'r' as const, cell: (r: StrategyResult) => String(r.n) }] : []),
    { title: 'runs', align: 'r', cell: (r) => String(r.runs) },
    { title: 'success', align: 'r', cell: (r) => percent(r.successRate) },
    { title: 'peak tok (max)', align: 'r', cell: (r) => `${int(r.peakPromptTokens)} (${int(r.peakPromptTokensMax)})` },
    { title: 'peak no-sys', align: 'r', cell: (r) => int(r.peakPromptTokensNoSystem) },
    { title: 'cum. prompt tok', align: 'r', cell: (r) => int(r.cumulativePromptTokens) },
    { title: 'completion tok', align: 'r', cell: (r) => int(r.completionTokens) },
    { title: 'compressor tok', align: 'r', cell: (r) => int(r.compressorTokens) },
    { title: 'calls', align: 'r', cell: (r) => r.modelCalls.toFixed(1) },
    { title: 'dependency', align: 'r', cell: (r) => compact(r.dependency) },
    ...(has((r) => r.evidenceRecall)
      ? [{ title: 'evidence recall', align: 'r' as const, cell: (r: StrategyResult) => fixed(r.evidenceRecall, 2) }]
      : []),
    ...(has((r) => r.exactMatch)
      ? [{ title: 'EM', align: 'r' as const, cell: (r: StrategyResult) => fixed(r.exactMatch, 2) }]
      : []),
    ...(has((r) => r.f1) ? [{ title: 'F1', align: 'r' as const, cell: (r: StrategyResult) => fixed(r.f1, 2) }] : []),
    { title: 'overhead ms/step', align: 'r', cell: (r) => r.overheadMsPerStep.toFixed(2) },
    { title: 'window fails', align: 'r', cell: (r) => String(r.windowFailures) },
    { title: 'errors', align: 'r', cell: (r) => String(r.errors) },
    ...(has((r) => r.cacheHitRate)
      ? [{ title: 'cache hit', align: 'r' as const, cell: (r: StrategyResult) => percent(r.cacheHitRate) }]
      : []),
    { title: 'cost/episode', align: 'r', cell: (r) => usd(r.costUsd) },
    ...(has((r) => r.floorCostUsd)
      ? [
          { title: 'floor/episode', align: 'r' as const, cell: (r: StrategyResult) => usd(r.floorCostUsd) },
          { title: '÷ floor', align: 'r' as const, cell: (r: StrategyResult) => ratio(r.costToFloor) },
        ]
      : []),
    { title: 'wall s', align: 'r', cell: (r) => (r.wallMs / 1000).toFixed(2) },
  ];
  const model =
    runs.model === 'offline' || runs.model.endsWith(':offline') ? `offline ${OFFLINE_DISCLAIMER}` : runs.model;
  const runParams = runs.params;
  const params = [
    runParams.n ? `N ${runParams.n.join(', ')}` : undefined,
    `${runParams.tasks} tasks per strategy${runParams.n && runParams.n.length > 1 ? ' and N' : ''}`,
    `seed ${runParams.seed}`,
    `window ${runParams.contextWindow === null ? "the model's" : runParams.contextWindow === 0 ? 'unlimited' : `${runParams.contextWindow} tokens`}`,
    runParams.budget
      ? `budget ${runParams.budget} prompt tokens for every strategy (a request above it fails the episode)`
      : undefined,
  ].filter((x): x is string => x !== undefined);
  const totals = results.map((r) => r.totalCostUsd);
  const totalCost = totals.every((c): c is number => c !== null)
    ? usd(totals.reduce((a, b) => a + b, 0))
    : 'unknown (no price for the model)';
  return [
    `## ${runs.scenario}: ${model}`,
    '',
    `${params.join(' · ')} · total wall time ${(runs.wallMs / 1000).toFixed(1)} s · total cost ${totalCost}`,
    '',
    `| ${columns.map((c) => c.title).join(' | ')} |`,
    `|${columns.map((c) => (c.align === 'r' ? '---:' : ':---')).join('|')}|`,
    ...results.map((r) => `| ${columns.map((c) => c.cell(r)).join(' | ')} |`),
    '',
    pricesNote(runs, results),
    '',
    'Token counts, calls, dependency and cost are means per episode; peak is the mean of the episodes\' largest requests (system prompt and tool schemas included), the largest of all in parentheses; "no-sys" leaves out instruction, paged content and tool schemas. Overhead is the median framework time per step (model and tools excluded); wall time is the total.',
  ].join('\n');
}

// Schemas of the saved runs: they are read back from disk, so they are validated, not trusted.
// The cache prices are optional: a table written before they existed still loads, its cache reads and
// writes priced at the input price (the report says so).
const PriceSchema = z.object({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
  cacheReadPerMTok: z.number().nonnegative().optional(),
  cacheWritePerMTok: z.number().nonnegative().optional(),
  cacheWrite1hPerMTok: z.number().nonnegative().optional(),
});
const CacheUsageSchema = z.object({
  rules: z.string(),
  promptTokens: z.number().nonnegative(),
  readTokens: z.number().nonnegative(),
  writeTokens: z.number().nonnegative(),
  writeLongTtlTokens: z.number().nonnegative(),
  uncachedTokens: z.number().nonnegative(),
  firstChangedToken: z.number().nonnegative(),
});
const PriceTableSchema = z.record(z.string(), PriceSchema);
/** Schema of a ledger entry read back from disk or from a worker: every token figure depends on it. */
export const LedgerEntrySchema = z.object({
  index: z.number().int().nonnegative(),
  kind: z.enum(['agent', 'compressor']),
  agent: z.string(),
  model: z.string(),
  invocationId: z.string(),
  parts: z.object(
    Object.fromEntries(PROMPT_PARTS.map((p) => [p, z.number().nonnegative()])) as Record<
      (typeof PROMPT_PARTS)[number],
      z.ZodNumber
    >,
  ),
  promptTokens: z.number().nonnegative(),
  completionTokens: z.number().nonnegative(),
  providerPromptTokens: z.number().nonnegative().optional(),
  providerCompletionTokens: z.number().nonnegative().optional(),
  cache: z
    .object({
      modelled: CacheUsageSchema,
      reported: z
        .object({ readTokens: z.number().nonnegative().optional(), writeTokens: z.number().nonnegative().optional() })
        .optional(),
    })
    .optional(),
  compactions: z.number().int().positive().optional(),
  modelMs: z.number().nonnegative(),
  frameworkMs: z.number().nonnegative(),
  at: z.number(),
});
/** Schema of an episode outcome (as a scenario returns it). */
export const EpisodeOutcomeSchema = z.looseObject({
  taskId: z.string(),
  strategy: z.string(),
  success: z.boolean(),
  answer: z.string(),
  ledger: z.array(LedgerEntrySchema),
  evidenceRecall: z.number().min(0).max(1).optional(),
  exactMatch: z.number().min(0).max(1).optional(),
  f1: z.number().min(0).max(1).optional(),
  pageTokens: z.number().nonnegative().optional(),
  windowFailure: z.boolean(),
  error: z.string().optional(),
  errorFault: z.enum(['configuration', 'model', 'system']).optional(),
  wallMs: z.number().nonnegative(),
});
const EpisodeSchema = EpisodeOutcomeSchema.extend({ n: z.number().int().positive().nullable() });
const RunsSchema = z.object({
  schema: z.literal(BENCH_RUNS_SCHEMA),
  scenario: z.string(),
  model: z.string(),
  params: z.object({
    strategies: z.array(z.string()).min(1),
    n: z.array(z.number().int().positive()).min(1).nullable(),
    tasks: z.number().int().positive(),
    seed: z.number().int(),
    contextWindow: z.number().int().nonnegative().nullable(),
    budget: z.number().int().positive().nullable().optional(),
  }),
  prices: PriceTableSchema,
  priceAs: z.string().optional(),
  startedAt: z.string(),
  wallMs: z.number().nonnegative(),
  episodes: z.array(EpisodeSchema),
});

/** Saved-runs schema versions this version can read. */
export const READABLE_RUNS_SCHEMAS: readonly number[] = [1];

/**
 * Validates saved runs (parsed JSON).
 *
 * @param where the file name, for the error message.
 * @throws ConfigurationError naming the file and what does not match.
 */
export function parseRuns(json: unknown, where = 'runs'): BenchRuns {
  const version = (json as { schema?: unknown } | null)?.schema;
  if (typeof version === 'number' && !READABLE_RUNS_SCHEMAS.includes(version)) {
    throw new ConfigurationError(
      'unsupported-runs-schema',
      `${where} has runs schema ${version}; this version reads ${READABLE_RUNS_SCHEMAS.join(', ')}. Upgrade pagewise to read it.`,
    );
  }
  const parsed = RunsSchema.safeParse(json);
  if (!parsed.success)
    throw new ConfigurationError(
      'invalid-runs',
      `${where} is not a pagewise bench runs file: ${z.prettifyError(parsed.error)}`,
      parsed.error,
    );
  return parsed.data as BenchRuns;
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigurationError(
      'file-not-found',
      `Cannot read ${file}: ${(error as Error).message}. Check the path.`,
      error,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ConfigurationError('invalid-json', `${file} is not valid JSON: ${(error as Error).message}`, error);
  }
}

/** Reads saved runs from a `runs.json` file, or from an output folder that holds one. */
export async function readRuns(fileOrDir: string): Promise<BenchRuns> {
  const isDir = await stat(fileOrDir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  const file = isDir ? path.join(fileOrDir, BENCH_FILES.runs) : fileOrDir;
  return parseRuns(await readJson(file), file);
}

/**
 * Reads a price table: a JSON object of USD per million tokens by model label or spec, e.g.
 * `{ "openai:gpt-4.1-mini": { "inputPerMTok": 0.4, "outputPerMTok": 1.6 } }`.
 */
export async function readPrices(file: string): Promise<Record<string, ModelPrice>> {
  const parsed = PriceTableSchema.safeParse(await readJson(file));
  if (!parsed.success) {
    throw new ConfigurationError(
      'invalid-prices',
      `${file} is not a price table (model -> { inputPerMTok, outputPerMTok } and optionally cacheReadPerMTok, cacheWritePerMTok, cacheWrite1hPerMTok, in USD per million tokens): ${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data;
}

/**
 * Recomputes a report from saved runs; `prices` (over the saved table) and `priceAs` reprice it without a
 * model call (the cache figures stay those modelled when the runs were made).
 */
export function rebuildReport(
  runs: BenchRuns,
  options: { prices?: Readonly<Record<string, ModelPrice>>; priceAs?: string } = {},
): BenchReport {
  const repriced: BenchRuns = {
    ...runs,
    ...(options.prices ? { prices: { ...runs.prices, ...options.prices } } : {}),
    ...(options.priceAs !== undefined ? { priceAs: options.priceAs } : {}),
  };
  return { runs: repriced, results: summarizeRuns(repriced) };
}

/** Writes the results JSON of a report to `file` (folders created as needed). */
export async function writeResultsJson(file: string, report: BenchReport): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  await writeFile(file, `${JSON.stringify(resultsJson(report), null, 2)}\n`);
}

/**
 * Writes a report to a folder: `results.json`, `runs.json` (every episode with its per-call ledger,
 * enough to rebuild the rest), `report.md` and the charts as SVG. Returns the paths written.
 */
export async function writeBenchOutput(dir: string, report: BenchReport): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: [string, string][] = [
    [BENCH_FILES.runs, `${JSON.stringify(report.runs)}\n`],
    [BENCH_FILES.results, `${JSON.stringify(resultsJson(report), null, 2)}\n`],
    [BENCH_FILES.table, `${markdownReport(report)}\n`],
    ...(await renderBenchCharts(report)).map((c): [string, string] => [`${c.name}.svg`, c.svg]),
  ];
  const written: string[] = [];
  for (const [name, text] of files) {
    const file = path.join(dir, name);
    await writeFile(file, text);
    written.push(file);
  }
  return written;
}
