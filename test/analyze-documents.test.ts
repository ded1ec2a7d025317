/**
 * `analyze` end to end on documents as users have them, built here with libraries at test time: a PDF (cited by
 * page), a DOCX with a table, an XLSX workbook, a CSV; and files it must skip with a notice: binary content, a file
 * over --max-file-mb, a named pipe (never opened, so it cannot block), an unsupported type.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Document, Packer, Paragraph, Table, TableCell, TableRow } from 'docx';
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';

async function pdf(pages: string[][]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([600, 800]);
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 750 - i * 20, size: 12, font }));
  }
  return doc.save();
}

async function docx(): Promise<Buffer> {
  const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph('Staff report for the northern plant.'),
          new Paragraph('The plant employed more engineers after the expansion.'),
          new Table({
            rows: [
              new TableRow({ children: [cell(''), cell('2024'), cell('2023')] }),
              new TableRow({ children: [cell('Headcount of engineers'), cell('412'), cell('377')] }),
            ],
          }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

async function xlsx(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Inventory');
  sheet.addRow(['Warehouse', '2024', '2023']);
  sheet.addRow(['Pallets in stock', 5310, 4875]);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

describe('analyze on PDF, DOCX, XLSX and CSV folders', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-docs-'));
  const folder = path.join(dir, 'reports');
  const db = path.join(dir, 'pw.db');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers with cited passages from each kind and reports every skipped file', async () => {
    execFileSync('mkdir', ['-p', folder]);
    writeFileSync(
      path.join(folder, 'annual.pdf'),
      await pdf([
        ['Annual report 2024', 'Chairman letter about the year.'],
        ['Results', '2024', '2023', 'Freight revenue', '8,215', '7,940'],
      ]),
    );
    writeFileSync(path.join(folder, 'staff.docx'), await docx());
    writeFileSync(path.join(folder, 'stock.xlsx'), await xlsx());
    writeFileSync(path.join(folder, 'fuel.csv'), 'Item,2024,2023\nDiesel litres,91000,87000\n');
    writeFileSync(path.join(folder, 'blob.txt'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0xff, 0x00]));
    writeFileSync(path.join(folder, 'huge.md'), 'x'.repeat(2 * 1024 * 1024));
    writeFileSync(path.join(folder, 'photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    execFileSync('mkfifo', [path.join(folder, 'pipe.txt')]);

    const pdfRun = await cli(
      'analyze',
      folder,
      'What was the freight revenue in 2024?',
      '--db',
      db,
      '--max-file-mb',
      '1',
    );
    expect(pdfRun.code).toBe(0);
    expect(pdfRun.out).toContain('[annual.pdf#2] Freight revenue: 2024: 8,215 | 2023: 7,940');
    expect(pdfRun.out).toMatch(/not a model's reasoning/);
    expect(pdfRun.out).toMatch(/Read \d of 4 documents \(\d of 2 PDF pages, \d of 1 sheet\)/);
    expect(pdfRun.err).toMatch(/skipped blob\.txt: binary content/);
    expect(pdfRun.err).toMatch(/skipped huge\.md: 2\.0 MB is over the 1\.0 MB limit \(raise it with --max-file-mb\)/);
    expect(pdfRun.err).toMatch(/skipped pipe\.txt: not a regular file \(a named pipe\)/);
    expect(pdfRun.err).toMatch(/skipped photo\.png: unsupported file type \.png/);
    expect(pdfRun.err).toMatch(/Read 4 files \(2 PDF pages, 1 sheet\); skipped 4:/);

    const docxRun = await cli('analyze', folder, 'How many engineers were employed?', '--db', db);
    expect(docxRun.out).toMatch(/\[staff\.docx:\d+(-\d+)?\] Headcount of engineers: 2024: 412 \| 2023: 377/);
    const xlsxRun = await cli('analyze', folder, 'pallets in stock', '--db', db);
    expect(xlsxRun.out).toMatch(/\[stock\.xlsx#Inventory:2\] Pallets in stock: 2024: 5310 \| 2023: 4875/);
    const csvRun = await cli('analyze', folder, 'diesel litres', '--db', db);
    expect(csvRun.out).toMatch(/\[fuel\.csv:2\] Diesel litres: 2024: 91000 \| 2023: 87000/);
  }, 60_000);
});
