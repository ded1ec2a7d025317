/**
 * Regression tests of the document-reader findings of the third reliability round (items 2, 3 and 4): small files
 * that describe huge documents, unpack to hundreds of megabytes, inflate a stream without end, nest graphics
 * states for a quadratic parse, or hold 20,000 pages. Each is built here, read by `pagewise analyze`, and must give
 * one skip line naming the limit it passed, while the ordinary files beside it are still read.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDocumentFolder } from '../packages/documents/src/index.js';
import { cli } from './support/cli.js';
import {
  docxBomb,
  manyEntriesDocx,
  manyPagesPdf,
  nestedStatesPdf,
  pdfStreamBomb,
  sparseXlsx,
} from './support/hostile-files.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-hostile-docs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A folder holding the given files and one ordinary report, which must still be read. */
function folderWith(name: string, files: Record<string, Buffer>): string {
  const folder = path.join(dir, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'notes.md'), '# Notes\n\nFreight revenue was 8,215 in 2024.\n');
  for (const [file, bytes] of Object.entries(files)) writeFileSync(path.join(folder, file), bytes);
  return folder;
}

function analyze(folder: string, ...flags: string[]) {
  return cli(
    'analyze',
    folder,
    'freight revenue',
    '--db',
    path.join(folder, '..', `${path.basename(folder)}.db`),
    ...flags,
  );
}

describe('issue 31, reliability round three: document readers', () => {
  it('item 2: an XLSX with cells at A1 and XFD1048576 is skipped naming the row limit, not read as a million lines', async () => {
    const folder = folderWith('sparse', { 'sparse.xlsx': await sparseXlsx() });
    const run = await analyze(folder);
    expect(run.code).toBe(0);
    expect(run.err).toContain(
      'skipped sparse.xlsx: sheet Sheet1 reaches row 1,048,576, over the 100,000-row limit per sheet',
    );
    expect(run.err).toMatch(/Read 1 file; skipped 1/);
    // Below the row limit, a sheet whose last cell is far to the right is bounded by its cells.
    const wide = await readDocumentFolder(folderWith('wide', { 'wide.xlsx': await sparseXlsx(200, 16_384) }), {
      limits: { maxCells: 10_000 },
    });
    expect(wide.skipped).toEqual([
      { path: 'wide.xlsx', reason: 'more than the 10,000-cell limit per workbook (sheet Sheet1)' },
    ]);
  }, 30_000);

  it('item 3: a DOCX whose XML unpacks to 120 MiB is skipped naming the unpacked-size limit, declared or not', async () => {
    const folder = folderWith('docx-bomb', {
      'bomb.docx': await docxBomb(120),
      'lying.docx': await docxBomb(120, 2048),
      'entries.docx': await manyEntriesDocx(10_001),
    });
    const started = process.memoryUsage.rss();
    const run = await analyze(folder);
    expect(run.code).toBe(0);
    const limit = 'more than the 100 MB limit on unpacked size (raise it with --max-unpacked-mb)';
    expect(run.err).toContain(`skipped bomb.docx: declares it unpacks to ${limit}`);
    // The archive lies about its size: the reader counts what it inflates, and stops at the limit.
    expect(run.err).toContain(`skipped lying.docx: unpacks to ${limit}`);
    expect(run.err).toContain('skipped entries.docx: an archive of 10,003 entries, over the limit of 10,000');
    expect(run.err).not.toMatch(/Invalid string length/);
    // Checked without holding what was unpacked: far below the 120 MiB an unpack would take.
    expect(process.memoryUsage.rss() - started).toBeLessThan(100 * 1024 * 1024);
    const raised = await analyze(folder, '--max-unpacked-mb', '200', '--file-memory-mb', '64');
    expect(raised.err).toMatch(
      /skipped bomb\.docx: needed more than the 64 MB memory limit per file \(raise it with --file-memory-mb\)/,
    );
  }, 60_000);

  it('item 4: a PDF whose stream inflates to 600 MiB is skipped at the memory limit, and the reader goes on', async () => {
    const folder = folderWith('pdf-stream', { 'stream.pdf': await pdfStreamBomb(600) });
    const run = await analyze(folder, '--file-memory-mb', '128');
    expect(run.code).toBe(0);
    expect(run.err).toContain(
      'skipped stream.pdf: needed more than the 128 MB memory limit per file (raise it with --file-memory-mb)',
    );
    expect(run.out).toContain('[notes.md');
  }, 60_000);

  it('item 4: a PDF of 200,000 nested q … Q is skipped at the deadline, and the next PDF is still read', async () => {
    const folder = folderWith('pdf-nested', {
      'a-nested.pdf': await nestedStatesPdf(200_000),
      'b-pages.pdf': manyPagesPdf(3),
    });
    const started = performance.now();
    const run = await analyze(folder, '--file-timeout', '3');
    expect(run.code).toBe(0);
    expect(run.err).toContain(
      'skipped a-nested.pdf: took longer than the 3 s limit per file (raise it with --file-timeout)',
    );
    // The worker stopped at the deadline was replaced: the PDF after it was read.
    expect(run.err).toMatch(/Read 2 files \(3 PDF pages\); skipped 1/);
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it('item 4: a PDF of 20,000 pages is skipped by the page limit, which --max-pages sets', async () => {
    const folder = folderWith('pdf-pages', { 'pages.pdf': manyPagesPdf(20_000) });
    const run = await analyze(folder);
    expect(run.err).toContain('skipped pages.pdf: 20,000 pages, over the 2,000-page limit (raise it with --max-pages)');
    const small = folderWith('pdf-pages-small', { 'pages.pdf': manyPagesPdf(30) });
    const capped = await analyze(small, '--max-pages', '20');
    expect(capped.err).toContain('skipped pages.pdf: 30 pages, over the 20-page limit (raise it with --max-pages)');
    const read = await analyze(small, '--max-pages', '30');
    expect(read.err).toMatch(/Read 2 files \(30 PDF pages\); skipped none/);
  }, 60_000);
});
