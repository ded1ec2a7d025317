/**
 * Success against budget: the same tasks run under every strategy at several prompt-token budgets, so a
 * reader sees where each strategy breaks instead of one number at one budget. Budgets are fractions of
 * the peak the full history (`none`) reaches, measured first on the same tasks without a budget.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { ConfigurationError } from 'pagewise';
import { renderChartSvg } from './charts.js';
import { runBench, type BenchOptions, type BenchReport } from './harness.js';

/** Version of the curve JSON written by {@link writeBudgetCurve}. */
export const BUDGET_CURVE_SCHEMA = 1;

/** The default fractions of `none`'s mean peak: five points from a quarter to the full peak. */
export const DEFAULT_BUDGET_FRACTIONS: readonly number[] = [0.25, 0.375, 0.5, 0.75, 1];

/** One point of a curve: a strategy at a budget. */
export interface BudgetCurvePoint {
  strategy: string;
  budget: number;
  /** The budget as a fraction of `none`'s mean peak. */
  fraction: number;
  successRate: number;
  /** Mean over episodes of each episode's largest request. */
  peakPromptTokens: number;
  exactMatch: number | null;
  f1: number | null;
  windowFailures: number;
}

/** The curves of one scenario (and N), with the reference run they were scaled from. */
export interface BudgetCurve {
  schema: typeof BUDGET_CURVE_SCHEMA;
  scenario: string;
  model: string;
  n: number | null;
  tasks: number;
  seed: number;
  /** `none`'s mean and largest peak without a budget on the same tasks. */
  reference: { peakPromptTokens: number; peakPromptTokensMax: number; successRate: number };
  points: BudgetCurvePoint[];
}

/** Options of {@link runBudgetCurve}: a benchmark (one N at most) and the fractions to run at. */
export interface BudgetCurveOptions extends Omit<BenchOptions, 'budget' | 'n'> {
  n?: number;
  fractions?: readonly number[];
}

/**
 * Runs `none` without a budget on the tasks, then every strategy at each fraction of its mean peak.
 *
 * @example
 * const curve = await runBudgetCurve({ scenario: getScenario('multi-objective-qa'), n: 8, tasks: 10, seed: 1 });
 */
export async function runBudgetCurve(options: BudgetCurveOptions): Promise<BudgetCurve> {
  const fractions = options.fractions ?? DEFAULT_BUDGET_FRACTIONS;
  if (fractions.length === 0 || fractions.some((f) => !(f > 0)))
    throw new ConfigurationError('invalid-option', 'Budget fractions must be positive numbers; give at least one.');
  const { fractions: _f, ...bench } = options;
  const reference = await runBench({ ...bench, strategies: ['none'] });
  const none = reference.results[0];
  if (!none) throw new ConfigurationError('invalid-option', 'The reference run of "none" produced no episodes.');
  const points: BudgetCurvePoint[] = [];
  for (const fraction of fractions) {
    const budget = Math.max(1, Math.round(none.peakPromptTokens * fraction));
    const report: BenchReport = await runBench({ ...bench, budget });
    for (const result of report.results)
      points.push({
        strategy: result.strategy,
        budget,
        fraction,
        successRate: result.successRate,
        peakPromptTokens: result.peakPromptTokens,
        exactMatch: result.exactMatch,
        f1: result.f1,
        windowFailures: result.windowFailures,
      });
  }
  return {
    schema: BUDGET_CURVE_SCHEMA,
    scenario: options.scenario.name,
    model: reference.runs.model,
    n: options.n ?? null,
    tasks: options.tasks,
    seed: options.seed,
    reference: {
      peakPromptTokens: none.peakPromptTokens,
      peakPromptTokensMax: none.peakPromptTokensMax,
      successRate: none.successRate,
    },
    points,
  };
}

/**
 * Success (or, with `metric: 'exactMatch'`, mean exact match per objective) against budget, one line per
 * strategy (vega-lite).
 */
export function budgetCurveSpec(
  curve: BudgetCurve,
  metric: 'successRate' | 'exactMatch' = 'successRate',
): TopLevelSpec {
  const sizeLabel = curve.n === null ? '' : `, N = ${curve.n}`;
  const what = metric === 'successRate' ? 'success' : 'exact match per objective';
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `${curve.scenario}${sizeLabel}: ${what} against prompt-token budget (${curve.model}, ${curve.tasks} tasks, seed ${curve.seed})`,
    data: { values: curve.points.map((p) => ({ ...p })) },
    width: 460,
    height: 280,
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'budget', type: 'quantitative', title: 'budget (prompt tokens per request)' },
      y: {
        field: metric,
        type: 'quantitative',
        title: what,
        axis: { format: '%' },
        scale: { domain: [0, 1] },
      },
      color: { field: 'strategy', type: 'nominal', sort: [...new Set(curve.points.map((p) => p.strategy))] },
    },
  };
}

/** The curve as a markdown table: one row per strategy, one column per budget. */
export function budgetCurveTable(curve: BudgetCurve): string {
  const budgets = [...new Set(curve.points.map((p) => p.budget))];
  const strategies = [...new Set(curve.points.map((p) => p.strategy))];
  const cell = (strategy: string, budget: number) => {
    const point = curve.points.find((x) => x.strategy === strategy && x.budget === budget);
    return point ? `${Math.round(point.successRate * 100)}%` : '';
  };
  return [
    `| strategy | ${budgets.map((b) => `${b} tok`).join(' | ')} |`,
    `|:---|${budgets.map(() => '---:').join('|')}|`,
    ...strategies.map((s) => `| ${s} | ${budgets.map((b) => cell(s, b)).join(' | ')} |`),
  ].join('\n');
}

/**
 * Writes `<name>.json` and `<name>.svg` (success against budget) into `dir`, and `<name>-em.svg` when
 * the scenario reports exact match; returns their paths.
 */
export async function writeBudgetCurve(dir: string, name: string, curve: BudgetCurve): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const json = path.join(dir, `${name}.json`);
  const svg = path.join(dir, `${name}.svg`);
  await writeFile(json, `${JSON.stringify(curve, null, 2)}\n`);
  await writeFile(svg, await renderChartSvg(budgetCurveSpec(curve)));
  const files = [json, svg];
  if (curve.points.some((p) => p.exactMatch !== null)) {
    const em = path.join(dir, `${name}-em.svg`);
    await writeFile(em, await renderChartSvg(budgetCurveSpec(curve, 'exactMatch')));
    files.push(em);
  }
  return files;
}
