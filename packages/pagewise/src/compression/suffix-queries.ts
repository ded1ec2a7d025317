/**
 * The queries of a history pass, prepared together. Each step of a history is compressed against the task and
 * what the steps after it go on to do, so step `i`'s query is the task followed by the texts of steps `i + 1`
 * onwards: made as strings, the queries of a pass are quadratic in the history's length, and so is reading them
 * (the text of a step is split, hashed and looked up once per earlier step). Here each text is read once; a
 * query's searches are its words' entries, collected in order of first occurrence from integer ids, and its words
 * are a membership test over the index of each word's last step. A query that the string path would read
 * differently (a short one, read word by word; one with text segmented whole) is handed over as its string.
 */
import type { Bm25Search } from '../text/bm25.js';
import { hasCjk, needsDictionary, wordTokens } from '../text/words.js';
import {
  LONG_QUERY_CHARS,
  searchesOfLine,
  startSearchGeneration,
  type PreparedQuery,
  type WordSet,
} from './extractive/search.js';

/** The query of step `index`: the step's query as a string, or prepared. */
export type SuffixQuery = (index: number) => string | PreparedQuery;

/**
 * The queries `[head, texts.slice(index + 1).join('\n')].filter(Boolean).join('\n')` for every `index`, each
 * equal in what the compressor makes of it to that string: the same searches in the same order and the same
 * words.
 */
export function suffixQueries(head: string, texts: readonly string[]): SuffixQuery {
  const count = texts.length;
  // Characters of texts.slice(from).join('\n'), and whether any text from there on is segmented whole.
  const charsFrom = new Float64Array(count + 1);
  const wholeFrom = new Uint8Array(count + 1);
  for (let from = count - 1; from >= 0; from--) {
    const text = texts[from]!;
    charsFrom[from] = text.length + (from + 1 < count ? 1 + charsFrom[from + 1]! : 0);
    wholeFrom[from] = wholeFrom[from + 1]! || hasCjk(text) || needsDictionary(text) ? 1 : 0;
  }
  const headWhole = hasCjk(head) || needsDictionary(head);
  const textOf = (index: number): string => [head, texts.slice(index + 1).join('\n')].filter(Boolean).join('\n');
  let ids: Ids | undefined;
  let words: Words | undefined;
  return (index) => {
    const later = charsFrom[index + 1] ?? 0;
    const chars = head.length + later + (head && later > 0 ? 1 : 0);
    if (chars < LONG_QUERY_CHARS || headWhole || wholeFrom[index + 1]) return textOf(index);
    // Collected when first read: a step too small to compress (most of a long history of short results)
    // never reads its query, and collecting one costs the distinct words of every later step.
    let searches: { searches: (readonly Bm25Search[])[] } | undefined;
    return {
      get searches() {
        return (searches ??= { searches: (ids ??= idsOf(head, texts)).collect(index) });
      },
      words: () => (words ??= wordsOf(head, texts)).at(index),
    };
  };
}

interface Ids {
  collect(index: number): (readonly Bm25Search[])[];
}

/**
 * Each text's word entries as integer ids, read once, laid end to end. The entries of the texts after
 * `index`, in order of first occurrence, are the positions from that text's start on whose entry does not
 * occur between that start and them: a bit set of those positions is kept for the last start asked for, and
 * moving the start forward (a pass asks for its steps in order) updates only the positions passed over and
 * the next occurrence of each, so a query costs the words it holds and a scan of the set's words, not a
 * reading of every later position.
 */
function idsOf(head: string, texts: readonly string[]): Ids {
  startSearchGeneration();
  const idOf = new Map<readonly Bm25Search[], number>();
  const entries: (readonly Bm25Search[])[] = [];
  const idsOfText = (text: string): number[] => {
    const out: number[] = [];
    for (const line of text.split('\n')) {
      // Never null: texts segmented whole take the string path.
      for (const entry of searchesOfLine(line) ?? []) {
        let id = idOf.get(entry);
        if (id === undefined) {
          id = entries.length;
          idOf.set(entry, id);
          entries.push(entry);
        }
        out.push(id);
      }
    }
    return out;
  };
  const headIds = idsOfText(head);
  const textIds = texts.map(idsOfText);
  // The texts' ids end to end; `starts[step]` is where text `step` begins, `starts[texts.length]` the end.
  const starts = new Int32Array(texts.length + 1);
  textIds.forEach((ids, step) => (starts[step + 1] = starts[step]! + ids.length));
  const total = starts[texts.length]!;
  const all = new Int32Array(total);
  textIds.forEach((ids, step) => all.set(ids, starts[step]));
  // Each position's previous and next position of the same entry (−1: none).
  const previous = new Int32Array(total);
  const next = new Int32Array(total).fill(-1);
  const lastAt = new Int32Array(entries.length).fill(-1);
  for (let position = 0; position < total; position++) {
    const id = all[position]!;
    previous[position] = lastAt[id]!;
    if (lastAt[id]! >= 0) next[lastAt[id]!] = position;
    lastAt[id] = position;
  }
  const inHead = new Uint8Array(entries.length);
  const headSearches: (readonly Bm25Search[])[] = [];
  for (const id of headIds) {
    if (inHead[id]) continue;
    inHead[id] = 1;
    headSearches.push(entries[id]!);
  }
  // Bit `position` is set when the entry there first occurs there, counting from `from` on.
  const firsts = new Uint32Array((total + 31) >>> 5);
  let from = -1;
  const setBit = (position: number) => (firsts[position >>> 5] = firsts[position >>> 5]! | (1 << (position & 31)));
  const clearBit = (position: number) => (firsts[position >>> 5] = firsts[position >>> 5]! & ~(1 << (position & 31)));
  const startAt = (start: number) => {
    if (from < 0 || start < from) {
      firsts.fill(0);
      for (let position = start; position < total; position++) if (previous[position]! < start) setBit(position);
    } else {
      // The positions passed over leave the set; the next occurrence of each now has none before it.
      for (let position = from; position < start; position++) {
        clearBit(position);
        if (next[position]! >= start) setBit(next[position]!);
      }
    }
    from = start;
  };
  return {
    collect(index) {
      const start = starts[Math.min(index + 1, texts.length)]!;
      startAt(start);
      const searches = headSearches.slice();
      // Only positions from `start` on are set: the words before it were cleared or never set.
      for (let word = start >>> 5; word < firsts.length; word++) {
        let bits = firsts[word]!;
        while (bits !== 0) {
          const lowest = bits & -bits;
          const id = all[(word << 5) + 31 - Math.clz32(lowest)]!;
          if (!inHead[id]) searches.push(entries[id]!);
          bits ^= lowest;
        }
      }
      return searches;
    },
  };
}

interface Words {
  at(index: number): WordSet;
}

/** Each word's last text, so the words of the texts after `index` are a lookup. */
function wordsOf(head: string, texts: readonly string[]): Words {
  const headWords = new Set(wordTokens(head));
  const lastAt = new Map<string, number>();
  texts.forEach((text, step) => {
    for (const word of wordTokens(text)) if (!headWords.has(word)) lastAt.set(word, step);
  });
  // Distinct words not in the head whose last text is at `step` or after.
  const fromStep = new Int32Array(texts.length + 1);
  for (const step of lastAt.values()) fromStep[step] = (fromStep[step] ?? 0) + 1;
  for (let step = texts.length - 1; step >= 0; step--) fromStep[step] = fromStep[step]! + fromStep[step + 1]!;
  return {
    at: (index) => ({
      size: headWords.size + (fromStep[index + 1] ?? 0),
      has: (word) => headWords.has(word) || (lastAt.get(word) ?? -1) > index,
    }),
  };
}
