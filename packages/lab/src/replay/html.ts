/**
 * The replay report as one self-contained HTML page: a chart of tokens saved against used-later recall
 * per strategy (rendered to SVG by the benchmark's chart code, loaded only when a page is written), the
 * strategy table, and per strategy the fields it lost and its worst losses, each lost value highlighted
 * beside what was kept instead.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { ReplayReport } from './report.js';

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/gu, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The Vega-Lite spec of the chart: one point per strategy, tokens saved (x) against recall (y). */
export function replayChartSpec(report: ReplayReport): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Tokens saved and used-later recall, ${report.traces} traces`,
    width: 480,
    height: 320,
    data: {
      values: report.strategies.map((s) => ({
        strategy: s.name,
        group: s.baseline ? 'baseline' : 'compressor',
        saved: s.tokensSaved,
        recall: s.recall,
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
      (s) =>
        `<tr><td>${escapeHtml(s.name)}</td><td>${s.baseline ? 'baseline' : s.kind}</td><td>${s.peakTokens}</td><td>${pct(s.peakSaved)}</td><td>${s.cumulativeTokens}</td><td>${pct(s.tokensSaved)}</td><td>${pct(s.recall)}</td><td>${s.weightedRecall === undefined ? '–' : pct(s.weightedRecall)}</td><td>${s.lost}</td></tr>`,
    )
    .join('\n');
  const sections = report.strategies
    .filter((s) => s.lost > 0)
    .map((s) => {
      const fields = s.fields
        .filter((f) => f.lost > 0)
        .slice(0, 15)
        .map(
          (f) =>
            `<tr><td>${escapeHtml(f.tool)}</td><td>${escapeHtml(f.field)}</td><td>${f.uses}</td><td>${f.lost}</td><td>${pct(f.recall)}</td></tr>`,
        )
        .join('\n');
      const losses = s.worstLosses
        .map(
          (l) =>
            `<tr><td>${escapeHtml(l.trace)}</td><td>${l.step}</td><td>${escapeHtml(l.tool)}</td><td>${escapeHtml(l.field)}</td><td><mark>${escapeHtml(l.value)}</mark></td><td class="kept">${highlight(l.keptInstead, l.value)}</td></tr>`,
        )
        .join('\n');
      return `<h2>${escapeHtml(s.name)}</h2>
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
