/**
 * The replay report as one self-contained HTML page: a chart of tokens saved against used-later recall
 * per strategy (rendered to SVG by the benchmark's chart code, loaded only when a page is written), the
 * strategy table, and per strategy the fields it lost and its worst losses, each lost value highlighted
 * beside what was kept instead.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { ReplayReport } from './report.js';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/gu, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The Vega-Lite spec of the chart: one point per strategy, tokens saved (x) against recall (y). */
export function replayChartSpec(report: ReplayReport): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Tokens saved and used-later recall, ${report.traces} traces`,
    width: 480,
    height: 320,
    data: {
      values: report.strategies.map((strategy) => ({
        strategy: strategy.name,
        group: strategy.baseline ? 'baseline' : 'compressor',
        saved: strategy.tokensSaved,
        recall: strategy.recall,
      })),
    },
    layer: [
      {
        mark: { type: 'point', filled: true, size: 90 },
        encoding: {
          x: { field: 'saved', type: 'quantitative', title: 'cumulative prompt tokens saved', axis: { format: '%' } },
          y: { field: 'recall', type: 'quantitative', title: 'used-later recall', axis: { format: '%' } },
          color: { field: 'group', type: 'nominal', title: '' },
        },
      },
      {
        mark: { type: 'text', align: 'left', dx: 7, dy: -7 },
        encoding: {
          x: { field: 'saved', type: 'quantitative' },
          y: { field: 'recall', type: 'quantitative' },
          text: { field: 'strategy', type: 'nominal' },
        },
      },
    ],
  } as TopLevelSpec;
}

/** Marks every occurrence of `value` in `text` (both escaped), case ignored. */
function highlight(text: string, value: string): string {
  const escaped = escapeHtml(text);
  const needle = escapeHtml(value);
  if (!needle) return escaped;
  const re = new RegExp(needle.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&'), 'giu');
  return escaped.replace(re, (m) => `<mark>${m}</mark>`);
}

/**
 * Renders the report as an HTML page.
 *
 * @example
 * await writeFile('replay.html', await replayHtml(report));
 */
export async function replayHtml(report: ReplayReport): Promise<string> {
  const { renderChartSvg } = await import('../bench/charts.js');
  const svg = await renderChartSvg(replayChartSpec(report));
  const rows = report.strategies
    .map(
      (strategy) =>
        `<tr><td>${escapeHtml(strategy.name)}</td><td>${strategy.baseline ? 'baseline' : strategy.kind}</td><td>${strategy.peakTokens}</td><td>${pct(strategy.peakSaved)}</td><td>${strategy.cumulativeTokens}</td><td>${pct(strategy.tokensSaved)}</td><td>${pct(strategy.recall)}</td><td>${strategy.weightedRecall === undefined ? '–' : pct(strategy.weightedRecall)}</td><td>${strategy.lost}</td></tr>`,
    )
    .join('\n');
  const sections = report.strategies
    .filter((s) => s.lost > 0)
    .map((strategy) => {
      const fields = strategy.fields
        .filter((f) => f.lost > 0)
        .slice(0, 15)
        .map(
          (field) =>
            `<tr><td>${escapeHtml(field.tool)}</td><td>${escapeHtml(field.field)}</td><td>${field.uses}</td><td>${field.lost}</td><td>${pct(field.recall)}</td></tr>`,
        )
        .join('\n');
      const losses = strategy.worstLosses
        .map(
          (loss) =>
            `<tr><td>${escapeHtml(loss.trace)}</td><td>${loss.step}</td><td>${escapeHtml(loss.tool)}</td><td>${escapeHtml(loss.field)}</td><td><mark>${escapeHtml(loss.value)}</mark></td><td class="kept">${highlight(loss.keptInstead, loss.value)}</td></tr>`,
        )
        .join('\n');
      return `<h2>${escapeHtml(strategy.name)}</h2>
<table><tr><th>tool</th><th>field</th><th>uses</th><th>lost</th><th>recall</th></tr>
${fields}</table>
<h3>Worst losses</h3>
<table><tr><th>trace</th><th>step</th><th>tool</th><th>field</th><th>lost value</th><th>kept instead</th></tr>
${losses}</table>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pagewise replay</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:72rem}table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}td.kept{font-family:monospace;font-size:.85em;max-width:40rem}mark{background:#ffd54f}</style>
</head><body>
<h1>Replay of ${report.traces} trace(s)</h1>
<p>${report.toolResults} tool results, ${report.modelCalls} model calls, ${report.uses} used-later values; ${report.tracesWithOutcome} trace(s) with an outcome.</p>
${svg}
<table><tr><th>strategy</th><th></th><th>peak tokens</th><th>saved</th><th>cumulative tokens</th><th>saved</th><th>recall</th><th>weighted recall</th><th>lost</th></tr>
${rows}</table>
${sections}
</body></html>
`;
}
