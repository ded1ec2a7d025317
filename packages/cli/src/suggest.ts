/** "Did you mean …?" for a mistyped command or subcommand. */

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The candidate closest to `word` within a few edits (a third of its length, at least 1), if any. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const d = distance(word.toLowerCase(), name);
    if (d <= limit && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/** ` Did you mean "x"?` or nothing. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const match = closest(word, candidates);
  return match ? ` Did you mean "${match}"?` : '';
}
