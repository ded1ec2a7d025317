import { describe, expect, it } from 'vitest';
import { queryTerms } from './query-terms.js';

describe('queryTerms', () => {
  it('drops stop words and question boilerplate, keeps the words and numbers that matter', () => {
    expect(queryTerms('What was the amount of total sales in 2019?')).toEqual(['total', 'sales', '2019']);
  });

  it('splits Japanese questions into words and drops particles', () => {
    const terms = queryTerms('2023年の売上高はいくらですか');
    expect(terms).toContain('売上');
    expect(terms).toContain('2023');
    expect(terms).not.toContain('の');
    expect(terms).not.toContain('いくら');
  });

  it('falls back to every word when all are common', () => {
    expect(queryTerms('What is it?')).toEqual(['what', 'is', 'it']);
  });
});
