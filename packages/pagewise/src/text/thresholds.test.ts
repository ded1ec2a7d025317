import { describe, expect, it } from 'vitest';
import { MIN_ACRONYM_LETTERS, spelledOut } from './acronyms.js';
import { isIdentifierToken, joiningIds, MIN_CODE_CHARS, MIN_JOINING_NUMBER_CHARS } from './identifiers.js';
import { isValueCell, MAX_UNIT_LETTERS, MIN_CELL_PER_LINE_LINES, MIN_TABLE_LINES, segmentText } from './segment.js';

// Each named threshold of text/ at its boundary: one side of it behaves one way, the other side the other.

const kinds = (text: string): string[] => segmentText(text, 'auto').map((unit) => unit.kind);

describe('text thresholds at their boundaries', () => {
  it('reads a CSV as a table from MIN_TABLE_LINES lines on', () => {
    const csv = ['name,units,price', 'bench,12,340', 'fountain,1,8200', 'lamp,30,95'];
    expect(kinds(csv.slice(0, MIN_TABLE_LINES).join('\n'))).toContain('row');
    expect(kinds(csv.slice(0, MIN_TABLE_LINES - 1).join('\n'))).not.toContain('row');
  });

  it('reads a value cell with a unit of up to MAX_UNIT_LETTERS letters', () => {
    expect(isValueCell(`12 ${'m'.repeat(MAX_UNIT_LETTERS)}`)).toBe(true);
    expect(isValueCell(`12 ${'m'.repeat(MAX_UNIT_LETTERS + 1)}`)).toBe(false);
  });

  it('reads a table written one cell per line from MIN_CELL_PER_LINE_LINES lines on', () => {
    const cells = ['Revenue', '2,294', '1,945', 'Cost of sales', '1,020', '987'];
    const rows = (count: number) => kinds(cells.slice(0, count).join('\n')).filter((kind) => kind === 'row').length;
    expect(MIN_CELL_PER_LINE_LINES).toBeGreaterThan(2);
    expect(rows(MIN_CELL_PER_LINE_LINES - 1)).toBe(0);
    expect(rows(cells.length)).toBeGreaterThan(0);
  });

  it('spells out acronyms of MIN_ACRONYM_LETTERS letters or more', () => {
    const text = 'Research and development rose; research and development is our main cost.';
    // Letters as queryAcronyms gives them: lower case.
    expect(spelledOut('rd'.slice(0, MIN_ACRONYM_LETTERS), text)).toEqual(['research', 'development']);
    expect(spelledOut('rd'.slice(0, MIN_ACRONYM_LETTERS - 1), text)).toBeUndefined();
  });

  it('takes letter-digit mixes as codes from MIN_CODE_CHARS characters on', () => {
    expect(isIdentifierToken('W12345'.slice(0, MIN_CODE_CHARS))).toBe(true);
    expect(isIdentifierToken('W12345'.slice(0, MIN_CODE_CHARS - 1))).toBe(false);
  });

  it('takes bare numbers as joining ids from MIN_JOINING_NUMBER_CHARS digits on', () => {
    const long = '9'.repeat(MIN_JOINING_NUMBER_CHARS);
    const short = '9'.repeat(MIN_JOINING_NUMBER_CHARS - 1);
    expect([...joiningIds(`order ${long} and ${short} items`)]).toEqual([long]);
  });
});
