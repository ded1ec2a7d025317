import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergePiece } from './long-pieces.js';
import { countTokens, encodeTokens, type EncodingName } from './tokenizer.js';

const encodings: EncodingName[] = ['o200k_base', 'cl100k_base'];

// Characters from every class the pre-token pattern tells apart, weighted toward the ones that form long
// pre-tokens (whitespace of several kinds, punctuation, `/` and line breaks after punctuation, letters
// with marks, CJK), so generated texts hold long runs of each and the boundaries between them.
const alphabet = [
  ' ',
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\u00a0',
  '\u3000',
  '\u2028',
  '\u200b',
  '/',
  '.',
  '-',
  '—',
  '|',
  '=',
  '"',
  "'s",
  'a',
  'Z',
  'é',
  '\u0301',
  '売',
  'д',
  '7',
  '٣',
  '😀',
];

const run = fc
  .tuple(fc.constantFrom(...alphabet), fc.constantFrom(...alphabet), fc.integer({ min: 1, max: 700 }))
  .map(([a, b, n]) => (n % 3 === 0 ? a.repeat(n) : (a + b).repeat(Math.ceil(n / 2))));
const word = fc.constantFrom('the', ' value', 'Word', ' 2026', '?!', '\n\n', '  ', 'x/y', '<|endoftext|>');
const text = fc.array(fc.oneof(run, word), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''));

describe('issue 31 item 1: token counting is quadratic on runs of whitespace', () => {
  it('counts exactly what the tokenizer encodes, long runs of any class included (property)', () => {
    let salt = 0;
    for (const encoding of encodings) {
      fc.assert(
        fc.property(text, (generated) => {
          // A fresh suffix keeps the text out of the count cache, so it is counted, not looked up.
          salt += 1;
          const fresh = `${generated}#${salt}`;
          expect(countTokens(fresh, encoding)).toBe(encodeTokens(fresh, encoding).length);
          expect(countTokens(generated, encoding)).toBe(encodeTokens(generated, encoding).length);
        }),
        { numRuns: 150, seed: encoding === 'o200k_base' ? 31 : 131 },
      );
    }
  });

  it('merges a long piece to the tokenizer count for every run length up to 2,000', () => {
    for (const unit of [' ', '\n', ' \t', '-', 'a', '\u3000']) {
      for (let length = 256; length <= 2000; length += 181) {
        const piece = unit.repeat(length);
        for (const encoding of encodings)
          expect(mergePiece(piece, encoding).tokens).toBe(encodeTokens(piece, encoding).length);
      }
    }
  });

  // Pushes: one per initial pair and at most two per merge (n - 1 merges at most); pops never exceed pushes.
  const workBound = (bytes: number): number => 6 * bytes;

  it('counts 160,000 spaces (56 s in the quadratic merge) with work linear in the length', () => {
    const length = 160_000;
    const run = ' '.repeat(length - 1);
    const { tokens, heapOperations } = mergePiece(run, 'o200k_base');
    expect(heapOperations).toBeLessThanOrEqual(workBound(length));
    // o200k has tokens of many spaces, so the run ends as a few thousand tokens, never one per space.
    expect(tokens).toBeLessThan(length / 16);
    // The text is that run and " x": the count is the sum, however it is cached or cut.
    expect(countTokens(`${run} x`)).toBe(tokens + encodeTokens(' x').length);
  });

  it('counts 240,000 spaces, whitespace mixes, line breaks and punctuation runs with bounded work', () => {
    for (const piece of [' '.repeat(240_000), ' \t'.repeat(120_000), '\n'.repeat(240_000), '-—'.repeat(120_000)]) {
      for (const encoding of encodings) {
        const { tokens, heapOperations } = mergePiece(piece, encoding);
        expect(heapOperations).toBeLessThanOrEqual(workBound(Buffer.byteLength(piece)));
        expect(countTokens(piece, encoding)).toBe(tokens);
      }
    }
  });
});
