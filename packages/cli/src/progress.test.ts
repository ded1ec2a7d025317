import { describe, expect, it } from 'vitest';
import { progressDisplay } from './progress.js';

describe('progressDisplay off a terminal', () => {
  it('prints a line at the first update and at each further tenth of the total, never one per step', () => {
    const lines: string[] = [];
    const display = progressDisplay('analyze', 'documents read', (line) => lines.push(line), false);
    for (let done = 0; done <= 300; done += 10) display.update(done, 300);
    display.stop();
    expect(lines[0]).toBe('analyze: 0/300 documents read');
    expect(lines.at(-1)).toBe('analyze: 300/300 documents read');
    // 31 updates, one line per tenth reached: 0, 30, 60, …, 300.
    expect(lines).toHaveLength(11);
  });

  it('says what happened last in parentheses', () => {
    const lines: string[] = [];
    progressDisplay('bench report-analysis', 'episodes', (line) => lines.push(line), false).update(
      1,
      2,
      'last: paging, ok',
    );
    expect(lines).toEqual(['bench report-analysis: 1/2 episodes (last: paging, ok)']);
  });
});
