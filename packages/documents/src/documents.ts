/**
 * Reads a folder of documents as users have them: text, Markdown, HTML, JSON, CSV, PDF (one document per page, so
 * answers can cite `file.pdf#page`), DOCX and XLSX (one document per sheet). Files that cannot be read (binary,
 * too large, damaged, not a regular file) are skipped with a reason, never indexed as text and never waited on.
 * PDF, DOCX and XLSX are read in a worker thread with a deadline, a memory limit and caps on what they unpack to
 * (see document-sandbox.ts), so one small file that describes a huge document is one skip line, not a stalled run.
 * The extractors are loaded only when a file of their kind is met, so a folder of text files costs none of them.
 */
import { constants, promises as fs } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import path from 'node:path';
import { AbortedError, ConfigurationError } from 'pagewise';
import { integerOption, throwIfAborted } from 'pagewise/internal';
import {
  DEFAULT_READER_LIMITS,
  extractDocuments,
  oneLine,
  Skip,
  type DocumentReaderLimits,
  type FolderDocument,
} from './document-extract.js';
import { DocumentSandbox } from './document-sandbox.js';
import { processDocumentCache, sha256Hex, type DocumentCache, type ExtractedUnit } from './document-cache.js';

export type { DocumentReaderLimits, FolderDocument } from './document-extract.js';
export { DEFAULT_READER_LIMITS } from './document-extract.js';

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
  /** Files handed to a reader (parsed) by this call; a file answered by the cache is not. */
  extracted: number;
  /** Files answered by the cache (read or refused as before) instead of being parsed again. */
  reused: number;
}

/** Options of {@link readDocumentFolder}. */
export interface ReadDocumentFolderOptions {
  /** Largest file read, in bytes. Default 50 MiB. */
  maxFileBytes?: number;
  /**
   * What reading one file may cost: time, memory, PDF pages, unpacked archive size and entries, sheet rows, cells,
   * extracted characters (see {@link DEFAULT_READER_LIMITS}). Every file is read in a worker thread; a file past a
   * limit is skipped with a reason naming it.
   */
  limits?: Partial<DocumentReaderLimits>;
  signal?: AbortSignal;
  /**
   * Reuses what was extracted from the same bytes before (see {@link DocumentCache}): a second read of an unchanged
   * folder pays for hashing the files, not for parsing PDFs and workbooks again. Default: the process's memory-only
   * cache ({@link processDocumentCache}), so nothing is written to disk unless a cache with a folder is given;
   * `false` reads every file again.
   */
  cache?: DocumentCache | false;
}

/** Default cap on one file: 50 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024;

const TEXT_EXTENSIONS = new Set(['txt', 'text', 'md', 'markdown', 'log', 'rst', 'tsv', 'html', 'htm']);
const SANDBOXED_EXTENSIONS = new Set(['pdf', 'docx', 'xlsx']);
/** The kinds of file read, for messages. */
export const READABLE_EXTENSIONS = ['txt', 'md', 'html', 'json', 'csv', 'tsv', 'pdf', 'docx', 'xlsx'] as const;

// O_NONBLOCK: opening a FIFO must never wait for a writer; O_NOFOLLOW: the last component cannot be swapped for a link.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

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
  const limits = readerLimits(options.limits);
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
  const sandbox = new DocumentSandbox(limits);
  const cache = options.cache === false ? undefined : (options.cache ?? processDocumentCache());
  const tally = { extracted: 0, reused: 0 };

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
        const docs = await readOne(root, full, rel, entry, maxBytes, sandbox, limits, options.signal, cache, tally);
        documents.push(...docs);
        filesRead += 1;
      } catch (error) {
        if (error instanceof AbortedError) throw error;
        if (error instanceof Skip) skipped.push({ path: rel, reason: error.message });
        else skipped.push({ path: rel, reason: `cannot be read (${oneLine(error)})` });
      }
    }
  };
  try {
    await visit(root, '');
  } finally {
    await sandbox.close();
  }
  return { documents, filesRead, skipped, ...tally };
}

async function readOne(
  root: string,
  full: string,
  rel: string,
  entry: Dirent,
  maxBytes: number,
  sandbox: DocumentSandbox,
  limits: DocumentReaderLimits,
  signal: AbortSignal | undefined,
  cache: DocumentCache | undefined,
  tally: { extracted: number; reused: number },
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
  if (!cache) {
    tally.extracted += 1;
    return extractFile(rel, extension, bytes, sandbox, limits, signal);
  }
  // Keyed by the bytes and the reader, never by the name: an edited file is read again, and the same bytes under
  // another name are reused but named by their own path.
  const contentHash = sha256Hex(bytes);
  const kind = readerKind(extension);
  const cached = await cache.get(contentHash, kind);
  // An extraction made under wider limits than this read's is not served: parsed again, the file meets its limit.
  if (cached && ('skip' in cached || withinLimits(kind, cached.units, limits))) {
    tally.reused += 1;
    if ('skip' in cached) throw new Skip(cached.skip);
    return named(rel, kind, cached.units);
  }
  let documents: FolderDocument[];
  tally.extracted += 1;
  try {
    documents = await extractFile(rel, extension, bytes, sandbox, limits, signal);
  } catch (error) {
    // A refusal for what the bytes are (a damaged PDF) is cached: the same bytes are refused the same way. A skip
    // for a limit (every such reason names its limit) is not: with other settings the file may be read.
    if (error instanceof Skip && !/\blimit\b/.test(error.message))
      await cache.set(contentHash, kind, { skip: error.message });
    throw error;
  }
  await cache.set(contentHash, kind, { units: documents.map((doc) => unitOf(rel, doc)) });
  return documents;
}

function extractFile(
  rel: string,
  extension: string,
  bytes: Buffer,
  sandbox: DocumentSandbox,
  limits: DocumentReaderLimits,
  signal: AbortSignal | undefined,
): Promise<FolderDocument[]> {
  // Archives and PDFs go to the worker: their parsers can be made to unpack gigabytes or loop for minutes by a few
  // kilobytes. Text, HTML and CSV are decoded in one linear pass over at most maxFileBytes, here.
  if (SANDBOXED_EXTENSIONS.has(extension)) return sandbox.read(rel, extension, bytes, signal);
  return Promise.resolve(extractDocuments(rel, extension, bytes, limits));
}

/** Whether cached units fit the limits a fresh read checks on its output: PDF pages and extracted characters. */
function withinLimits(kind: string, units: readonly ExtractedUnit[], limits: DocumentReaderLimits): boolean {
  if (kind === 'pdf' && units.length > limits.maxPages) return false;
  if (!['pdf', 'docx', 'xlsx'].includes(kind)) return true;
  let chars = 0;
  for (const unit of units) chars += unit.body.length;
  return chars <= limits.maxChars;
}

/** The reader a file extension goes to; the cache keys entries by it, as the same bytes read as CSV or text differ. */
function readerKind(extension: string): string {
  if (extension === 'html' || extension === 'htm') return 'html';
  if (extension === 'md' || extension === 'markdown') return 'markdown';
  if (['json', 'csv', 'pdf', 'docx', 'xlsx'].includes(extension)) return extension;
  return 'text';
}

/** A document as the cache keeps it: its part of the file (page, sheet) instead of its path. */
function unitOf(rel: string, doc: FolderDocument): ExtractedUnit {
  const fragment = doc.uri.startsWith(`${rel}#`) ? doc.uri.slice(rel.length + 1) : undefined;
  // In the cache schema's key order: the entry's digest is taken over its JSON, which is read back through it.
  return {
    ...(fragment !== undefined ? { fragment } : {}),
    body: doc.body,
    mediaType: doc.mediaType,
    title: doc.title,
  };
}

/** Gives cached units their URIs and titles: a title made from the file's name is made from this file's name. */
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
            : (unit.title ?? name);
    return { uri, title, body: unit.body, mediaType: unit.mediaType };
  });
}

/** The limits given, over the defaults, each checked: a zero or negative limit would skip every file. */
function readerLimits(given: Partial<DocumentReaderLimits> = {}): DocumentReaderLimits {
  const limits = { ...DEFAULT_READER_LIMITS };
  for (const key of Object.keys(limits) as (keyof DocumentReaderLimits)[])
    limits[key] = integerOption(given[key], DEFAULT_READER_LIMITS[key], 1, `readDocumentFolder({ limits.${key} })`);
  return limits;
}

function isReadableExtension(extension: string): boolean {
  return TEXT_EXTENSIONS.has(extension) || ['json', 'csv', 'pdf', 'docx', 'xlsx'].includes(extension);
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
