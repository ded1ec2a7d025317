/**
 * A table row is found by its label when the table's columns are named in words (CSV, XLSX, markdown): "capacity
 * of Havørn?" must answer with Havørn's row and the capacity beside its column name, not with the header row alone.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { spawnCli } from './support/cli-child.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-analyze-tables-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FLEET = [
  ['Vessel', 'Capacity', 'Home port', 'Status'],
  ['Skarv', '900', 'Tromsø', 'active'],
  ['Havørn', '1,200', 'Bergen', 'in dock'],
  ['Lunde', '650', 'Ålesund', 'active'],
];

async function folderWith(name: string, write: (file: string) => Promise<void> | void, file: string) {
  const folder = path.join(dir, name);
  mkdirSync(folder);
  await write(path.join(folder, file));
  return folder;
}

async function ask(folder: string, question: string): Promise<string> {
  const run = await cli('analyze', folder, question, '--db', path.join(dir, 'pw.db'), '--no-cache');
  expect(run.code).toBe(0);
  return run.out;
}

describe('rows under a header of words', () => {
  it('CSV: answers with the row of the label asked about, its value beside the column name', async () => {
    const folder = await folderWith(
      'csv',
      (file) => writeFileSync(file, FLEET.map((row) => row.map((c) => `"${c}"`).join(',')).join('\n')),
      'fleet.csv',
    );
    const out = await ask(folder, 'What is the capacity of Havørn?');
    expect(out).toMatch(/1\. \[fleet\.csv:3\] Havørn: Capacity: 1,200 \| Home port: Bergen \| Status: in dock/);
  });

  it('XLSX: the same, cited by sheet', async () => {
    const folder = await folderWith(
      'xlsx',
      async (file) => {
        const workbook = new ExcelJS.Workbook();
        const sheet = workbook.addWorksheet('Fleet');
        for (const row of FLEET) sheet.addRow(row);
        await workbook.xlsx.writeFile(file);
      },
      'fleet.xlsx',
    );
    const out = await ask(folder, 'capacity of Havørn?');
    expect(out).toMatch(/1\. \[fleet\.xlsx#Fleet:3\] Havørn: Capacity: 1,200/);
  });

  it('markdown: a word-valued cell is an answer too', async () => {
    const folder = await folderWith(
      'md',
      (file) =>
        writeFileSync(
          file,
          `# Fleet\n\n| ${FLEET[0]!.join(' | ')} |\n| --- | --- | --- | --- |\n${FLEET.slice(1)
            .map((row) => `| ${row.join(' | ')} |`)
            .join('\n')}\n`,
        ),
      'fleet.md',
    );
    const out = await ask(folder, 'What is the status of Havørn?');
    expect(out).toMatch(/1\. \[fleet\.md:6\] Havørn: Capacity: 1,200 \| Home port: Bergen \| Status: in dock/);
  });
});

// A quarterly table whose header row names the columns with period labels, and a table headed by years.
const QUARTERS = [
  ['', 'Q1 2024', 'Q2 2024', 'Q3 2024'],
  ['Revenue', '1,204', '1,310', '1,402'],
  ['Operating margin', '7.9%', '8.6%', '8.6%'],
];
const REGIONS = [
  ['Region', '2023', '2024'],
  ['APAC', '1,127', '1,284'],
  ['EMEA', '2,001', '2,150'],
];

/** A PDF page with the two tables drawn cell by cell, at column positions, as report generators lay them out. */
async function tablesPdf(file: string): Promise<void> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([612, 792]);
  let baseline = 740;
  const draw = (text: string, x: number) => page.drawText(text, { x, y: baseline, size: 10, font });
  draw('Quarterly results', 50);
  baseline -= 20;
  draw('Operating margin improved through the year.', 50);
  for (const table of [QUARTERS, REGIONS]) {
    baseline -= 30;
    for (const row of table) {
      row.forEach((cell, column) => cell && draw(cell, column === 0 ? 50 : 200 + (column - 1) * 80));
      baseline -= 16;
    }
  }
  writeFileSync(file, await pdf.save());
}

const htmlTable = (rows: string[][], headerCell: 'th' | 'td') =>
  `<table><thead><tr>${rows[0]!.map((c) => `<${headerCell}>${c}</${headerCell}>`).join('')}</tr></thead><tbody>${rows
    .slice(1)
    .map((row) => `<tr>${row.map((c) => `<td>${c}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;

/** `pagewise analyze` in a child process, with the offline model, as a user runs it. */
async function analyzeInChild(folder: string, question: string): Promise<string> {
  const child = spawnCli(['analyze', folder, question, '--db', path.join(dir, 'child.db'), '--no-cache']);
  const { code } = await child.exited;
  expect(code, child.stderr()).toBe(0);
  return child.stdout();
}

describe('rows of PDF and HTML tables carry their column headers', () => {
  it('PDF: a row under a header of quarters answers with each value beside its quarter', async () => {
    const folder = await folderWith('pdf', tablesPdf, 'results.pdf');
    const margin = await analyzeInChild(folder, 'What was the operating margin in Q2 2024?');
    expect(margin).toMatch(
      /1\. \[results\.pdf#1\] Operating margin: Q1 2024: 7\.9% \| Q2 2024: 8\.6% \| Q3 2024: 8\.6%/,
    );
    // The header row alone answers nothing.
    expect(margin).not.toMatch(/\] Q1 2024 Q2 2024 Q3 2024/);
    const apac = await analyzeInChild(folder, 'What were APAC sales in 2024?');
    expect(apac).toMatch(/1\. \[results\.pdf#1\] APAC: 2023: 1,127 \| 2024: 1,284/);
  }, 120_000);

  it('HTML: rows are read cell by cell under the header, of quarters, years or words', async () => {
    const folder = await folderWith(
      'html',
      (file) =>
        writeFileSync(
          file,
          `<html><head><title>Results</title></head><body><h1>Quarterly results</h1>
<p>Operating margin improved through the year.</p>${htmlTable(QUARTERS, 'th')}${htmlTable(REGIONS, 'td')}
${htmlTable(FLEET, 'th')}</body></html>`,
        ),
      'results.html',
    );
    const margin = await analyzeInChild(folder, 'What was the operating margin in Q2 2024?');
    expect(margin).toMatch(
      /1\. \[results\.html:\d+\] Operating margin: Q1 2024: 7\.9% \| Q2 2024: 8\.6% \| Q3 2024: 8\.6%/,
    );
    const apac = await analyzeInChild(folder, 'What were APAC sales in 2024?');
    expect(apac).toMatch(/1\. \[results\.html:\d+\] APAC: 2023: 1,127 \| 2024: 1,284/);
    const status = await analyzeInChild(folder, 'What is the status of Havørn?');
    expect(status).toMatch(/1\. \[results\.html:\d+\] Havørn: Capacity: 1,200 \| Home port: Bergen \| Status: in dock/);
  }, 120_000);
});
