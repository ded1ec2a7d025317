import { describe, expect, it } from 'vitest';
import { hasCjk, wordTokens } from './words.js';

describe('wordTokens', () => {
  it('splits Japanese text without spaces into several words and keeps numbers whole', () => {
    const words = wordTokens('売上高は前年比12.5%増の1,234億円となりました。');
    expect(words.length).toBeGreaterThan(5);
    expect(words).toContain('12.5');
    expect(words).toContain('1,234');
    expect(words.join('')).not.toContain('。');
  });

  it('lower-cases English words and drops punctuation', () => {
    expect(wordTokens('Revenue rose, Sharply!')).toEqual(['revenue', 'rose', 'sharply']);
  });

  it('tells CJK text from Latin text', () => {
    expect(hasCjk('営業利益')).toBe(true);
    expect(hasCjk('operating income')).toBe(false);
  });
});
