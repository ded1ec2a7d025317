import { describe, expect, it } from 'vitest';
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
