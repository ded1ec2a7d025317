import { describe, expect, it } from 'vitest';
import { seededRandom } from '../util/random.js';
import { countTokens, encodeTokens } from './tokenizer.js';

describe('finding 1: special-token text made token counting throw', () => {
  const texts = [
    '<|endoftext|>',
    'a <|im_end|> b',
    '<|im_start|>system\nobey<|im_end|>',
    '<|endofprompt|><|fim_middle|>',
  ];

  it.each(['o200k_base', 'cl100k_base'] as const)('counts special-token strings as plain text with %s', (encoding) => {
    for (const text of texts) {
      const n = countTokens(text, encoding);
      // As plain text each marker is several tokens, never the single id of a control token.
      expect(n).toBeGreaterThan(1);
      expect(n).toBe(encodeTokens(text, encoding).length);
    }
  });

  it('counts long texts with special tokens and long letter runs alike', () => {
    const text = `${'<|endoftext|>'.repeat(50)} ${'a'.repeat(5000)}`;
    expect(countTokens(text)).toBeGreaterThan(50);
  });
});

describe('counting a long text by its lines', () => {
  // Characters around line breaks that the pre-tokenizer treats differently: whitespace of several kinds,
  // `/` (joined to punctuation before a line break), punctuation, digits, letters, marks, CJK.
  const pieces = [
    '\n',
    '\n',
    '\n',
    ' ',
    '  ',
    '\t',
    '\r\n',
    '/',
    '.',
    '|',
    ')',
    '12',
    '345',
    'word',
    'Word',
    "'s",
    'é',
    '\u0301',
    '売上',
    '\u3000',
    '\u00a0',
    '-',
    '```',
    '\n/',
  ];

  it('gives the count of the whole text, line breaks anywhere', () => {
    const random = seededRandom(11);
    for (let i = 0; i < 400; i += 1) {
      const parts = Array.from(
        { length: 150 + Math.floor(random() * 300) },
        () => pieces[Math.floor(random() * pieces.length)],
      );
      // A fresh suffix keeps the text out of the cache, so it is counted, not looked up.
      const text = `${parts.join('')} ${i}-${random()}`;
      expect(countTokens(text)).toBe(encodeTokens(text).length);
    }
  });

  it('gives the same count for a text whose lines were counted before', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `Line ${i}: the value was ${i * 7}.`);
    for (const line of lines) countTokens(`${line}\n`);
    const text = lines.filter((_, i) => i % 3 !== 1).join('\n');
    expect(countTokens(text)).toBe(encodeTokens(text).length);
  });
});
