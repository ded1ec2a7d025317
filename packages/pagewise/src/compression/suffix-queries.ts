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
} from './extractive.js';

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
    ids ??= idsOf(head, texts);
    const searches = ids.collect(index);
    return {
      searches: { searches },
      words: () => (words ??= wordsOf(head, texts)).at(index),
    };
  };
}

interface Ids {
  collect(index: number): (readonly Bm25Search[])[];
}

/** Each text's word entries as integer ids, read once. */
function idsOf(head: string, texts: readonly string[]): Ids {
  startSearchGeneration();
  const idOf = new Map<readonly Bm25Search[], number>();
  const entries: (readonly Bm25Search[])[] = [];
  const idsOfText = (text: string): Int32Array => {
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
    return Int32Array.from(out);
  };
  const headIds = idsOfText(head);
  const textIds = texts.map(idsOfText);
  const stamp = new Int32Array(entries.length).fill(-1);
  let generation = 0;
  return {
    collect(index) {
      generation += 1;
      const searches: (readonly Bm25Search[])[] = [];
      const take = (list: Int32Array) => {
        for (const id of list) {
          if (stamp[id] === generation) continue;
          stamp[id] = generation;
          searches.push(entries[id]!);
        }
      };
      take(headIds);
      for (let step = index + 1; step < textIds.length; step++) take(textIds[step]!);
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
