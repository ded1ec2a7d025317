/**
 * Reproducible sampling of tasks and training units: a shuffle driven by a seeded generator (`seededRandom` of the
 * core), so the same seed picks the same tasks on every platform and Node version.
 */

/** A shuffled copy of `items` (Fisher-Yates) driven by `random`. */
export function seededShuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let index = out.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [out[index], out[other]] = [out[other] as T, out[index] as T];
  }
  return out;
}
