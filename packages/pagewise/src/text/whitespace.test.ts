import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapseWhitespace, wordRuns } from './whitespace.js';

describe('collapseWhitespace', () => {
  it('cuts trailing spaces and keeps one blank line between paragraphs, none at the ends', () => {
    expect(collapseWhitespace('\n\nFirst.   \r\n\r\n  \r\n\nSecond.\n \n')).toBe('First.\n\nSecond.');
  });

  it('keeps whitespace inside a line: indentation, aligned columns, empty table cells', () => {
    const text = 'def f():\n    return 1\nPID   USER   CMD\n1     root   init\n|  | 2019 |';
    expect(collapseWhitespace(text)).toBe(text);
  });

  it('keeps tabs, which separate the cells of a TSV row, a trailing empty one included', () => {
    expect(collapseWhitespace('name\tamount\t\nMarco Vitiello\t42\t')).toBe('name\tamount\t\nMarco Vitiello\t42\t');
  });

  it('keeps every word, value and CJK character in its order', () => {
    const text = '  - order #W2575533 paid -2580.0   \n\n\n\n    売上高は12億円　\n';
    const out = collapseWhitespace(text);
    expect(out).toBe('  - order #W2575533 paid -2580.0\n\n    売上高は12億円　');
    expect(out.split(/\s+/u).filter(Boolean)).toEqual(text.split(/\s+/u).filter(Boolean));
  });
});

describe('wordRuns', () => {
  it('finds each run without white space where it starts', () => {
    const pieces = fc.constantFrom('a', 'bc', '漢', '😀', ' ', '  ', '\n', '\t', '\u3000', '\u00a0', '\ufeff', '-');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 10 }), (parts) => {
        const text = parts.join('');
        const expected = [...text.matchAll(/\S+/gu)].map((match) => ({ start: match.index, word: match[0] }));
        expect(wordRuns(text)).toEqual(expected);
      }),
    );
    expect(wordRuns(' a  bc\n')).toEqual([
      { start: 1, word: 'a' },
      { start: 4, word: 'bc' },
    ]);
  });
});
