import { describe, expect, it } from 'vitest';
import { countTokens } from '../tokens/tokenizer.js';
import {
  fillBudget,
  headWithinTokens,
  lastFitting,
  refillBudget,
  tailWithinTokens,
  topUpBudget,
  type BudgetItem,
} from './token-budget.js';

// Units of very different sizes, in rank order: the long ones first.
const UNITS = [
  'The customer asked twice about the refund for the blue widget order and was told to wait.',
  'A second long note on the account says the card on file expired last spring and was replaced.',
  'USD',
  '#W2575533',
  '2024-05-01',
];
const render = (kept: readonly number[]): string =>
  [...kept]
    .sort((a, b) => a - b)
    .map((i) => UNITS[i])
    .join('\n');
const items: BudgetItem[] = UNITS.map((text, index) => ({ index, cost: countTokens(text) + 1 }));

describe('token budget fill', () => {
  it('tops up the room a long unit leaves with the short units that still fit', () => {
    const budget = countTokens(render([0])) + 8;
    const filled = fillBudget([items[0]!], budget, render);
    expect(filled.kept).toEqual([0]);
    const topped = topUpBudget(filled, items, budget, render);
    expect(topped.tokens).toBeLessThanOrEqual(budget);
    expect(topped.kept.slice(0, 1)).toEqual([0]);
    // The second long unit does not fit; short ones after it do.
    expect(topped.kept).not.toContain(1);
    expect(topped.kept.length).toBeGreaterThan(1);
    expect(topped.text).toBe(render(topped.kept));
  });

  it('stops after the allowed renders', () => {
    const budget = countTokens(render([0, 2, 3, 4]));
    const filled = fillBudget([items[0]!], budget, render);
    expect(topUpBudget(filled, items, budget, render, undefined, 1).kept).toHaveLength(2);
    expect(topUpBudget(filled, items, budget, render, undefined, 0)).toBe(filled);
  });

  it('plans again for more when estimates run high, and stays within the budget', () => {
    // Estimates twice the real cost: a plan within the budget renders at about half of it.
    const padded = items.map((item) => ({ ...item, cost: item.cost * 2 }));
    const budget = countTokens(render([0, 1]));
    const plain = fillBudget(padded, budget, render);
    expect(plain.kept.filter((i) => i < 2)).not.toEqual([0, 1]);
    const again = refillBudget(plain, padded, budget, render);
    // The first-ranked long unit, which the plain plan could not afford, now comes in.
    expect(again.kept).toContain(0);
    expect(again.tokens).toBeGreaterThan(plain.tokens);
    expect(again.tokens).toBeLessThanOrEqual(budget);
    expect(again.text).toBe(render(again.kept));
    expect(refillBudget(plain, padded, budget, render, undefined, 0)).toBe(plain);
  });
});

describe('the one binary search', () => {
  it('finds the last index that fits, the low end standing for nothing when none above it does', () => {
    for (let high = 0; high < 40; high += 1) {
      for (let limit = -1; limit <= high; limit += 1) {
        const probed: number[] = [];
        const found = lastFitting(-1, high, (at) => {
          probed.push(at);
          return at <= limit;
        });
        expect(found).toBe(limit);
        expect(probed.every((at) => at > -1 && at <= high)).toBe(true);
        expect(probed.length).toBeLessThanOrEqual(Math.ceil(Math.log2(high + 2)));
      }
    }
  });

  it('cuts a head and a tail to the longest piece within the tokens, at a code point', () => {
    const text = 'Die Rückerstattung für Bestellung #W2575533 über 48,25 € wurde am 2024-05-01 gebucht 🙂. '.repeat(5);
    for (const max of [1, 5, 17, 40]) {
      const head = headWithinTokens(text, max);
      const tail = tailWithinTokens(text, max);
      expect(countTokens(head)).toBeLessThanOrEqual(max);
      expect(countTokens(tail)).toBeLessThanOrEqual(max);
      expect(text.startsWith(head) && text.endsWith(tail)).toBe(true);
      // One more code point would not fit (BPE counts of longer prefixes do not fall here).
      const next = [...text.slice(head.length)][0] ?? '';
      expect(countTokens(head + next)).toBeGreaterThan(max);
      const before = [...text.slice(0, text.length - tail.length)].at(-1) ?? '';
      expect(countTokens(before + tail)).toBeGreaterThan(max);
    }
  });
});
