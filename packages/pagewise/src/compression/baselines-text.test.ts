import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../tokens/tokenizer.js';
import { randomUnits, tokenDropLingua, truncateHead, truncateTail } from './baselines-text.js';
import { headWithinTokens, tailWithinTokens, tokenBudget } from './token-budget.js';

const text = Array.from(
  { length: 30 },
  (_, i) => `Sentence number ${i} talks about the order #W${1000000 + i} and its refund.`,
).join(' ');

describe('text baselines', () => {
  it('all stay within ⌊τ · inputTokens⌋ on random texts', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 400, unit: 'grapheme' }),
        fc.double({ min: 0.1, max: 0.9, noNaN: true }),
        fc.integer(),
        (input, ratio, seed) => {
          const budget = tokenBudget(countTokens(input), ratio);
          for (const out of [
            truncateHead(input, ratio),
            truncateTail(input, ratio),
            randomUnits(input, ratio, seed),
            tokenDropLingua(input, ratio),
          ]) {
            expect(countTokens(out)).toBeLessThanOrEqual(budget);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('truncateHead and truncateTail keep a prefix and a suffix close to the budget', () => {
    const budget = tokenBudget(countTokens(text), 0.5);
    const head = truncateHead(text, 0.5);
    const tail = truncateTail(text, 0.5);
    expect(text.startsWith(head)).toBe(true);
    expect(text.endsWith(tail)).toBe(true);
    expect(countTokens(head)).toBeGreaterThanOrEqual(budget - 2);
    expect(countTokens(tail)).toBeGreaterThanOrEqual(budget - 2);
  });

  it('randomUnits keeps whole sentences in order and is deterministic per seed', () => {
    const kept = randomUnits(text, 0.4, 7);
    expect(randomUnits(text, 0.4, 7)).toBe(kept);
    expect(randomUnits(text, 0.4, 8)).not.toBe(kept);
    const sentences = kept.split(/(?<=\.) /u);
    let last = -1;
    for (const sentence of sentences) {
      const at = text.indexOf(sentence);
      expect(at).toBeGreaterThan(last);
      last = at;
    }
  });

  it('tokenDropLingua drops stopwords and repeated words before rare ones', () => {
    const out = tokenDropLingua(text, 0.5);
    const words = out.split(/\s+/u);
    for (const stopword of ['the', 'and', 'its']) expect(words).not.toContain(stopword);
    // Each id occurs once, so all of them outrank the words every sentence repeats.
    for (let index = 0; index < 30; index += 1) expect(out).toContain(`#W${1000000 + index}`);
    expect(words.filter((w) => w === 'talks').length).toBeLessThan(30);
    // Kept words are in their original order.
    const original = text.split(/\s+/u);
    let at = -1;
    for (const word of words) {
      at = original.indexOf(word, at + 1);
      expect(at).toBeGreaterThanOrEqual(0);
    }
  });

  it('tokenDropLingua keeps line breaks across dropped words', () => {
    const log = 'alpha beta the\nthe gamma delta\nepsilon zeta the';
    expect(tokenDropLingua(log, 0.8).split('\n').length).toBeGreaterThan(1);
  });
});

describe('token slicing', () => {
  it('never splits a surrogate pair and respects the limit', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'grapheme' }), fc.nat(60), (input, max) => {
        const head = headWithinTokens(input, max);
        const tail = tailWithinTokens(input, max);
        expect(countTokens(head)).toBeLessThanOrEqual(max);
        expect(countTokens(tail)).toBeLessThanOrEqual(max);
        expect(input.startsWith(head) && input.endsWith(tail)).toBe(true);
        expect(/[\uD800-\uDBFF]$/u.test(head)).toBe(false);
      }),
      { numRuns: 100 },
    );
  });
});
