// Tests of title picking: headings first, then the first meaningful line, capped, and safe on hostile input.
import { describe, expect, it } from 'vitest';
import { titleFromText } from './title.js';

describe('titleFromText', () => {
  it('prefers the first Markdown heading, even after other lines', () => {
    expect(titleFromText('intro line\n\n## Setup guide ##\ntext', 'f.md')).toBe('Setup guide');
  });

  it('falls back to the first line with a letter or digit, then to the fallback', () => {
    expect(titleFromText('{\n  "a": 1\n}', 'data.json')).toBe('"a": 1');
    expect(titleFromText('---\n\n', 'notes.txt')).toBe('notes.txt');
  });

  it('caps long titles', () => {
    const title = titleFromText('x'.repeat(500), 'f');
    expect(title.length).toBeLessThanOrEqual(120);
    expect(title.endsWith('…')).toBe(true);
  });

  it('stays fast on a hostile single line', () => {
    const hostile = `# ${' #'.repeat(200_000)}`;
    expect(titleFromText(hostile, 'fallback')).toBe('fallback');
  });
});
