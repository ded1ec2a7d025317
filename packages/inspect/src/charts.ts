/**
 * The inspector's charts of one session, as Vega-Lite specs rendered to SVG on the server with the
 * bench's renderer: prompt tokens per call stacked by part with the peak and compactions marked, and the
 * working set (which pages were in the instruction) at each call as a band chart.
 */
import type { TopLevelSpec } from 'vega-lite';
import { PROMPT_PARTS } from 'pagewise';
import type { CallSummary } from './data.js';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/**
 * Prompt tokens of each call by part; a dashed rule at the peak, red rules at calls after a compaction.
 * `calls` may be one page of a session's calls: `offset` is how many calls come before it (calls are numbered
 * from `offset + 1`).
 */
export function contextSpec(
  calls: readonly CallSummary[],
  compactionCalls: readonly number[],
  offset = 0,
): TopLevelSpec {
  const values = calls.flatMap((call, index) =>
    PROMPT_PARTS.map((part) => ({ call: offset + index + 1, part, tokens: call.entry?.parts[part] ?? 0 })),
  );
  const peak = Math.max(0, ...calls.map((c) => c.promptTokens));
  const peakCall = offset + calls.findIndex((c) => c.promptTokens === peak) + 1;
  return {
    $schema: SCHEMA,
    title: `prompt tokens per call by part (peak ${peak} at call ${peakCall})`,
    width: Math.min(900, Math.max(320, calls.length * 14)),
    height: 260,
    layer: [
      {
        data: { values },
        mark: { type: 'bar' },
        encoding: {
          x: { field: 'call', type: 'ordinal', title: 'model call' },
          y: { field: 'tokens', type: 'quantitative', aggregate: 'sum', stack: 'zero', title: 'prompt tokens' },
          color: { field: 'part', type: 'nominal', sort: [...PROMPT_PARTS], title: 'part' },
          order: { field: 'part', sort: 'ascending' },
        },
      },
      {
        data: { values: [{ peak }] },
        mark: { type: 'rule', strokeDash: [6, 4], color: 'black' },
        encoding: { y: { field: 'peak', type: 'quantitative' } },
      },
      ...(compactionCalls.length
        ? [
            {
              data: { values: compactionCalls.map((call) => ({ call, label: 'compaction' })) },
              mark: { type: 'tick' as const, color: '#c0392b', thickness: 3, size: 14 },
              encoding: {
                x: { field: 'call', type: 'ordinal' as const },
                y: { datum: 0, type: 'quantitative' as const },
              },
            },
          ]
        : []),
    ],
  } as TopLevelSpec;
}

/**
 * Which pages were in the instruction at each call: one row a page, a band over the calls it was in. Calls are
 * numbered from `offset + 1` (see {@link contextSpec}).
 */
export function workingSetSpec(calls: readonly CallSummary[], maxPages = 60, offset = 0): TopLevelSpec {
  const first = new Map<string, number>();
  calls.forEach((c, i) => c.pagedUris.forEach((u) => first.has(u) || first.set(u, i)));
  const shown = [...first.keys()].slice(0, maxPages);
  const keep = new Set(shown);
  const values = calls.flatMap((call, index) =>
    call.pagedUris.filter((u) => keep.has(u)).map((uri) => ({ call: offset + index + 1, page: uri.slice(-48) })),
  );
  return {
    $schema: SCHEMA,
    title:
      first.size > maxPages
        ? `working set per call (first ${maxPages} of ${first.size} pages)`
        : `working set per call (${first.size} pages)`,
    width: Math.min(900, Math.max(320, calls.length * 14)),
    height: Math.max(60, Math.min(shown.length, maxPages) * 12),
    data: { values },
    mark: { type: 'rect' },
    encoding: {
      x: {
        field: 'call',
        type: 'ordinal',
        title: 'model call',
        scale: { domain: calls.map((_, i) => offset + i + 1) },
      },
      y: { field: 'page', type: 'nominal', title: 'page', sort: shown.map((u) => u.slice(-48)) },
      color: { value: '#2e86c1' },
    },
  } as TopLevelSpec;
}
