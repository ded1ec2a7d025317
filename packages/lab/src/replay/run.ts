/**
 * The replay entry point: every trace under every strategy, then the report.
 */
import { analyzeTrace, replayTrace, type TraceReplay } from './replay.js';
import { buildReport, type ReplayReport } from './report.js';
import { defaultStrategies, type ReplayStrategy, type StrategySettings } from './strategies.js';
import type { ReplayTrace } from './trace.js';

/** Progress of {@link replayTraces}: after each trace. */
export interface ReplayProgress {
  done: number;
  total: number;
  trace: string;
}

/** Options of {@link replayTraces}. */
export interface ReplayOptions extends StrategySettings {
  /** The contenders. Default {@link defaultStrategies} with these options' settings. */
  strategies?: readonly ReplayStrategy[];
  /** Called after each trace. */
  onProgress?: (progress: ReplayProgress) => void;
  /** Worst losses kept per strategy. Default 20. */
  maxLosses?: number;
}

/**
 * Replays `traces` under each strategy and reports tokens saved and used-later recall.
 *
 * @example
 * const report = await replayTraces(await readTraces('traces.jsonl'));
 * console.log(replayMarkdown(report));
 */
export async function replayTraces(traces: readonly ReplayTrace[], options: ReplayOptions = {}): Promise<ReplayReport> {
  const strategies = options.strategies ?? defaultStrategies(options);
  const started = performance.now();
  const analyses = traces.map(analyzeTrace);
  const replays: TraceReplay[][] = [];
  const strategyMs = strategies.map(() => 0);
  for (const [i, analysis] of analyses.entries()) {
    const row: TraceReplay[] = [];
    for (const [si, strategy] of strategies.entries()) {
      const t0 = performance.now();
      row.push(await replayTrace(analysis, strategy));
      strategyMs[si]! += performance.now() - t0;
    }
    replays.push(row);
    options.onProgress?.({ done: i + 1, total: analyses.length, trace: analysis.trace.id });
  }
  return buildReport(analyses, replays, strategies, performance.now() - started, options.maxLosses, strategyMs);
}
