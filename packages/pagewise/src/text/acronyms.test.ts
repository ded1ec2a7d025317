import { describe, expect, it } from 'vitest';
import { queryAcronyms, spelledOut, withAcronymsSpelledOut } from './acronyms.js';

describe('queryAcronyms', () => {
  it('reads acronyms written with an ampersand or in capitals, not capitalised words', () => {
    expect(queryAcronyms("How did Apple's R&D and PP&E change? What was EPS?")).toEqual(['rd', 'ppe', 'eps']);
    expect(queryAcronyms('What did Apple Inc. say In March?')).toEqual([]);
    expect(queryAcronyms('Is the US market up?')).toEqual([]);
  });
});

describe('spelledOut', () => {
  it('finds the run of words whose initials spell the acronym, connectors between them', () => {
    expect(spelledOut('rd', 'Operating expenses\nResearch and development $ 7,442')).toEqual([
      'research',
      'development',
    ]);
    expect(spelledOut('ppe', 'Purchases of property, plant and equipment (2,102)')).toEqual([
      'property',
      'plant',
      'equipment',
    ]);
    expect(spelledOut('sga', 'Selling, general and administrative 5,973')).toEqual([
      'selling',
      'general',
      'administrative',
    ]);
  });

  it('takes the run the text uses most, and none when the text has none', () => {
    const text = 'Revenue declined. Research and development rose; research and development leads. Ruled done.';
    expect(spelledOut('rd', text)).toEqual(['research', 'development']);
    expect(spelledOut('rd', 'Net sales rose in every region.')).toBeUndefined();
    expect(spelledOut('r', 'Research')).toBeUndefined();
  });
});

describe('withAcronymsSpelledOut', () => {
  it('appends what the text spells out, and leaves a query without acronyms as it is', () => {
    const page = 'Research and\ndevelopment\nexpenses $ 2,294 $ 1,945';
    expect(withAcronymsSpelledOut('How did R&D spending change?', page)).toBe(
      'How did R&D spending change?\nresearch development',
    );
    expect(withAcronymsSpelledOut('How did spending change?', page)).toBe('How did spending change?');
    expect(withAcronymsSpelledOut('What was EPS?', page)).toBe('What was EPS?');
  });
});
