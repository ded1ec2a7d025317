/**
 * Acronyms of a query spelled out as the text spells them. A question says "R&D" or "PP&E" where a statement's
 * row says "Research and development" or "Property, plant and equipment": no word is shared, so a word-matching
 * ranker misses the row. The expansion is read off the text itself (a run of words whose initials spell the
 * acronym), never from a list, so it holds for any field's acronyms and finds nothing a text does not say.
 */

// Written with an ampersand (R&D, PP&E, SG&A), or three to six capitals (EPS, GAAP, EBITDA).
const ACRONYM = /(?<![\p{L}\p{N}])(?:\p{Lu}{1,3}(?:&\p{Lu}{1,3})+|\p{Lu}{3,6})(?![\p{L}\p{N}])/gu;

// Words an expansion may hold without their initial in the acronym ("research AND development").
/** Fewest letters of an acronym: one capital is a word or an initial, not an acronym. */
export const MIN_ACRONYM_LETTERS = 2;

const CONNECTORS = new Set(['and', 'of', 'the', 'for', 'to', 'in', 'on']);

const WORD = /\p{L}[\p{L}'’-]*/gu;

/** The acronyms `query` writes, as their capital letters, lower case (`R&D` → `rd`), each once. */
export function queryAcronyms(query: string): string[] {
  const letters = new Set<string>();
  // A match is capitals and the ampersands between them.
  for (const match of query.matchAll(ACRONYM)) letters.add(match[0].replaceAll('&', '').toLowerCase());
  return [...letters];
}

/**
 * The words of the run of `text` whose initials spell `letters` (connectors such as "and" and "of" may sit between
 * them), the run the text uses most often (the first of equals); undefined when the text has none. Case does
 * not matter in the text: a table row writes "Research and development", a heading "RESEARCH AND DEVELOPMENT".
 */
export function spelledOut(letters: string, text: string): string[] | undefined {
  return letters.length < MIN_ACRONYM_LETTERS ? undefined : spelledOutIn(letters, lowerCaseWords(text));
}

/** The words of `text` as {@link spelledOut} reads them: lower case, in order. */
function lowerCaseWords(text: string): string[] {
  return [...text.matchAll(WORD)].map((match) => match[0].toLowerCase());
}

/** {@link spelledOut} over the text's {@link lowerCaseWords}, so several acronyms split the text once. */
function spelledOutIn(letters: string, words: readonly string[]): string[] | undefined {
  if (letters.length < MIN_ACRONYM_LETTERS) return undefined;
  const counts = new Map<string, { words: string[]; count: number }>();
  for (let start = 0; start < words.length; start += 1) {
    if (words[start]![0] !== letters[0]) continue;
    const run: string[] = [];
    let at = start;
    for (const letter of letters) {
      while (run.length > 0 && at < words.length && CONNECTORS.has(words[at]!)) at += 1;
      const word = words[at];
      if (word === undefined || word[0] !== letter || CONNECTORS.has(word)) break;
      run.push(word);
      at += 1;
    }
    if (run.length !== letters.length) continue;
    const key = run.join(' ');
    const entry = counts.get(key) ?? { words: run, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  let best: { words: string[]; count: number } | undefined;
  for (const entry of counts.values()) if (best === undefined || entry.count > best.count) best = entry;
  return best?.words;
}

/**
 * `query` with the spelled-out words of each of its acronyms that `text` spells out appended, or `query` itself
 * when there are none.
 *
 * @example
 * withAcronymsSpelledOut('R&D spend?', 'Research and development 7,442') // 'R&D spend?\nresearch development'
 */
export function withAcronymsSpelledOut(query: string, text: string): string {
  const acronyms = queryAcronyms(query);
  if (acronyms.length === 0) return query;
  const words = lowerCaseWords(text);
  const added = acronyms.flatMap((letters) => spelledOutIn(letters, words) ?? []);
  return added.length === 0 ? query : `${query}\n${added.join(' ')}`;
}
