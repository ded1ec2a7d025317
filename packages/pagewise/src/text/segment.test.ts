import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinUnits, segmentText } from './segment.js';

const texts = (text: string, mode: 'sentence' | 'line' | 'auto', headings = false): string[] =>
  segmentText(text, mode, { headings }).map((u) => u.text);

describe('segmentText', () => {
  it('cuts prose into sentences, keeping initials, abbreviations and dotted acronyms inside', () => {
    const prose =
      'Herbert L. Kessler studied at Chicago (A.B. 1961) and Princeton (Ph.D. 1965). He met Mr. Weitzmann there! Did he? yes, e.g. twice.';
    expect(texts(prose, 'sentence')).toEqual([
      'Herbert L. Kessler studied at Chicago (A.B. 1961) and Princeton (Ph.D. 1965).',
      'He met Mr. Weitzmann there!',
      'Did he? yes, e.g. twice.',
    ]);
  });

  it('cuts structured runs into lines in auto mode and prose into sentences', () => {
    const text = 'Intro one. Intro two.\n\nid: 7\nstatus: shipped\ntotal: 12.50';
    expect(texts(text, 'auto')).toEqual(['Intro one.', 'Intro two.', 'id: 7', 'status: shipped', 'total: 12.50']);
    expect(segmentText(text, 'auto').map((u) => u.block)).toEqual([0, 0, 1, 1, 1]);
  });

  it('reads hard-wrapped prose as sentences', () => {
    const text =
      'The service restarted after the configuration change was applied to every\nnode in the cluster. Requests were drained first so that no client saw an\nerror during the rollout of the new version.';
    expect(texts(text, 'auto')).toHaveLength(2);
  });

  it('makes markdown headers and paragraph labels headings, with units under them', () => {
    const text =
      '# Orders\n\n## Open\n- #W1 pending\n- #W2 pending\n\nMichael Jackson (writer): He wrote about beer. He was English.';
    const units = segmentText(text, 'auto', { headings: true });
    expect(units.map((u) => [u.kind, u.text])).toEqual([
      ['heading', '# Orders'],
      ['heading', '## Open'],
      ['line', '- #W1 pending'],
      ['line', '- #W2 pending'],
      ['heading', 'Michael Jackson (writer):'],
      ['sentence', 'He wrote about beer.'],
      ['sentence', 'He was English.'],
    ]);
    expect(units[1]?.heading).toBe(0);
    expect(units[2]?.heading).toBe(1);
    expect(units[5]?.heading).toBe(4);
    // Without headings the label stays in the first sentence.
    expect(texts('Michael Jackson (writer): He wrote about beer. He was English.', 'auto')[0]).toBe(
      'Michael Jackson (writer): He wrote about beer.',
    );
  });

  it('cuts long lines of a line-structured run into sentences', () => {
    const long = `note: ${'This sentence is long enough to matter. '.repeat(10).trim()}`;
    const units = segmentText(`a: 1\nb: 2\n${long}`, 'line');
    expect(units.length).toBeGreaterThan(3);
  });

  it('returns exact substrings, and joining all units keeps every unit verbatim', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom('Alpha.', 'beta', 'Gamma!', '#W12345', 'id: 4', '\n', '\n\n', '# H', 'Mr.', 'x?'),
            fc.string(),
          ),
          { maxLength: 40 },
        ),
        fc.constantFrom('sentence' as const, 'line' as const, 'auto' as const),
        fc.boolean(),
        (parts, mode, headings) => {
          const text = parts.join(' ');
          const units = segmentText(text, mode, { headings });
          let last = 0;
          for (const unit of units) {
            expect(text.slice(unit.start, unit.end)).toBe(unit.text);
            expect(unit.start).toBeGreaterThanOrEqual(last);
            expect(unit.text.trim()).not.toBe('');
            last = unit.end;
          }
          const joined = joinUnits(
            text,
            units,
            units.map((u) => u.index),
          );
          for (const unit of units) expect(joined).toContain(unit.text);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('joinUnits', () => {
  it('keeps original whitespace between neighbours and separates across gaps', () => {
    const text = 'One. Two. Three.\n\nFour.\nFive';
    const units = segmentText(text, 'sentence');
    expect(units.map((u) => u.text)).toEqual(['One.', 'Two.', 'Three.', 'Four.', 'Five']);
    expect(joinUnits(text, units, [0, 2])).toBe('One. Three.');
    expect(joinUnits(text, units, [2, 3])).toBe('Three.\n\nFour.');
    expect(joinUnits(text, units, [0, 4])).toBe('One.\n\nFive');
  });
});

describe('segmentText: tables and chats', () => {
  const kinds = (text: string): [string, string, number[]][] =>
    segmentText(text, 'auto').map((u) => [u.kind, u.text, [...(u.requires ?? [])]]);

  it('makes markdown rows units that require the header rows, a label-less second header row included', () => {
    const text = '| Item | | |\n| --- | --- | --- |\n| | 2019 | 2018 |\n| Revenue | 120 | 100 |\n| Cost | 80 | 70 |';
    expect(kinds(text)).toEqual([
      ['header', '| Item | | |', []],
      ['header', '| --- | --- | --- |', []],
      ['header', '| | 2019 | 2018 |', []],
      ['row', '| Revenue | 120 | 100 |', [0, 1, 2]],
      ['row', '| Cost | 80 | 70 |', [0, 1, 2]],
    ]);
  });

  it('groups a one-cell-per-line table into label rows under its header lines', () => {
    const text = 'Year ended\n2019 €m\n2018 €m\nDefined benefit\n57\n44\nTotal charged (note 23)\n223\n222';
    expect(kinds(text)).toEqual([
      ['header', 'Year ended\n2019 €m\n2018 €m', []],
      ['row', 'Defined benefit\n57\n44', [0]],
      ['row', 'Total charged (note 23)\n223\n222', [0]],
    ]);
  });

  it('reads CSV and whitespace-aligned tables by rows', () => {
    expect(kinds('name,2019,2018\nRevenue,120,100\n"Cost, net",80,70').map(([k]) => k)).toEqual([
      'header',
      'row',
      'row',
    ]);
    expect(
      kinds('              2019     2018\nRevenue        120      100\nCost            80       70').map(([k]) => k),
    ).toEqual(['header', 'row', 'row']);
  });

  it('keeps a speaker label with every sentence of a long chat turn, and short turns whole', () => {
    const long = `Assistant: ${'The plan has several steps to follow. '.repeat(5).trim()}`;
    const units = segmentText(`User: Hi there.\n${long}\nUser: Thanks.`, 'auto');
    expect(units[0]).toMatchObject({ kind: 'line', text: 'User: Hi there.' });
    expect(units[1]).toMatchObject({ kind: 'label', text: 'Assistant:' });
    const sentences = units.filter((u) => u.kind === 'sentence');
    expect(sentences).toHaveLength(5);
    for (const sentence of sentences) expect(sentence.requires).toEqual([1]);
    expect(units[units.length - 1]).toMatchObject({ kind: 'line', text: 'User: Thanks.' });
  });
});

describe('segmentText on extracted report pages', () => {
  it('reads a cell-per-line table between long lines, each value with its row label', () => {
    const page = [
      'The following table sets forth our consolidated results of operations for the periods presented, in millions of dollars (1)',
      'Year ended December 31',
      '2023',
      '2022',
      'Revenue',
      '4,120',
      '3,877',
      'Net income (2)',
      '-2580.0',
      '312',
      '(1) Amounts may not add up due to rounding, and include the results of acquired businesses from their acquisition dates.',
    ].join('\n');
    const units = segmentText(page, 'auto');
    const net = units.find((u) => u.text.startsWith('Net income'));
    expect(net?.kind).toBe('row');
    expect(net?.text).toBe('Net income (2)\n-2580.0\n312');
    expect(net?.requires?.map((r) => units[r]?.text).join('\n')).toContain('2023');
  });
});
