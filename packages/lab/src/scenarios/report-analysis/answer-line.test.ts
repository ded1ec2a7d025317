/**
 * The one-line answer on PDFs written here and read as `analyze` reads a folder: stated when one table row fits the
 * question in the named company's filing and the year's column, absent when two rows or two periods fit.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerLine, fittingRows } from './answer-line.js';
import { findPassages } from './passages.js';
import { folderCorpus, runReportAnalysis } from './run.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-answer-line-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function writePdf(file: string, pages: string[][]): Promise<void> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([612, 792]);
    lines.forEach((line, i) => page.drawText(line, { x: 40, y: 750 - i * 14, size: 8, font }));
  }
  writeFileSync(file, await doc.save());
}

const cover = (company: string, year: number) => [
  'FORM 10-K',
  `ANNUAL REPORT For the fiscal year ended December 31, ${year}`,
  company,
];
const cashFlows = [
  'Cash flows from investing activities',
  '(in millions) 2022 2021 2020',
  'Capital expenditure (1,577) (1,501) (1,390)',
  'Proceeds from sale of businesses 2,221 15 18',
];

/** A folder holding the named company's filing (with `extra` pages) and another company's, and the answer text. */
async function ask(name: string, question: string, extra: string[][] = []): Promise<string> {
  const folder = path.join(dir, name);
  mkdirSync(folder);
  await writePdf(path.join(folder, 'ACME_2022_10K.pdf'), [
    cover('Acme Industries', 2022),
    ['Business. Acme Industries makes valves and pumps for water utilities.'],
    cashFlows,
    ...extra,
  ]);
  await writePdf(path.join(folder, 'ZENITH_2022_10K.pdf'), [
    cover('Zenith Foods', 2022),
    ['(in millions) 2022 2021', 'Capital expenditure 480 455'],
  ]);
  const result = await runReportAnalysis({ corpus: await folderCorpus(folder), question });
  return result.text;
}

describe('the one-line answer', () => {
  it('states the value, its unit and its page when one row of the named filing fits the year', async () => {
    const text = await ask('one', 'What was Acme capital expenditure in FY2022?');
    const lines = text.split('\n');
    const at = lines.findIndex((line) => line.startsWith('Answer: '));
    expect(lines[at]).toBe('Answer: Acme 2022 Capital expenditure: (1,577) million (ACME_2022_10K.pdf#3)');
    // Before the passages, which still follow.
    expect(lines.findIndex((line) => line.startsWith('1. ['))).toBeGreaterThan(at);
    const other = await ask('other-year', 'What was Acme capital expenditure in FY2021?');
    expect(other).toContain('Answer: Acme 2021 Capital expenditure: (1,501) million (ACME_2022_10K.pdf#3)');
  });

  it('gives no line when two rows fit', async () => {
    const segments = ['Segment cash flows (in millions) 2022 2021', 'Capital expenditure 912 870'];
    const text = await ask('two-rows', 'What was Acme capital expenditure in FY2022?', [segments]);
    // Both rows were read and are quoted; neither is stated as the answer.
    expect(text).toContain('[ACME_2022_10K.pdf#3] Capital expenditure');
    expect(text).toContain('[ACME_2022_10K.pdf#4] Capital expenditure');
    expect(text).not.toMatch(/^Answer: /m);
  });

  it('gives no line when two periods fit, or the question asks for a computed figure', async () => {
    const both = await ask('two-periods', 'What was Acme capital expenditure in 2021 and 2022?');
    expect(both).toContain('Capital expenditure');
    expect(both).not.toMatch(/^Answer: /m);
    const change = await ask('change', 'What was the change in Acme capital expenditure in 2022?');
    expect(change).not.toMatch(/^Answer: /m);
  });

  it('needs the label said word for word and the row in the leading document', () => {
    const row = (citation: string, label: string) => ({
      citation,
      text: `${label}: 2019: 10 | 2018: 9`,
      score: 1,
      row: { label, values: ['10', '9'], columns: ['2019', '2018'] },
    });
    const total = row('ACME_2019_10K.pdf#4', 'Total assets');
    const other = row('ACME_2019_10K.pdf#5', 'Total other assets');
    const question = 'For Acme, what was the Total other assets in 2019?';
    expect(answerLine(question, [other], [total, other])).toBe(
      'Answer: Acme 2019 Total other assets: 10 (ACME_2019_10K.pdf#5)',
    );
    const elsewhere = row('ZENITH_2019_10K.pdf#2', 'Total other assets');
    expect(answerLine('For Acme, what was the Total other assets in 2019?', [other], [elsewhere])).toBeUndefined();
    expect(answerLine('For Acme, what was the Total other assets in 2020?', [other], [other])).toBeUndefined();
  });

  describe('on a 10-Q laid out as published filings print it', () => {
    // A filing named by its ticker; its pages name the company. Headers spread over lines, one date a line.
    const income = [
      'ACME CORPORATION',
      'CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS (Unaudited)',
      '(In millions, except per share data)',
      'Three Months Ended Six Months Ended',
      'June 29, July 1, June 29, July 1,',
      '2024 2023 2024 2023',
      'Net sales $ 13,507 $ 6,704 $ 20,699 $ 14,992',
      'Research and development 2,040 1,824 3,916 3,443',
      'Net income $ 6,188 $ (656) $ 8,232 $ 2,274',
      'Net income per share:',
      'Basic $ 2.50 $ 0.26 $ 3.33 $ 0.91',
      'Diluted $ 2.48 $ 0.26 $ 3.30 $ 0.90',
    ];
    const cash = [
      'ACME CORPORATION',
      'CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS (Unaudited)',
      '(In millions)',
      'Six Months Ended',
      'June 29,',
      '2024',
      'July 1,',
      '2023',
      'Operating activities:',
      'Net income 8,232 2,274',
      'Inventories (1,807) 681',
      'Cash generated by operating activities 34,005 46,966',
      'Investing activities:',
      'Payments for acquisition of property, plant and equipment (3,787) (2,803)',
      'Acquisition of companies, net of cash acquired, and purchases of intangible and other',
      'assets (349) (1,206)',
    ];
    let folder: string;
    const answerOf = async (question: string) =>
      (await runReportAnalysis({ corpus: await folderCorpus(folder), question })).text;

    beforeAll(async () => {
      folder = path.join(dir, 'ten-q');
      mkdirSync(folder);
      await writePdf(path.join(folder, '2024 Q2 ACME.pdf'), [
        ['FORM 10-Q', 'For the quarterly period ended June 29, 2024', 'Acme Corporation'],
        ['Acme designs and sells instruments.'],
        income,
        cash,
      ]);
    });

    it('states the value of the one row the measure maps to, for the quarter asked, with its scale', async () => {
      // "capital expenditure" is printed "Payments for acquisition of property, plant and equipment".
      expect(await answerOf("What was Acme's capital expenditure as reported in the Q2 2024 10-Q?")).toContain(
        'Answer: Acme Payments for acquisition of property, plant and equipment, Six Months Ended June 29, 2024: (3,787) million (2024 Q2 ACME.pdf#4)',
      );
      // Three and six months both end in 2024: a quarter is the three months. The row stated leads the passages.
      const rd = await answerOf("What was Acme's R&D expenditure in Q2 2024?");
      expect(rd).toContain(
        'Answer: Acme Research and development, Three Months Ended June 29, 2024: 2,040 million (2024 Q2 ACME.pdf#3)',
      );
      expect(rd).toMatch(/^1\. \[2024 Q2 ACME\.pdf#3\] Research and development: /m);
      // A per-share figure of a table "in millions, except per share data" is in dollars.
      expect(await answerOf("What was Acme's diluted EPS for the latest quarter?")).toContain(
        'Answer: Acme Diluted, Three Months Ended June 29, 2024: $2.48 (2024 Q2 ACME.pdf#3)',
      );
    });

    it('gives no line on a guess: two periods, two rows, another statement, a qualified measure', async () => {
      // A quarter asked as a period, where the statement prints six months only.
      expect(await answerOf("What was Acme's capital expenditure in Q2 2024?")).not.toMatch(/^Answer: /m);
      // 2024 without a quarter: the three and the six months both fit.
      expect(await answerOf("What was Acme's research and development expense in 2024?")).not.toMatch(/^Answer: /m);
      // Net income is a row of both statements, with two values for 2024.
      expect(await answerOf("What was Acme's net income in 2024?")).not.toMatch(/^Answer: /m);
      // Inventories on the balance sheet are asked; the cash flow statement prints only their change.
      const inventories = await answerOf("What were Acme's inventories in Q2 2024?");
      expect(inventories).toContain('Inventories');
      expect(inventories).not.toMatch(/^Answer: /m);
      // One segment's revenue is not the total the row prints.
      expect(await answerOf("What was Acme's Services revenue in Q2 2024?")).not.toMatch(/^Answer: /m);
      // A question whether, of the measure and quarter that are stated when asked what: yes or no is no figure.
      expect(await answerOf('Did Acme report R&D expenditure in Q2 2024?')).not.toMatch(/^Answer: /m);
      // A breakdown asks for the parts: the total's one row, stated when the total is asked, is not the answer.
      expect(await answerOf("What was Acme's revenue in Q2 2024?")).toMatch(/^Answer: Acme Net sales, Three Months/m);
      expect(await answerOf("What was the breakdown of Acme's revenue in Q2 2024?")).not.toMatch(/^Answer: /m);
      expect(await answerOf("What was Acme's revenue by segment in Q2 2024?")).not.toMatch(/^Answer: /m);
      // A question for what made the figure: a reason, not the figure.
      expect(await answerOf("What were the main contributors to Acme's revenue in Q2 2024?")).not.toMatch(/^Answer: /m);
      expect(await answerOf("What were the principal influences on Acme's net sales in Q2 2024?")).not.toMatch(
        /^Answer: /m,
      );
      // A measure qualified by a word before it, capitalized or not, is a part of the total the row prints.
      expect(await answerOf("What was Acme's services revenue in Q2 2024?")).not.toMatch(/^Answer: /m);
      expect(await answerOf("What was Acme's product net sales in Q2 2024?")).not.toMatch(/^Answer: /m);
      expect(await answerOf('What was the AWS segment revenue of Acme in Q2 2024?')).not.toMatch(/^Answer: /m);
    });

    it("states a fiscal quarter's figure from the filing the file name gives that quarter, and only from it", async () => {
      // A fiscal year that starts in October: the first quarter of 2023 ends on December 31, 2022.
      const fiscal = path.join(dir, 'fiscal');
      mkdirSync(fiscal);
      await writePdf(path.join(fiscal, '2023 Q1 FRUIT.pdf'), [
        ['FORM 10-Q', 'For the quarterly period ended December 31, 2022', 'Fruit Inc.'],
        [
          'FRUIT INC.',
          'CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS (Unaudited)',
          '(In millions)',
          'Three Months Ended',
          'December 31, December 25,',
          '2022 2021',
          'Net sales $ 117,154 $ 123,945',
          'Research and development 7,709 6,306',
        ],
      ]);
      const answer = async (question: string) =>
        (await runReportAnalysis({ corpus: await folderCorpus(fiscal), question })).text;
      expect(
        await answer('In the first quarter of 2023, how much did Fruit spend on research and development?'),
      ).toContain('Answer: Fruit Research and development, Three Months Ended December 31, 2022: 7,709 million');
      // The same quarter a year before is the comparison column, however the calendar years fall.
      expect(await answer('How much did Fruit spend on research and development in Q1 2022?')).toContain(
        'Answer: Fruit Research and development, Three Months Ended December 25, 2021: 6,306 million',
      );
      // Another quarter than the file name's is not this filing's: no column is asked for.
      expect(await answer('How much did Fruit spend on research and development in Q2 2023?')).not.toMatch(
        /^Answer: /m,
      );
    });

    it("states one segment's measure from the row that names the segment under the measure, or the other way round", async () => {
      const segments = path.join(dir, 'segments');
      mkdirSync(segments);
      await writePdf(path.join(segments, '2024 Q2 ACME.pdf'), [
        ['FORM 10-Q', 'For the quarterly period ended June 29, 2024', 'Acme Corporation'],
        income,
        [
          'Segment revenue and operating income were as follows:',
          '(In millions)',
          'Three Months Ended Six Months Ended',
          'June 29, July 1, June 29, July 1,',
          '2024 2023 2024 2023',
          'Revenue',
          'Devices $ 9,000 $ 4,000 $ 14,000 $ 10,000',
          'Cloud Services 4,507 2,704 6,699 4,992',
          'Operating Income',
          'Devices 3,000 1,000 4,000 2,000',
          'Cloud Services 1,200 900 2,100 1,500',
        ],
      ]);
      await writePdf(path.join(segments, '2024 Q2 ZETA.pdf'), [
        ['FORM 10-Q', 'For the quarterly period ended June 30, 2024', 'Zeta Inc.'],
        [
          'Information on reportable segments is as follows (in millions):',
          'Three Months Ended June 30,',
          '2024 2023',
          'North America',
          'Net sales $ 60,000 $ 55,000',
          'Operating income $ 3,000 $ 2,000',
          'AWS',
          'Net sales $ 26,000 $ 22,000',
          'Operating income $ 9,000 $ 5,000',
        ],
      ]);
      const answer = async (question: string) =>
        (await runReportAnalysis({ corpus: await folderCorpus(segments), question })).text;
      expect(
        await answer("How much of Acme's total revenue came from its Cloud Services segment in Q2 2024?"),
      ).toContain(
        'Answer: Acme Cloud Services revenue, Three Months Ended June 29, 2024: 4,507 million (2024 Q2 ACME.pdf#3)',
      );
      // The measure under the segment's heading, not the segment's other rows.
      expect(await answer("What was the revenue of Zeta's AWS segment in Q2 2024?")).toContain(
        'Answer: Zeta AWS net sales, Three Months Ended June 30, 2024: $26,000 million (2024 Q2 ZETA.pdf#2)',
      );
      expect(await answer('What was the operating income of the Devices segment of Acme in Q2 2024?')).toContain(
        'Answer: Acme Devices operating income, Three Months Ended June 29, 2024: 3,000 million',
      );
      // No line on a guess: 2024 holds the three and the six months; a segment no row names; a breakdown.
      expect(await answer("What was Acme's Cloud Services segment revenue in 2024?")).not.toMatch(/^Answer: /m);
      expect(await answer("What was Acme's Robotics segment revenue in Q2 2024?")).not.toMatch(/^Answer: /m);
      expect(await answer("What was Acme's revenue by segment in Q2 2024?")).not.toMatch(/^Answer: /m);
      // "Acme Devices" may be the company's name: without "segment" the other name is no part asked of.
      expect(await answer("What was Acme Devices' revenue in Q2 2024?")).not.toMatch(/^Answer: .*9,000/m);
      // Two segments asked: one segment's row is half the answer.
      expect(await answer("What was the revenue of Zeta's retail and AWS segments in Q2 2024?")).not.toMatch(
        /^Answer: /m,
      );
    });

    it("gives no segment line when a statement line and a note disagree, or the rows' heading is unclear", () => {
      const head = ['(In millions)', 'Three Months Ended', 'June 29, 2024 July 1, 2023'];
      const income = ['CONDENSED CONSOLIDATED STATEMENTS OF INCOME', ...head, 'Revenue', 'Products $ 9,000 $ 4,000'];
      const note = ['Segment information', ...head, 'Revenue', 'Hardware $ 7,500 $ 3,000'];
      const line = (question: string, pages: string[][]) => {
        const sources = pages.map((lines, at) => ({ uri: `2024 Q2 ACME.pdf#${at + 3}`, body: lines.join('\n') }));
        const passages = findPassages(question, sources, 20);
        return answerLine(question, passages, fittingRows(question, passages));
      };
      // Services: 4,000 on the income statement, 5,500 in the segment note.
      const services = "What was the revenue of Acme's Services segment in Q2 2024?";
      expect(
        line(services, [
          [...income, 'Services 4,000 3,000'],
          [...note, 'Services 5,500 4,000'],
        ]),
      ).toBeUndefined();
      expect(line(services, [[...note, 'Services 5,500 4,000']])).toMatch(
        /^Answer: Acme Services revenue, .*: 5,500 million/,
      );
      // Rows under a heading that is not read ("Operating income (loss)") are not the revenue rows above it.
      const unclear = [...note, 'Operating income (loss)', 'Hardware 3,000 1,000', 'Corporate Unallocated (500) (400)'];
      expect(
        line("What was the revenue of Acme's Corporate Unallocated segment in Q2 2024?", [unclear]),
      ).toBeUndefined();
    });

    it('reads the periods of a row that ends with a change its header does not name, and quotes the change', () => {
      const mdna = [
        '(In millions, except percentages) 2024 2023 Percentage Change',
        'Revenue',
        'Cloud Services $ 4,507 $ 2,704 67%',
      ];
      const plain = ['(In millions) 2024 2023', 'Revenue', 'Cloud Services $ 4,507 $ 2,704 67%'];
      const rowOf = (lines: string[]) =>
        findPassages('cloud services revenue', [{ uri: '2024 Q2 ACME.pdf#30', body: lines.join('\n') }], 1)[0];
      const row = rowOf(plain);
      expect(row?.row?.columns).toEqual(['2024', '2023']);
      expect(row?.row?.values).toEqual(['$4,507', '$2,704']);
      expect(row?.text).toContain('67%');
      // Three values under a header of two years and a named change column: not cut.
      expect(rowOf(mdna)?.row?.values).toHaveLength(3);
    });

    it('reads a row label that wraps onto its values line', () => {
      const passages = findPassages(
        'acquisition of companies and purchases of intangible assets',
        [{ uri: 'a.pdf#4', body: cash.join('\n') }],
        1,
      );
      expect(passages[0]?.row?.label).toBe(
        'Acquisition of companies, net of cash acquired, and purchases of intangible and other assets',
      );
      expect(passages[0]?.row?.values).toEqual(['(349)', '(1,206)']);
      expect(passages[0]?.row?.unit).toBe('million');
    });
  });
});
