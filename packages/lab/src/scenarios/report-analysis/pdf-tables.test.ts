/**
 * Tables and lists as PDF text extraction gives them, from PDFs written here: a table row's cells separated by single
 * spaces must come back as one row (label, values, column header), and a bullet list must come back item by item,
 * never cut at a character count before the figure it ends with.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readDocumentFolder } from '@pagewise/documents';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { findPassages } from './passages.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-pdf-tables-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function pdfPage(lines: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  lines.forEach((line, i) => page.drawText(line, { x: 40, y: 750 - i * 14, size: 8, font }));
  return doc.save();
}

/** The pages of one PDF, extracted as analyze reads them. */
async function read(name: string, lines: string[]) {
  const folder = mkdtempSync(path.join(dir, 'f-'));
  writeFileSync(path.join(folder, name), await pdfPage(lines));
  const { documents } = await readDocumentFolder(folder);
  return documents.map((d) => ({ uri: d.uri, body: d.body }));
}

const LONG_ITEM =
  'Sales in our industrial segment grew across all regions and product lines as pricing actions, a stronger order book, new distribution agreements and the completion of the plant consolidation programme all contributed to the result';

describe('PDF tables and lists', () => {
  it('keeps a row whose cells are separated by single spaces as label, values and column header', async () => {
    const pages = await read('acme_2022_10k.pdf', [
      'Cash flows from investing activities',
      '(in millions) 2022 2021 2020',
      'Purchases of property, plant and equipment (1,749) (1,577) (1,501)',
      'Proceeds from sale of businesses 2,221 $ 15 18',
      'The company invested in 2022 in new plants.',
    ]);
    const [best] = findPassages('What were purchases of property, plant and equipment in FY2021?', pages, 3);
    expect(best?.citation).toBe('acme_2022_10k.pdf#1');
    expect(best?.text).toBe(
      'Purchases of property, plant and equipment: 2022: (1,749) | 2021: (1,577) | 2020: (1,501)',
    );
    const [proceeds] = findPassages('proceeds from sale of businesses', pages, 1);
    expect(proceeds?.text).toBe('Proceeds from sale of businesses: 2022: 2,221 | 2021: $15 | 2020: 18');
  });

  it('ends passages at a bullet item or sentence, not at a character count', async () => {
    const wrap = (text: string) => text.match(/.{1,110}(?:\s|$)/g)!.map((l) => l.trim());
    const pages = await read('list.pdf', [
      'Highlights of the year:',
      ...wrap(
        `• ${LONG_ITEM}, with revenue up 9% and ${LONG_ITEM.toLowerCase()}, and as ${LONG_ITEM.toLowerCase()}, reaching $13.2 billion.`,
      ),
      ...wrap(`• Operating cash flow was steady at $4.1 billion while ${LONG_ITEM.toLowerCase()}.`),
      '• Headcount rose to 21,000.',
    ]);
    const found = findPassages('What did sales in the industrial segment reach?', pages, 3);
    const item = found.find((p) => p.text.includes('revenue up 9%'));
    expect(item?.text.length).toBeGreaterThan(600);
    expect(item?.text.endsWith('reaching $13.2 billion.')).toBe(true);
    for (const passage of found) expect(passage.text).not.toMatch(/…$/);
    expect(found.some((p) => p.text.includes('$4.1 billion') && p.text.includes('$13.2 billion'))).toBe(false);
  });
});
