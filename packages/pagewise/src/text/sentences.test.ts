import { describe, expect, it } from 'vitest';
import { sentenceSpans, splitSentences } from './sentences.js';

describe('splitSentences', () => {
  it('keeps abbreviations, initials, acronyms and decimals inside a sentence', () => {
    expect(
      splitSentences(
        'Herbert L. Kessler met Dr. Weitzmann (Ph.D. 1965) in the U.S. in 1970. Sales rose 3.5% to $1.2 billion.',
      ),
    ).toEqual([
      'Herbert L. Kessler met Dr. Weitzmann (Ph.D. 1965) in the U.S. in 1970.',
      'Sales rose 3.5% to $1.2 billion.',
    ]);
  });

  it('cuts Japanese and Chinese text at 。！？', () => {
    expect(splitSentences('売上高は前年比12.5%増の3,450億円でした。営業利益は減少しました！今後は？')).toEqual([
      '売上高は前年比12.5%増の3,450億円でした。',
      '営業利益は減少しました！',
      '今後は？',
    ]);
    expect(splitSentences('营业收入为12.5亿元。净利润下降。')).toHaveLength(2);
  });

  it('returns trimmed offsets into the text', () => {
    const text = 'xx  One. Two.  yy';
    const spans = sentenceSpans(text, 4, 13);
    expect(spans.map((s) => text.slice(s.start, s.end))).toEqual(['One.', 'Two.']);
  });
});
