import { describe, expect, it } from 'vitest';
import { closingBracket, jsonDepth, scanJson } from './json-scan.js';

describe('closingBracket', () => {
  it('skips brackets inside strings and escaped quotes', () => {
    const text = '{"a": "}]\\"{", "b": [1, {"c": 2}]} tail';
    expect(closingBracket(text, 0)).toBe(text.indexOf(' tail'));
  });
  it('returns -1 for an unclosed or mismatched container', () => {
    expect(closingBracket('{"a": [1, 2}', 0)).toBe(-1);
    expect(closingBracket('{"a": 1', 0)).toBe(-1);
  });
});

describe('jsonDepth', () => {
  it('counts nesting outside strings, without recursion on deep input', () => {
    expect(jsonDepth('{"a": "[[[[", "b": [[1]]}')).toBe(3);
    expect(jsonDepth('['.repeat(100_000))).toBe(100_000);
  });
});

describe('scanJson', () => {
  it('returns the whole text when it is one container', () => {
    expect(scanJson(' [1, 2] ')).toEqual({ values: [[1, 2]], rest: '' });
  });
  it('finds every outermost object in prose and keeps the text around them', () => {
    const { values, rest } = scanJson('first {"id": 1} then {"id": 2} end');
    expect(values).toEqual([{ id: 1 }, { id: 2 }]);
    expect(rest).toBe('first \n then \n end');
  });
  it('skips an object cut short but keeps complete objects inside it', () => {
    const { values } = scanJson('{"orders": {"W1": {"total": 5}, "W2": {"tot');
    expect(values).toEqual([{ total: 5 }]);
  });
  it('ignores primitives and text without JSON', () => {
    expect(scanJson('42').values).toEqual([]);
    expect(scanJson('no json {here').values).toEqual([]);
  });
});
