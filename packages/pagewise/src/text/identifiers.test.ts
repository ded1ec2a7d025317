import { describe, expect, it } from 'vitest';
import { hasIdentifier, isIdentifierToken } from './identifiers.js';

/** The definition the scanner implements: some token `/[#\w][\w-]*\/gu` matches is an identifier. */
function byTokens(text: string): boolean {
  return [...text.matchAll(/[#\w][\w-]*/gu)].some(([token]) => isIdentifierToken(token));
}

describe('hasIdentifier', () => {
  it('finds ids among words', () => {
    expect(hasIdentifier('Your order #W1234567 has shipped.')).toBe(true);
    expect(hasIdentifier('Call get_order_details with it.')).toBe(true);
    expect(hasIdentifier('the userId field')).toBe(true);
    expect(hasIdentifier('hash 9f86d081884c7d659a2feaa0c55ad015 here')).toBe(true);
    // Twelve hex letters: a hash with no digit, no capital and no separator.
    expect(hasIdentifier('commit deadbeefcafe reverted')).toBe(true);
    expect(hasIdentifier('It was the 4th time in the 1960s.')).toBe(false);
    expect(hasIdentifier('A plain sentence, with commas - and dashes.')).toBe(false);
    expect(hasIdentifier('')).toBe(false);
  });

  it('reads a number with an ordinal, time or unit suffix as no code, in any case, and other mixes as codes', () => {
    for (const token of ['21st', '1960s', '11PM', '250kg', '1200mm', '4000K', '1960ſ'])
      expect(isIdentifierToken(token), token).toBe(false);
    for (const token of ['12ab', '1200mx', 'W123', 'st12']) expect(isIdentifierToken(token), token).toBe(true);
  });

  it('agrees with testing every token, on generated texts', () => {
    const alphabet = 'aZk9_-#. \n\u017f\u212a\u00e9Y0b-_#xQ';
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let trial = 0; trial < 20000; trial += 1) {
      let text = '';
      const length = Math.floor(next() * 24);
      for (let charIndex = 0; charIndex < length; charIndex += 1)
        text += alphabet[Math.floor(next() * alphabet.length)];
      expect(hasIdentifier(text), JSON.stringify(text)).toBe(byTokens(text));
    }
  });
});
