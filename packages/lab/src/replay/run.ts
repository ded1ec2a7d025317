/**
 * The replay entry point: every trace under every strategy, then the report.
 */
import { createHash } from 'node:crypto';
import { AbortedError } from 'pagewise';
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
  /**
   * Traces replayed before under the same strategies, by {@link traceKey} (e.g. read back from a progress
   * file): taken as they are instead of being replayed again. A trace whose content changed has another key.
   */
  done?: ReadonlyMap<string, ReplayedTrace>;
  /** Called after each trace replayed in this call, e.g. to save progress so an interrupted replay resumes. */
  onTrace?: (replayed: ReplayedTrace) => void | Promise<void>;
  /** Stops between traces; the replay then rejects with an `AbortedError`. */
  signal?: AbortSignal;
}

/** One trace replayed under every strategy, as progress is saved. */
export interface ReplayedTrace {
  /** {@link traceKey} of the trace. */
  key: string;
  /** One replay per strategy, in the strategies' order. */
  replays: TraceReplay[];
  /** Milliseconds each strategy took on this trace. */
  strategyMs: number[];
}

/** A key of a trace's content (its id and items): the same trace read again has the same key. */
export function traceKey(trace: ReplayTrace): string {
  return createHash('sha256')
    .update(JSON.stringify([trace.id, trace.items, trace.reward ?? null]))
    .digest('hex')
    .slice(0, 32);
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
  for (const [index, analysis] of analyses.entries()) {
    // A turn of the event loop between traces, so an interrupt is seen on a long replay.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (options.signal?.aborted) throw new AbortedError('The replay was interrupted.');
    const key = traceKey(analysis.trace);
    const saved = options.done?.get(key);
    if (saved && saved.replays.length === strategies.length) {
      replays.push(saved.replays);
      saved.strategyMs.forEach((ms, si) => (strategyMs[si]! += ms));
    } else {
      const row: TraceReplay[] = [];
      const ms: number[] = [];
      for (const strategy of strategies) {
        const t0 = performance.now();
        row.push(await replayTrace(analysis, strategy));
        ms.push(performance.now() - t0);
      }
      ms.forEach((m, si) => (strategyMs[si]! += m));
      replays.push(row);
      await options.onTrace?.({ key, replays: row, strategyMs: ms });
    }
    options.onProgress?.({ done: index + 1, total: analyses.length, trace: analysis.trace.id });
  }
  return buildReport(analyses, replays, strategies, performance.now() - started, options.maxLosses, strategyMs);
}
