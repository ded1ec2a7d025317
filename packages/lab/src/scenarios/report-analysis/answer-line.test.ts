/**
 * The one-line answer on PDFs written here and read as `analyze` reads a folder: stated when one table row fits the
 * question in the named company's filing and the year's column, absent when two rows or two periods fit.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { answerLine } from './answer-line.js';
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
    const q = 'For Acme, what was the Total other assets in 2019?';
    expect(answerLine(q, [other], [total, other])).toBe(
      'Answer: Acme 2019 Total other assets: 10 (ACME_2019_10K.pdf#5)',
    );
    const elsewhere = row('ZENITH_2019_10K.pdf#2', 'Total other assets');
    expect(answerLine('For Acme, what was the Total other assets in 2019?', [other], [elsewhere])).toBeUndefined();
    expect(answerLine('For Acme, what was the Total other assets in 2020?', [other], [other])).toBeUndefined();
  });
});
