import { describe, expect, it } from 'vitest';
import { emptyParts } from '../../../pagewise/src/tokens/ledger.js';
import { peakVsNSpec, promptTokensPerCallSpec, renderBenchCharts, renderChartSvg } from './charts.js';
import { BENCH_RUNS_SCHEMA, summarizeRuns, type BenchRuns } from './harness.js';

function runs(sizes: number[] | null): BenchRuns {
  const episodes = (sizes ?? [null]).flatMap((size) =>
    ['none', 'fifo'].map((strategy) => ({
      taskId: 't',
      strategy,
      n: size,
      success: true,
      answer: '',
      ledger: [100, 200, 300].map((promptTokens, index) => ({
        index,
        kind: 'agent' as const,
        agent: 'a',
        model: 'offline',
        invocationId: 'i',
        parts: { ...emptyParts(), history: promptTokens * (size ?? 1) },
        promptTokens: promptTokens * (size ?? 1),
        completionTokens: 1,
        modelMs: 0,
        frameworkMs: 0,
        at: 0,
      })),
      windowFailure: false,
      wallMs: 1,
    })),
  );
  return {
    schema: BENCH_RUNS_SCHEMA,
    scenario: 'demo-scenario',
    model: 'offline',
    params: { strategies: ['none', 'fifo'], n: sizes, tasks: 1, seed: 1, contextWindow: null },
    prices: {},
    startedAt: '',
    wallMs: 1,
    episodes,
  };
}

describe('charts', () => {
  it('plot prompt tokens per call with one series per strategy', () => {
    const spec = promptTokensPerCallSpec(runs(null)) as {
      data: { values: { strategy: string; call: number; promptTokens: number }[] };
    };
    expect(spec.data.values).toHaveLength(6);
    expect(spec.data.values.filter((v) => v.strategy === 'fifo').map((v) => [v.call, v.promptTokens])).toEqual([
      [1, 100],
      [2, 200],
      [3, 300],
    ]);
  });

  it('plot peak against N from the results', () => {
    const benchRuns = runs([1, 2]);
    const spec = peakVsNSpec(summarizeRuns(benchRuns), benchRuns.scenario, benchRuns.model) as {
      data: { values: { n: number; peakPromptTokens: number }[] };
    };
    expect(spec.data.values.map((v) => [v.n, v.peakPromptTokens])).toEqual([
      [1, 300],
      [2, 600],
      [1, 300],
      [2, 600],
    ]);
  });

  it('render to SVG with the strategy names as text, and peak against N only when N varied', async () => {
    const one = await renderBenchCharts({ runs: runs(null), results: summarizeRuns(runs(null)) });
    expect(one.map((c) => c.name)).toEqual(['prompt-tokens-per-call']);
    expect(one[0]?.svg).toMatch(/^<svg[\s\S]*fifo[\s\S]*<\/svg>$/);
    const varied = await renderBenchCharts({ runs: runs([1, 2]), results: summarizeRuns(runs([1, 2])) });
    expect(varied.map((c) => c.name)).toEqual(['prompt-tokens-per-call', 'peak-vs-n']);
    expect(varied[1]?.svg).toContain('peak prompt tokens against N');
  });

  it('render any Vega-Lite spec', async () => {
    const svg = await renderChartSvg({
      data: { values: [{ a: 1, b: 2 }] },
      mark: 'point',
      encoding: { x: { field: 'a', type: 'quantitative' }, y: { field: 'b', type: 'quantitative' } },
    });
    expect(svg.startsWith('<svg')).toBe(true);
  });
});
