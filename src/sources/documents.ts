/**
 * Reads a folder of documents as users have them: text, Markdown, HTML, JSON, CSV, PDF (one document per page, so
 * answers can cite `file.pdf#page`), DOCX and XLSX (one document per sheet). Files that cannot be read (binary,
 * too large, damaged, not a regular file) are skipped with a reason, never indexed as text and never waited on.
 * The extractors are loaded only when a file of their kind is met, so a folder of text files costs none of them.
 */
import { constants, promises as fs } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import path from 'node:path';
import { ConfigurationError } from '../errors.js';
import { sha256Hex, type DocumentCache, type ExtractedUnit, type Extraction } from './document-cache.js';
import { htmlToReadableText } from './html.js';
import { throwIfAborted } from './guards.js';
import { titleFromText } from './title.js';

/** One readable unit: a text file, a PDF page, a sheet of a workbook. */
export interface FolderDocument {
  /** The path relative to the folder with `/` separators, plus `#<page>` for a PDF page or `#<sheet>` for a sheet. */
  uri: string;
  title: string;
  body: string;
  mediaType: string;
}

/** A file that was not read, and why (one line). */
export interface SkippedFile {
  path: string;
  reason: string;
}

/** What {@link readDocumentFolder} found. */
export interface DocumentFolder {
  documents: FolderDocument[];
  /** Files read (a PDF of 12 pages is one file and 12 documents). */
  filesRead: number;
  skipped: SkippedFile[];
}

/** Options of {@link readDocumentFolder}. */
export interface ReadDocumentFolderOptions {
  /** Largest file read, in bytes. Default 50 MiB. */
  maxFileBytes?: number;
  signal?: AbortSignal;
  /**
   * Reuses what was extracted from the same bytes before (see {@link DocumentCache}): a second read of an unchanged
   * folder pays for hashing the files, not for parsing PDFs and workbooks again. Default: no cache.
   */
  cache?: DocumentCache;
}

/** Default cap on one file: 50 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024;

const TEXT_EXTENSIONS = new Set(['txt', 'text', 'md', 'markdown', 'log', 'rst', 'tsv']);
const HTML_EXTENSIONS = new Set(['html', 'htm']);
/** The kinds of file read, for messages. */
export const READABLE_EXTENSIONS = ['txt', 'md', 'html', 'json', 'csv', 'tsv', 'pdf', 'docx', 'xlsx'] as const;

// O_NONBLOCK: opening a FIFO must never wait for a writer; O_NOFOLLOW: the last component cannot be swapped for a link.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** A file we decline, with the one-line reason shown to the user. */
class Skip extends Error {}

/**
 * Reads every readable file under `dir` (sub-folders included; links that lead outside it are skipped).
 *
 * @example
 * const { documents, skipped } = await readDocumentFolder('./reports', { maxFileBytes: 20 * 1024 * 1024 });
 */
export async function readDocumentFolder(
  dir: string,
  options: ReadDocumentFolderOptions = {},
): Promise<DocumentFolder> {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  let root: string;
  try {
    root = await fs.realpath(dir);
  } catch (error) {
    throw new ConfigurationError(
      'folder-root-unreadable',
      `The folder ${dir} cannot be read (${codeOf(error)}).`,
      error,
    );
  }
  const documents: FolderDocument[] = [];
  const skipped: SkippedFile[] = [];
  let filesRead = 0;

  const visit = async (folder: string, prefix: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch (error) {
      skipped.push({ path: prefix || '.', reason: `folder cannot be read (${codeOf(error)})` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      throwIfAborted(options.signal, dir);
      const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      const full = path.join(folder, entry.name);
      if (entry.name.startsWith('.')) continue; // hidden files and folders (.git, .DS_Store) are not documents
      if (entry.isDirectory()) {
        await visit(full, rel);
        continue;
      }
      try {
        const docs = await readOne(root, full, rel, entry, maxBytes, options.cache);
        documents.push(...docs);
        filesRead += 1;
      } catch (error) {
        if (error instanceof Skip) skipped.push({ path: rel, reason: error.message });
        else skipped.push({ path: rel, reason: `cannot be read (${oneLine(error)})` });
      }
    }
  };
  await visit(root, '');
  return { documents, filesRead, skipped };
}

async function readOne(
  root: string,
  full: string,
  rel: string,
  entry: Dirent,
  maxBytes: number,
  cache: DocumentCache | undefined,
): Promise<FolderDocument[]> {
  const extension = path.extname(rel).slice(1).toLowerCase();
  let target = full;
  if (entry.isSymbolicLink()) {
    const real = await fs.realpath(full).catch(() => undefined);
    const inside =
      real !== undefined && !path.relative(root, real).startsWith('..') && !path.isAbsolute(path.relative(root, real));
    if (!inside) throw new Skip('a link that leads outside the folder');
    target = real;
  }
  // The type is checked before opening: a FIFO, socket or device is never opened, so it can never block.
  const info = await fs.stat(target);
  if (!info.isFile()) throw new Skip(`not a regular file (${kindOf(info)})`);
  if (info.size > maxBytes)
    throw new Skip(`${formatMb(info.size)} is over the ${formatMb(maxBytes)} limit (raise it with --max-file-mb)`);
  if (!isReadableExtension(extension)) throw new Skip(`unsupported file type${extension ? ` .${extension}` : ''}`);
  const bytes = await readRegularFile(target, maxBytes);
  const kind = readerKind(extension);
  const contentHash = cache ? sha256Hex(bytes) : '';
  let extraction = cache ? await cache.get(contentHash, kind) : undefined;
  if (!extraction) {
    extraction = await extractUnits(kind, bytes);
    // A content-dependent refusal (a damaged PDF) is cached too: the same bytes will be refused the same way.
    if (cache) await cache.set(contentHash, kind, extraction);
  }
  if ('skip' in extraction) throw new Skip(extraction.skip);
  return named(rel, kind, extraction.units);
}

/** The reader a file extension goes to; the cache keys entries by it, as the same bytes read as CSV or text differ. */
function readerKind(extension: string): string {
  if (HTML_EXTENSIONS.has(extension)) return 'html';
  if (extension === 'md' || extension === 'markdown') return 'markdown';
  if (['json', 'csv', 'pdf', 'docx', 'xlsx'].includes(extension)) return extension;
  return 'text';
}

/** Runs the reader; a {@link Skip} becomes a skip result (which may be cached), any other failure propagates. */
async function extractUnits(kind: string, bytes: Buffer): Promise<Extraction> {
  try {
    return { units: await extract(kind, bytes) };
  } catch (error) {
    if (error instanceof Skip) return { skip: error.message };
    throw error;
  }
}

/** Gives units their URIs and titles: these come from the file's path, never from the cache. */
function named(rel: string, kind: string, units: readonly ExtractedUnit[]): FolderDocument[] {
  const name = path.posix.basename(rel);
  return units.map((unit) => {
    const uri = unit.fragment === undefined ? rel : `${rel}#${unit.fragment}`;
    const title =
      kind === 'pdf'
        ? `${name} page ${unit.fragment}`
        : kind === 'xlsx'
          ? `${name} ${unit.fragment}`
          : kind === 'csv' || kind === 'json'
            ? name
            : unit.title || titleFromText(unit.body, name);
    return { uri, title, body: unit.body, mediaType: unit.mediaType };
  });
}

function isReadableExtension(extension: string): boolean {
  return (
    TEXT_EXTENSIONS.has(extension) ||
    HTML_EXTENSIONS.has(extension) ||
    ['json', 'csv', 'pdf', 'docx', 'xlsx'].includes(extension)
  );
}

async function readRegularFile(target: string, maxBytes: number): Promise<Buffer> {
  const handle = await fs.open(target, OPEN_FLAGS);
  try {
    const info = await handle.stat();
    // Checked again on the open handle: the path may have been swapped for something else in between.
    if (!info.isFile()) throw new Skip(`not a regular file (${kindOf(info)})`);
    if (info.size > maxBytes) throw new Skip(`${formatMb(info.size)} is over the ${formatMb(maxBytes)} limit`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** What a reader makes of a file's bytes alone (no name enters it, so the result can be shared by content). */
async function extract(kind: string, bytes: Buffer): Promise<ExtractedUnit[]> {
  switch (kind) {
    case 'pdf':
      return extractPdf(bytes);
    case 'docx':
      return extractDocx(bytes);
    case 'xlsx':
      return extractXlsx(bytes);
    case 'csv':
      return extractCsv(bytes);
    case 'html': {
      const readable = htmlToReadableText(decodeText(bytes));
      return [{ body: readable.text, mediaType: 'text/plain', ...(readable.title ? { title: readable.title } : {}) }];
    }
    default:
      return [{ body: decodeText(bytes), mediaType: kind === 'markdown' ? 'text/markdown' : 'text/plain' }];
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

async function extractPdf(bytes: Buffer): Promise<ExtractedUnit[]> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  let pages: string[];
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    pages = (await extractText(pdf, { mergePages: false })).text;
  } catch (error) {
    throw new Skip(`damaged or encrypted PDF (${oneLine(error)})`);
  }
  const documents = pages
    .map((text, i) => ({ fragment: `${i + 1}`, body: text, mediaType: 'text/plain' }))
    .filter((doc) => doc.body.trim() !== '');
  if (documents.length === 0) throw new Skip('PDF without a text layer (scanned images need OCR first)');
  return documents;
}

async function extractDocx(bytes: Buffer): Promise<ExtractedUnit[]> {
  const mammoth = (await import('mammoth')).default;
  let text: string;
  try {
    text = (await mammoth.extractRawText({ buffer: bytes })).value;
  } catch (error) {
    throw new Skip(`damaged DOCX (${oneLine(error)})`);
  }
  if (text.trim() === '') throw new Skip('DOCX without text');
  // Paragraphs come separated by blank lines; a table's cells come one per paragraph, which the reader takes as a row.
  const body = text.replace(/\n{2,}/g, '\n');
  return [{ body, mediaType: 'text/plain' }];
}

async function extractXlsx(bytes: Buffer): Promise<ExtractedUnit[]> {
  const ExcelJS = (await import('exceljs')).default;
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (error) {
    throw new Skip(`damaged XLSX (${oneLine(error)})`);
  }
  const documents: ExtractedUnit[] = [];
  workbook.eachSheet((sheet) => {
    const lines: string[] = [];
    sheet.eachRow({ includeEmpty: true }, (row) => {
      const values = Array.isArray(row.values) ? row.values.slice(1) : [];
      lines.push(values.map((value) => cellText(value)).join(' | '));
    });
    const body = lines.join('\n');
    if (body.replace(/[|\s]/g, '') === '') return;
    documents.push({ fragment: sheet.name, body, mediaType: 'text/plain' });
  });
  if (documents.length === 0) throw new Skip('workbook without values');
  return documents;
}

/** A cell's shown value: formulas by their result, rich text by its text, dates as ISO days. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'object') {
    const v = value as { result?: unknown; richText?: { text: string }[]; text?: unknown; error?: unknown };
    if (v.result !== undefined) return cellText(v.result);
    if (Array.isArray(v.richText)) return v.richText.map((r) => r.text).join('');
    if (v.text !== undefined) return cellText(v.text);
    if (v.error !== undefined) return String(v.error);
    return '';
  }
  return String(value).replace(/\s+/g, ' ').trim();
}

async function extractCsv(bytes: Buffer): Promise<ExtractedUnit[]> {
  const { parse } = await import('csv-parse/sync');
  let rows: string[][];
  try {
    rows = parse(decodeText(bytes), { relax_column_count: true, skip_empty_lines: false, bom: true }) as string[][];
  } catch (error) {
    if (error instanceof Skip) throw error;
    throw new Skip(`CSV that does not parse (${oneLine(error)})`);
  }
  const body = rows.map((row) => row.map((cell) => cell.replace(/\s+/g, ' ').trim()).join(' | ')).join('\n');
  return [{ body, mediaType: 'text/plain' }];
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isDirectory()) return 'a folder';
  return 'not a file';
}

function formatMb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MB`;
}

function codeOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String((error as { code: unknown }).code)
    : oneLine(error);
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.slice(0, 160);
}
