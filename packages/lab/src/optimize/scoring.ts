/**
 * How a guideline's runs are scored and compared: success and cost of a split, the selection rules of
 * the UT and CO steps, and the verdict on the held-out split.
 */
import type { EpisodeTrace } from './trace.js';
import type { OptimizeReportRow, SplitScore } from './types.js';

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Success and cost of `traces` against the uncompressed traces of the same tasks. */
export function scoreSplit(
  traces: readonly EpisodeTrace[],
  uncompressed: ReadonlyMap<string, EpisodeTrace>,
): SplitScore {
  const base = traces.reduce((sum, t) => sum + (uncompressed.get(t.taskId)?.costTokens ?? 0), 0);
  const total = traces.reduce((sum, t) => sum + t.costTokens, 0);
  const solved = traces.filter((t) => t.success).length;
  return {
    tasks: traces.length,
    success: mean(traces.map((t) => (t.success ? 1 : 0))),
    peakPromptTokens: mean(traces.map((t) => t.peakPromptTokens)),
    maxPeakPromptTokens: traces.reduce((max, t) => Math.max(max, t.peakPromptTokens), 0),
    costTokens: mean(traces.map((t) => t.costTokens)),
    cost: base === 0 ? 1 : total / base,
    tokensPerSuccess: solved === 0 ? null : total / solved,
  };
}

/** success − λ · cost: the compression step's selection rule. */
export function selectionScore(score: SplitScore, lambda: number): number {
  return score.success - lambda * score.cost;
}

/**
 * Why a scored candidate may not be chosen under the run's limits, or undefined when it may: its largest
 * request is over the budget, or it costs more tokens than the starting guideline did.
 */
export function limitViolation(
  score: SplitScore,
  limits: { budget?: number | undefined; maxCost?: number | undefined },
): string | undefined {
  if (limits.budget !== undefined && score.maxPeakPromptTokens > limits.budget)
    return `a request of ${Math.round(score.maxPeakPromptTokens)} prompt tokens exceeds the budget of ${limits.budget}`;
  if (limits.maxCost !== undefined && score.cost > limits.maxCost + 1e-9)
    return `cost ${score.cost.toFixed(3)} of the uncompressed tokens is above the starting guideline's ${limits.maxCost.toFixed(3)}`;
  return undefined;
}

/**
 * The index of the winner of a step's pool (the incumbent first): the utility step takes the best
 * success, then the lower cost; the compression step the best success − λ · cost. Ties go to the
 * earlier entry, so a candidate must be strictly better to replace the incumbent.
 */
export function selectCandidate(pool: readonly SplitScore[], step: 'utility' | 'compression', lambda: number): number {
  let best = 0;
  for (let index = 1; index < pool.length; index += 1) {
    const candidate = pool[index] as SplitScore;
    const incumbent = pool[best] as SplitScore;
    const better =
      step === 'utility'
        ? candidate.success > incumbent.success ||
          (candidate.success === incumbent.success && candidate.cost < incumbent.cost)
        : selectionScore(candidate, lambda) > selectionScore(incumbent, lambda);
    if (better) best = index;
  }
  return best;
}

const pct = (n: number) => `${Math.round(n * 100)}%`;
const tokens = (n: number) => Math.round(n).toLocaleString('en-US');

/** The verdict on the held-out split: the final guideline against the start. */
export function verdictOf(
  start: OptimizeReportRow | undefined,
  final: OptimizeReportRow | undefined,
  lambda: number,
): { improved: boolean; text: string } {
  if (!start || !final) return { improved: false, text: 'no held-out tasks: nothing to compare' };
  const before = start.score;
  const after = final.score;
  const figures = `success ${pct(before.success)} → ${pct(after.success)}, cost ${before.cost.toFixed(2)} → ${after.cost.toFixed(2)} of the uncompressed tokens, success − ${lambda}·cost ${start.selection.toFixed(3)} → ${final.selection.toFixed(3)}`;
  if (final.guideline?.hash === start.guideline?.hash)
    return { improved: false, text: `unchanged (no candidate beat the start on the training split); ${figures}` };
  const dominates =
    after.success >= before.success &&
    after.cost <= before.cost &&
    (after.success > before.success || after.cost < before.cost);
  if (dominates)
    return {
      improved: true,
      text: `better on the held-out split: ${after.success > before.success ? 'higher success' : 'equal success'} at ${after.cost < before.cost ? 'fewer' : 'equal'} tokens; ${figures}`,
    };
  if (final.selection > start.selection) {
    const perSuccess =
      after.tokensPerSuccess !== null &&
      (before.tokensPerSuccess === null || after.tokensPerSuccess < before.tokensPerSuccess)
        ? `, and fewer tokens per solved task (${before.tokensPerSuccess === null ? 'none solved' : tokens(before.tokensPerSuccess)} → ${tokens(after.tokensPerSuccess)})`
        : '';
    return {
      improved: true,
      text: `better on the held-out split by success − λ·cost (${after.success > before.success ? 'higher success at a higher token cost per task' : 'lower cost at a lower success'}${perSuccess}); ${figures}`,
    };
  }
  return { improved: false, text: `not better on the held-out split; ${figures}` };
}
