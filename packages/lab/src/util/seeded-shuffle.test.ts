import { seededRandom } from 'pagewise/internal';
import { describe, expect, it } from 'vitest';
import { seededShuffle } from './seeded-shuffle.js';

describe('seededShuffle', () => {
  const items = Array.from({ length: 20 }, (_, index) => index);

  it('returns a permutation and leaves its input alone', () => {
    const shuffled = seededShuffle(items, seededRandom(7));
    expect([...shuffled].sort((a, b) => a - b)).toEqual(items);
    expect(shuffled).not.toEqual(items);
    expect(items[0]).toBe(0);
  });

  it('the same seed gives the same order, another seed another', () => {
    expect(seededShuffle(items, seededRandom(7))).toEqual(seededShuffle(items, seededRandom(7)));
    expect(seededShuffle(items, seededRandom(7))).not.toEqual(seededShuffle(items, seededRandom(8)));
  });
});
