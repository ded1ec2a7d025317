import { describe, expect, it } from 'vitest';
import { renderFencedPages } from '../paging/fence.js';
import { measureCallOptions, splitSystem } from './measure.js';

const INSTRUCTION = 'You analyze reports.\nAnswer with figures.';
const pages = [
  { uri: 'reports/a.md', title: 'A', body: 'Revenue grew 12% to 4.1m.' },
  { uri: 'reports/b.md', title: 'B', body: 'Costs fell.' },
];

describe('splitSystem', () => {
  it('splits a rendered system text at the fenced block the paging service writes', () => {
    const block = renderFencedPages(pages).text;
    const parts = splitSystem(`${INSTRUCTION}\n\n${block}`);
    expect(parts.map((p) => p.part)).toEqual(['instruction', 'paged']);
    expect(parts[0]!.text).toBe(INSTRUCTION);
    expect(parts[1]!.text).toBe(block);
  });

  it('keeps a text without a fenced block as instruction, and an empty text as nothing', () => {
    expect(splitSystem(INSTRUCTION)).toEqual([{ part: 'instruction', text: INSTRUCTION }]);
    expect(splitSystem('')).toEqual([]);
  });

  it('counts paged tokens separately from the instruction in an AI SDK request', () => {
    const block = renderFencedPages(pages).text;
    const withPages = measureCallOptions({
      prompt: [
        { role: 'system', content: `${INSTRUCTION}\n\n${block}` },
        { role: 'user', content: [{ type: 'text', text: 'Go.' }] },
      ],
    });
    const without = measureCallOptions({
      prompt: [
        { role: 'system', content: INSTRUCTION },
        { role: 'user', content: [{ type: 'text', text: 'Go.' }] },
      ],
    });
    expect(withPages.parts.paged).toBeGreaterThan(0);
    expect(withPages.parts.instruction).toBe(without.parts.instruction);
    expect(without.parts.paged).toBe(0);
  });
});
