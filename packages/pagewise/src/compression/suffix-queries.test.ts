import { describe, expect, it } from 'vitest';
import { wordTokens } from '../text/words.js';
import { searchQuery } from './extractive/search.js';
import { suffixQueries } from './suffix-queries.js';

/** The string the compressor would otherwise be given for step `index`. */
const asString = (head: string, texts: readonly string[], index: number) =>
  [head, texts.slice(index + 1).join('\n')].filter(Boolean).join('\n');

function randomTexts(seed: number, count: number): string[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const vocabulary = ['order', 'refund', '#W1003', 'lamp', 'the', 'of', 'shipped', 'warehouse', 'get_order_details'];
  return Array.from({ length: count }, (_, step) => {
    const lines = 1 + Math.floor(next() * 3);
    return Array.from({ length: lines }, () =>
      Array.from({ length: 1 + Math.floor(next() * 12) }, () =>
        next() < 0.3 ? `id${Math.floor(next() * 40)}` : vocabulary[Math.floor(next() * vocabulary.length)],
      ).join(' '),
    )
      .join('\n')
      .concat(step % 7 === 3 ? '' : ` step${step}`);
  });
}

describe('suffixQueries', () => {
  it('gives every step the searches and the words its query string gives, in the same order', () => {
    for (const seed of [1, 2, 3]) {
      const head = seed === 2 ? '' : 'Refund the lamp of order #W1003.\nThe current objective: the refund.';
      const texts = randomTexts(seed, 120);
      const queries = suffixQueries(head, texts);
      let prepared = 0;
      for (let index = 0; index < texts.length; index++) {
        const text = asString(head, texts, index);
        const query = queries(index);
        if (typeof query === 'string') {
          expect(query).toBe(text);
          continue;
        }
        prepared += 1;
        const expected = searchQuery(text).searches.map((entry) => JSON.stringify(entry));
        expect(query.searches.searches.map((entry) => JSON.stringify(entry))).toEqual(expected);
        const words = new Set(wordTokens(text));
        const set = query.words();
        expect(set.size).toBe(words.size);
        for (const word of words) expect(set.has(word)).toBe(true);
        for (const word of ['absent', 'step999', `step${index}`]) expect(set.has(word)).toBe(words.has(word));
      }
      // Long queries take the prepared path; the short last ones are strings.
      expect(prepared).toBeGreaterThan(60);
      expect(typeof queries(texts.length - 1)).toBe('string');
    }
  });

  it('gives the same searches when steps are asked for out of order, again, or backwards', () => {
    const head = 'Refund the lamp of order #W1003.';
    const texts = randomTexts(7, 150);
    const queries = suffixQueries(head, texts);
    let state = 11;
    const order = [
      ...Array.from({ length: 60 }, () => (state = (state * 48271) % 2147483647) % 100),
      99,
      98,
      98,
      0,
      0,
      149,
      5,
    ];
    for (const index of order) {
      const query = queries(index);
      const text = asString(head, texts, index);
      if (typeof query === 'string') {
        expect(query).toBe(text);
        continue;
      }
      const expected = searchQuery(text).searches.map((entry) => JSON.stringify(entry));
      expect(
        query.searches.searches.map((entry) => JSON.stringify(entry)),
        `step ${index}`,
      ).toEqual(expected);
    }
  });

  it('hands over a query with text segmented whole as its string', () => {
    const texts = [...randomTexts(4, 60), '注文の商品は倉庫にあります', ...randomTexts(5, 60)];
    const queries = suffixQueries('the lamp', texts);
    expect(queries(10)).toBe(asString('the lamp', texts, 10));
    expect(typeof queries(61)).not.toBe('string');
  });
});
