/**
 * Charts of a benchmark as SVG: Vega-Lite specs compiled and rendered headless by Vega (no canvas is
 * needed for SVG), so the figures are declared as data and encodings rather than drawn by hand.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { BenchReport, BenchRuns } from './harness.js';
import type { StrategyResult } from './metrics.js';

/** A rendered chart: a file-name stem and its SVG text. */
export interface RenderedChart {
  name: string;
  svg: string;
}

/** Renders a Vega-Lite spec to SVG text. */
export async function renderChartSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/**
 * Prompt tokens of each agent call, by call number, one line per strategy: the mean over the episodes
 * that reached that call. With several N, one panel per N.
 */
export function promptTokensPerCallSpec(runs: BenchRuns): TopLevelSpec {
  const values = runs.episodes.flatMap((episode, episodeIndex) =>
    episode.ledger
      .filter((entry) => entry.kind === 'agent')
      .map((entry, callIndex) => ({
        strategy: episode.strategy,
        n: episode.n === null ? 'all' : `N = ${episode.n}`,
        episode: episodeIndex,
        call: callIndex + 1,
        promptTokens: entry.promptTokens,
      })),
  );
  const layer = {
    mark: { type: 'line' as const, point: true, interpolate: 'monotone' as const },
    encoding: {
      x: { field: 'call', type: 'quantitative' as const, title: 'model call' },
      y: {
        field: 'promptTokens',
        type: 'quantitative' as const,
        aggregate: 'mean' as const,
        title: 'prompt tokens (mean over episodes)',
      },
      color: { field: 'strategy', type: 'nominal' as const, sort: runs.params.strategies, title: 'strategy' },
    },
  };
  const title = `${runs.scenario}: prompt tokens per model call (${runs.model})`;
  const multipleN = (runs.params.n?.length ?? 0) > 1;
  return multipleN
    ? {
        $schema: SCHEMA,
        title,
        data: { values },
        facet: {
          column: { field: 'n', type: 'ordinal', title: null, sort: runs.params.n?.map((n) => `N = ${n}`) ?? [] },
        },
        spec: { width: 280, height: 220, ...layer },
      }
    : { $schema: SCHEMA, title, data: { values }, width: 480, height: 280, ...layer };
}

/** Peak prompt tokens (mean of the episodes' peaks) against N, one line per strategy. */
export function peakVsNSpec(results: readonly StrategyResult[], scenario: string, model: string): TopLevelSpec {
  const values = results
    .filter((r) => r.n !== null)
    .map((r) => ({ strategy: r.strategy, n: r.n, peakPromptTokens: r.peakPromptTokens }));
  return {
    $schema: SCHEMA,
    title: `${scenario}: peak prompt tokens against N (${model})`,
    data: { values },
    width: 420,
    height: 280,
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'n', type: 'quantitative', title: 'N', axis: { tickMinStep: 1 } },
      y: { field: 'peakPromptTokens', type: 'quantitative', title: 'peak prompt tokens (mean over episodes)' },
      color: {
        field: 'strategy',
        type: 'nominal',
        sort: [...new Set(results.map((r) => r.strategy))],
        title: 'strategy',
      },
    },
  };
}

/**
 * The charts of a report: prompt tokens per call for each strategy, and peak against N when N varied.
 */
export async function renderBenchCharts(report: BenchReport): Promise<RenderedChart[]> {
  const charts: RenderedChart[] = [
    { name: 'prompt-tokens-per-call', svg: await renderChartSvg(promptTokensPerCallSpec(report.runs)) },
  ];
  if ((report.runs.params.n?.length ?? 0) > 1) {
    charts.push({
      name: 'peak-vs-n',
      svg: await renderChartSvg(peakVsNSpec(report.results, report.runs.scenario, report.runs.model)),
    });
  }
  return charts;
}
