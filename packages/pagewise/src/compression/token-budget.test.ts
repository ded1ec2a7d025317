import { describe, expect, it } from 'vitest';
import { countTokens } from '../tokens/tokenizer.js';
import { fillBudget, refillBudget, topUpBudget, type BudgetItem } from './token-budget.js';

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
