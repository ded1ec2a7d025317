/**
 * A table row is found by its label when the table's columns are named in words (CSV, XLSX, markdown): "capacity
 * of Havørn?" must answer with Havørn's row and the capacity beside its column name, not with the header row alone.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';

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
