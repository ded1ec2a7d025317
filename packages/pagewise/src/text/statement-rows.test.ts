import { describe, expect, it } from 'vitest';
import { isColumnHeaderLine, isValueLine, statementContexts, statementRowStarts } from './statement-rows.js';

describe('isValueLine', () => {
  it('reads a label followed by two numbers or more as a statement row', () => {
    expect(isValueLine('expenses $ 2,294 $ 1,945 $ 349 18 % $ 6,210')).toBe(true);
    expect(isValueLine('termination cost — — — — % — 1,353 (1,353) (100)%')).toBe(true);
    expect(isValueLine('Research and development expense (7,442) (6,797) (22,608) (19,490)')).toBe(true);
    expect(isValueLine('Hedged items (15 ) 61 20 83')).toBe(true);
  });

  it('does not read prose, a lone number or numbers without a label as one', () => {
    expect(isValueLine('first nine months of fiscal year 2024.')).toBe(false);
    expect(isValueLine('Total $ 2,877')).toBe(false);
    expect(isValueLine('2023 2022 2023 2022')).toBe(false);
    expect(isValueLine('revenue grew 12% in 2023 and 9% in 2024, driven by data centers')).toBe(false);
  });
});

describe('statementRowStarts', () => {
  it('joins wrapped label lines to the value line they end on', () => {
    const lines = [
      'Operating Expenses',
      '($ in millions)',
      'Research and',
      'development',
      'expenses $ 2,294 $ 1,945',
      '% of net revenue 12.7 % 32.8 %',
      'Total operating',
      'expenses $ 2,983 $ 2,576',
    ];
    expect(statementRowStarts(lines)).toEqual([0, 1, 2, 2, 2, 5, 6, 6]);
  });

  it('leaves a capitalised value line, a line with numbers and a heading ending in a colon apart', () => {
    const lines = [
      'Americas:',
      'Net sales $ 35,383 $ 37,472',
      'Change',
      'Research expense 1,000 2,000',
      '2023',
      'x 1 2',
    ];
    expect(statementRowStarts(lines)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('takes at most three lines above the values, and no line another row took', () => {
    const lines = ['Other', 'income', 'net of', 'taxes and', 'fees 1,234 5,678', 'more 9 10'];
    expect(statementRowStarts(lines)).toEqual([0, 1, 1, 1, 1, 5]);
    const stacked = ['Net', 'income 1,234 5,678', 'deferred 12 13'];
    expect(statementRowStarts(stacked)).toEqual([0, 0, 2]);
  });
});

describe('isColumnHeaderLine', () => {
  it('reads periods, dates, years and scales as column headers, not labels or prose', () => {
    for (const line of [
      'Three Months Ended Nine Months Ended',
      'July 1,',
      '2023',
      '(In millions)',
      '($ in millions)',
      'Change %',
    ])
      expect(isColumnHeaderLine(line), line).toBe(true);
    for (const line of ['Raw materials $ 1,055 $ 1,144'.slice(0, 13), 'NOTE 6 — INVENTORIES', 'Americas:'])
      expect(isColumnHeaderLine(line), line).toBe(false);
  });
});

describe('statementContexts', () => {
  it('gives each row of a table the caption and column headers above its first row', () => {
    const lines = [
      'NOTE 6 — INVENTORIES',
      'The components of inventories were as follows:',
      '(In millions)',
      'March 31,',
      '2023',
      'Raw materials $ 1,055 $ 1,144',
      'Work in process 35 82',
      'Total $ 2,877 $ 3,742',
      'The decrease was driven by lower demand for devices across the quarter.',
      'Segment',
      'Net sales 10 20',
    ];
    const contexts = statementContexts(lines, statementRowStarts(lines));
    const table = { caption: [0, 1], headers: [2, 3, 4] };
    expect(contexts.get(5)).toEqual(table);
    expect(contexts.get(6)).toEqual(table);
    expect(contexts.get(7)).toEqual(table);
    expect(contexts.has(8)).toBe(false);
    expect(contexts.get(10)).toEqual({ caption: [9], headers: [] });
  });
});
