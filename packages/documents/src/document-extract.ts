/**
 * The text extractors of the document reader: bytes of one file in, its documents out (a PDF page, a sheet, a whole
 * text file). They run inside the reader's worker (see document-sandbox.ts), and each bounds what it builds, so a
 * small file that describes a huge document is refused with the limit it passed instead of being built.
 */
import path from 'node:path';
import { htmlToReadableText, titleFromText } from 'pagewise/internal';
import { checkZipArchive, ZipRefused } from './zip-guard.js';

/** One readable unit: a text file, a PDF page, a sheet of a workbook. */
export interface FolderDocument {
  /** The path relative to the folder with `/` separators, plus `#<page>` for a PDF page or `#<sheet>` for a sheet. */
  uri: string;
  title: string;
  body: string;
  mediaType: string;
}

/** What one file may cost the reader; every limit is per file. */
export interface DocumentReaderLimits {
  /** Wall time to read one file, in milliseconds; past it the reader is stopped. Default 60 s. */
  timeoutMs: number;
  /** Memory reading one file may take (the reader's heap, and the process's growth in resident size). Default 512 MiB. */
  memoryBytes: number;
  /** Pages of one PDF. Default 2,000. */
  maxPages: number;
  /** What the entries of one DOCX or XLSX unpack to, together. Default 100 MiB. */
  maxUnpackedBytes: number;
  /** Entries of one DOCX or XLSX archive. Default 10,000. */
  maxArchiveEntries: number;
  /** Rows of one sheet, counted to its last row (blank rows keep the row numbers that citations use). Default 100,000. */
  maxSheetRows: number;
  /** Cells of one workbook, counted to each row's last cell (blank cells are written as empty columns). Default 2,000,000. */
  maxCells: number;
  /** Characters of text extracted from one PDF, DOCX or XLSX. Default 20,000,000. */
  maxChars: number;
}

/** The limits {@link readDocumentFolder} applies when none are given. */
export const DEFAULT_READER_LIMITS: Readonly<DocumentReaderLimits> = Object.freeze({
  timeoutMs: 60_000,
  memoryBytes: 512 * 1024 * 1024,
  maxPages: 2_000,
  maxUnpackedBytes: 100 * 1024 * 1024,
  maxArchiveEntries: 10_000,
  maxSheetRows: 100_000,
  maxCells: 2_000_000,
  maxChars: 20_000_000,
});

/** A file declined, with the one-line reason shown to the user. */
export class Skip extends Error {}

const HTML_EXTENSIONS = new Set(['html', 'htm']);

/** The documents of one file; throws {@link Skip} for a file that is declined. */
export async function extractDocuments(
  rel: string,
  extension: string,
  bytes: Uint8Array,
  limits: DocumentReaderLimits,
): Promise<FolderDocument[]> {
  const name = path.posix.basename(rel);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (extension) {
    case 'pdf':
      return extractPdf(rel, bytes, limits);
    case 'docx':
      await checkArchive(buffer, limits);
      return extractDocx(rel, buffer, limits);
    case 'xlsx':
      await checkArchive(buffer, limits);
      return extractXlsx(rel, buffer, limits);
    case 'csv':
      return extractCsv(rel, buffer);
    default: {
      const text = decodeText(buffer);
      if (HTML_EXTENSIONS.has(extension)) {
        const readable = htmlToReadableText(text);
        return [
          {
            uri: rel,
            title: readable.title || titleFromText(readable.text, name),
            body: readable.text,
            mediaType: 'text/plain',
          },
        ];
      }
      return [
        {
          uri: rel,
          title: extension === 'json' ? name : titleFromText(text, name),
          body: text,
          mediaType: extension === 'md' || extension === 'markdown' ? 'text/markdown' : 'text/plain',
        },
      ];
    }
  }
}

async function checkArchive(bytes: Buffer, limits: DocumentReaderLimits): Promise<void> {
  try {
    await checkZipArchive(bytes, { maxEntries: limits.maxArchiveEntries, maxUnpackedBytes: limits.maxUnpackedBytes });
  } catch (error) {
    if (error instanceof ZipRefused) throw new Skip(error.message);
    throw error;
  }
}

/** UTF-8 text, or a skip when the bytes are binary (a NUL byte or invalid UTF-8). */
function decodeText(bytes: Buffer): string {
  if (bytes.subarray(0, 8192).includes(0)) throw new Skip('binary content (not text)');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Skip('binary content (not UTF-8 text)');
  }
}

function charsRefusal(limits: DocumentReaderLimits): Skip {
  return new Skip(`more than the ${count(limits.maxChars)}-character limit on extracted text`);
}

async function extractPdf(rel: string, bytes: Uint8Array, limits: DocumentReaderLimits): Promise<FolderDocument[]> {
  const { getDocumentProxy } = await import('unpdf');
  const name = path.posix.basename(rel);
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // Errors only: PDF.js otherwise prints a warning for every recoverable oddity of a file (a rebuilt cross-reference
    // table, a missing font) straight to stdout, on every run. A file it cannot read still throws and is skipped.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (error) {
    throw new Skip(`damaged or encrypted PDF (${oneLine(error)})`);
  }
  try {
    if (pdf.numPages > limits.maxPages)
      throw new Skip(
        `${count(pdf.numPages)} pages, over the ${count(limits.maxPages)}-page limit (raise it with --max-pages)`,
      );
    const documents: FolderDocument[] = [];
    let chars = 0;
    // One page at a time: extracting every page at once holds every page's parsed content in memory together.
    for (let number = 1; number <= pdf.numPages; number += 1) {
      let text: string;
      try {
        const page = await pdf.getPage(number);
        const content = await page.getTextContent();
        text = content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
        page.cleanup();
      } catch (error) {
        throw new Skip(`damaged PDF (page ${number}: ${oneLine(error)})`);
      }
      chars += text.length;
      if (chars > limits.maxChars) throw charsRefusal(limits);
      if (text.trim() !== '')
        documents.push({
          uri: `${rel}#${number}`,
          title: `${name} page ${number}`,
          body: text,
          mediaType: 'text/plain',
        });
    }
    if (documents.length === 0) throw new Skip('PDF without a text layer (scanned images need OCR first)');
    return documents;
  } finally {
    await pdf.destroy();
  }
}

async function extractDocx(rel: string, bytes: Buffer, limits: DocumentReaderLimits): Promise<FolderDocument[]> {
  const mammoth = (await import('mammoth')).default;
  let text: string;
  try {
    text = (await mammoth.extractRawText({ buffer: bytes })).value;
  } catch (error) {
    throw new Skip(`damaged DOCX (${oneLine(error)})`);
  }
  if (text.length > limits.maxChars) throw charsRefusal(limits);
  if (text.trim() === '') throw new Skip('DOCX without text');
  // Paragraphs come separated by blank lines; a table's cells come one per paragraph, which the reader takes as a row.
  const body = text.replace(/\n{2,}/g, '\n');
  return [{ uri: rel, title: titleFromText(body, path.posix.basename(rel)), body, mediaType: 'text/plain' }];
}

async function extractXlsx(rel: string, bytes: Buffer, limits: DocumentReaderLimits): Promise<FolderDocument[]> {
  const ExcelJS = (await import('exceljs')).default;
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (error) {
    throw new Skip(`damaged XLSX (${oneLine(error)})`);
  }
  // Measured before anything is written out: one cell at the last row and column describes a million blank lines.
  let cells = 0;
  for (const sheet of workbook.worksheets) {
    if (sheet.rowCount > limits.maxSheetRows)
      throw new Skip(
        `sheet ${sheet.name} reaches row ${count(sheet.rowCount)}, over the ${count(limits.maxSheetRows)}-row limit per sheet`,
      );
    sheet.eachRow((row) => (cells += row.cellCount));
    if (cells > limits.maxCells)
      throw new Skip(`more than the ${count(limits.maxCells)}-cell limit per workbook (sheet ${sheet.name})`);
  }
  const documents: FolderDocument[] = [];
  let chars = 0;
  for (const sheet of workbook.worksheets) {
    const lines: string[] = [];
    sheet.eachRow({ includeEmpty: true }, (row) => {
      const values = Array.isArray(row.values) ? row.values.slice(1) : [];
      const line = values.map((value) => cellText(value)).join(' | ');
      chars += line.length + 1;
      if (chars > limits.maxChars) throw charsRefusal(limits);
      lines.push(line);
    });
    const body = lines.join('\n');
    if (body.replace(/[|\s]/g, '') === '') continue;
    documents.push({
      uri: `${rel}#${sheet.name}`,
      title: `${path.posix.basename(rel)} ${sheet.name}`,
      body,
      mediaType: 'text/plain',
    });
  }
  if (documents.length === 0) throw new Skip('workbook without values');
  return documents;
}

/** A cell's shown value: formulas by their result, rich text by its text, dates as ISO days. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'object') {
    const cell = value as { result?: unknown; richText?: { text: string }[]; text?: unknown; error?: unknown };
    if (cell.result !== undefined) return cellText(cell.result);
    if (Array.isArray(cell.richText)) return cell.richText.map((r) => r.text).join('');
    if (cell.text !== undefined) return cellText(cell.text);
    if (cell.error !== undefined) return String(cell.error);
    return '';
  }
  return String(value).replace(/\s+/g, ' ').trim();
}

async function extractCsv(rel: string, bytes: Buffer): Promise<FolderDocument[]> {
  const { parse } = await import('csv-parse/sync');
  let rows: string[][];
  try {
    rows = parse(decodeText(bytes), { relax_column_count: true, skip_empty_lines: false, bom: true }) as string[][];
  } catch (error) {
    if (error instanceof Skip) throw error;
    throw new Skip(`CSV that does not parse (${oneLine(error)})`);
  }
  const body = rows.map((row) => row.map((cell) => cell.replace(/\s+/g, ' ').trim()).join(' | ')).join('\n');
  return [{ uri: rel, title: path.posix.basename(rel), body, mediaType: 'text/plain' }];
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** The first line of an error's message, at most 160 characters. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.slice(0, 160);
}
