/**
 * Small statistics helpers for benchmarks: medians and percentiles, reported side by side.
 */

/** The `fraction`-quantile (0..1) of `values`, by linear interpolation. */
export function quantile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * fraction;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Median, p10 and p90 of values. */
export function spread(values: readonly number[]): { median: number; p10: number; p90: number; n: number } {
  return { median: quantile(values, 0.5), p10: quantile(values, 0.1), p90: quantile(values, 0.9), n: values.length };
}

/** Formats a number with a fixed number of decimals. */
export const fmt = (n: number, digits = 3): string => (Number.isFinite(n) ? n.toFixed(digits) : '-');
