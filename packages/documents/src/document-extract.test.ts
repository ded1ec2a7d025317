import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_READER_LIMITS, extractDocuments } from './document-extract.js';

/** A one-page PDF whose `startxref` points a few bytes off, so the reader must rebuild its cross-reference table. */
async function pdfWithBadXref(line: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([600, 800]).drawText(line, { x: 50, y: 700, size: 12, font });
  const text = Buffer.from(await doc.save({ useObjectStreams: false })).toString('latin1');
  const shifted = text.replace(/startxref\n(\d+)/, (_whole, at: string) => `startxref\n${Number(at) + 7}`);
  expect(shifted).not.toBe(text);
  return new Uint8Array(Buffer.from(shifted, 'latin1'));
}

describe('PDF extraction', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads a PDF the library has to repair without printing its warning', async () => {
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.join(' ')));
    vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void printed.push(args.join(' ')));
    const docs = await extractDocuments('q3.pdf', 'pdf', await pdfWithBadXref('Freight revenue 8,215'), {
      ...DEFAULT_READER_LIMITS,
    });
    expect(docs.map((d) => [d.uri, d.body.trim()])).toEqual([['q3.pdf#1', 'Freight revenue 8,215']]);
    expect(printed).toEqual([]);
  });

  it('still refuses a file that is not a PDF, with the reason', async () => {
    await expect(
      extractDocuments('x.pdf', 'pdf', new Uint8Array(Buffer.from('not a pdf at all')), { ...DEFAULT_READER_LIMITS }),
    ).rejects.toThrow(/damaged or encrypted PDF/);
  });
});
