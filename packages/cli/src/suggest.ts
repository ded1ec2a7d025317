/** "Did you mean …?" for a mistyped command or subcommand. */

/** Edits between two words: insertions, deletions, substitutions and swaps of neighbours (`modle` → `model` is one). */
function distance(source: string, target: string): number {
  const table: number[][] = Array.from({ length: source.length + 1 }, (_, row) =>
    Array.from({ length: target.length + 1 }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  for (let row = 1; row <= source.length; row += 1) {
    for (let column = 1; column <= target.length; column += 1) {
      const cost = source[row - 1] === target[column - 1] ? 0 : 1;
      let best = Math.min(
        table[row - 1]![column]! + 1,
        table[row]![column - 1]! + 1,
        table[row - 1]![column - 1]! + cost,
      );
      if (row > 1 && column > 1 && source[row - 1] === target[column - 2] && source[row - 2] === target[column - 1])
        best = Math.min(best, table[row - 2]![column - 2]! + 1);
      table[row]![column] = best;
    }
  }
  return table[source.length]![target.length]!;
}

/** The candidate closest to `word` within a few edits (a third of its length, at least 1), if any. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: { name: string; edits: number } | undefined;
  for (const name of candidates) {
    const edits = distance(word.toLowerCase(), name);
    if (edits <= limit && (!best || edits < best.edits)) best = { name, edits };
  }
  return best?.name;
}

/** ` Did you mean "x"?` or nothing. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const match = closest(word, candidates);
  return match ? ` Did you mean "${match}"?` : '';
}
