import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { letterUnits, trimToLetterOrDigit } from './characters.js';

const chars = fc.constantFrom('a', 'Z', 'é', '7', '٣', '漢', '𝐀', '😀', ' ', '-', '.', '"', '(', '%', '_', '\u0301');
const texts = fc.array(chars, { maxLength: 10 }).map((parts) => parts.join(''));

describe('letterUnits', () => {
  it('counts the UTF-16 units left once all but letters are removed', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(letterUnits(text)).toBe(text.replace(/[^\p{L}]/gu, '').length);
      }),
    );
    expect(letterUnits('€m')).toBe(1);
    expect(letterUnits('𝐀bc')).toBe(4);
  });
});

describe('trimToLetterOrDigit', () => {
  it('drops what is neither a letter nor a number from both ends only', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(trimToLetterOrDigit(text)).toBe(text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
      }),
    );
    expect(trimToLetterOrDigit('"(well-known)."')).toBe('well-known');
    expect(trimToLetterOrDigit('--')).toBe('');
  });
});
