import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../util/random.js';
import { bm25PlusScores, editDistance, type Bm25Terms } from './bm25.js';

const STOP = new Set(['the', 'of', 'and', 'a']);
const TERMS: Bm25Terms = {
  tokenize: (text) => text.split(/[\s\p{P}]+/u).filter(Boolean),
  processTerm: (token) => {
    const lower = token.toLowerCase();
    return STOP.has(lower) ? null : lower;
  },
  prefix: (term) => term.length >= 4,
  fuzzy: (term) => (term.length >= 6 ? 0.15 : false),
};

/** The same scores through minisearch itself, searched as the compressor searched it. */
function miniSearchScores(texts: readonly string[], queries: readonly string[]): number[] {
  const index = new MiniSearch<{ id: number; text: string }>({
    fields: ['text'],
    tokenize: TERMS.tokenize,
    processTerm: TERMS.processTerm,
    searchOptions: { prefix: TERMS.prefix, fuzzy: TERMS.fuzzy, combineWith: 'OR' },
  });
  index.addAll(texts.map((text, id) => ({ id, text })));
  const scores = texts.map(() => 0);
  for (const hit of index.search({ queries: [...queries], combineWith: 'OR' })) scores[hit.id as number] = hit.score;
  return scores;
}

// Words with shared prefixes and near spellings, so prefix and fuzzy matches of several lengths occur.
const WORDS = (
  'the of and a revenue revenues revenued xevenue revenge review reviews operating operation operations operator ' +
  'income incomes incoming outcome company companies kompanies compare comparison compensation segment segments ' +
  'segmented fiscal physical 2019 2020 20192 interest interests interested internal international ' +
  'abcdefghijklmnopq abcdefghijklmnopr abcdefghijklmxyzq writer write writes written wrote W1234567 W1234568'
).split(' ');

function randomText(random: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)]).join(
    random() < 0.5 ? ' ' : ', ',
  );
}

describe('bm25PlusScores', () => {
  it('scores as minisearch does, prefix and fuzzy matches included', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 200; round += 1) {
      const texts = Array.from({ length: 1 + Math.floor(random() * 30) }, () =>
        randomText(random, Math.floor(random() * 25)),
      );
      const queries = [...new Set(randomText(random, 1 + Math.floor(random() * 8)).split(/[\s,]+/u))];
      const ours = bm25PlusScores(texts, queries, TERMS);
      const theirs = miniSearchScores(texts, queries);
      expect(ours.map((s) => s > 0)).toEqual(theirs.map((s) => s > 0));
      // The sums may be taken in another order (the last bit of a sum over several matches).
      ours.forEach((s, i) => expect(s).toBeCloseTo(theirs[i] ?? 0, 12));
    }
  });

  it('gives 0 to every text when no query term occurs, and for no query', () => {
    expect(bm25PlusScores(['alpha beta', 'gamma'], ['delta'], TERMS)).toEqual([0, 0]);
    expect(bm25PlusScores(['alpha beta', 'gamma'], [], TERMS)).toEqual([0, 0]);
    expect(bm25PlusScores([], ['alpha'], TERMS)).toEqual([]);
  });

  it('ranks the text with the rarer query term higher', () => {
    const scores = bm25PlusScores(['the revenue rose', 'revenue and income', 'revenue fell'], ['income'], TERMS);
    expect(scores[1]).toBeGreaterThan(0);
    expect(scores[0]).toBe(0);
  });
});

describe('editDistance', () => {
  const plain = (source: string, target: string): number => {
    const rows = Array.from({ length: source.length + 1 }, (_, rowIndex) =>
      Array.from({ length: target.length + 1 }, (_, column) => (rowIndex === 0 ? column : column === 0 ? rowIndex : 0)),
    );
    for (let rowIndex = 1; rowIndex <= source.length; rowIndex += 1) {
      for (let column = 1; column <= target.length; column += 1) {
        const row = rows[rowIndex] as number[];
        const above = rows[rowIndex - 1] as number[];
        row[column] = Math.min(
          (above[column - 1] ?? 0) + (source[rowIndex - 1] === target[column - 1] ? 0 : 1),
          (above[column] ?? 0) + 1,
          (row[column - 1] ?? 0) + 1,
        );
      }
    }
    return rows[source.length]?.[target.length] ?? 0;
  };

  it('equals the Levenshtein distance up to the limit and exceeds the limit beyond it', () => {
    const random = seededRandom(3);
    const word = (): string =>
      Array.from({ length: 1 + Math.floor(random() * 12) }, () => 'abcde'[Math.floor(random() * 5)]).join('');
    for (let trial = 0; trial < 2000; trial += 1) {
      const [source, target, max] = [word(), word(), Math.floor(random() * 4)];
      const exact = plain(source, target);
      const bounded = editDistance(source, target, max);
      if (exact <= max) expect(bounded).toBe(exact);
      else expect(bounded).toBeGreaterThan(max);
    }
  });
});
