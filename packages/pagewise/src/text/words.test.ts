import { describe, expect, it } from 'vitest';
import { hasCjk, indexTerms, wordTokens } from './words.js';

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

describe('indexTerms', () => {
  it('cuts Japanese at script changes, splits long kanji runs with the dictionary and leaves hiragana out', () => {
    const terms = indexTerms('2023年度の連結営業利益は前年比12.5%増の1,234億円となりました。');
    expect(terms).toEqual(expect.arrayContaining(['2023', '年度', '12.5', '1,234']));
    // The long kanji run is split as the dictionary splits it, not kept whole.
    expect(terms).not.toContain('連結営業利益');
    expect(terms.some((t) => /^\p{Script=Hiragana}+$/u.test(t))).toBe(false);
  });

  it('finds the same terms in a question as in the sentence that answers it', () => {
    const answer = new Set(indexTerms('当期の営業利益は前年比で増加しました。'));
    const question = indexTerms('営業利益はどうなりましたか');
    expect(question.length).toBeGreaterThan(0);
    for (const term of question) expect(answer).toContain(term);
  });

  it('splits spaced scripts as wordTokens does', () => {
    const text = 'Revenue rose 12.5% to $1,234 million, the order_id is #W123.';
    expect(indexTerms(text)).toEqual(wordTokens(text));
  });
});
