/**
 * A content-addressed cache of extracted document text: what a reader made of a file's bytes, keyed by the
 * SHA-256 of those bytes, the kind of reader and the reader version. A file that changed hashes differently and is
 * read again; two files with the same name in different folders are told apart by their content, never by a name.
 * Entries are kept in memory for the process's lifetime (bounded) and, unless the cache is memory-only, as files
 * under one folder (the user's cache folder by default), so runs and processes share them.
 */
import { createHash, randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { integerOption, userCacheDir } from 'pagewise/internal';

/**
 * Version of what the readers produce from a file's bytes. Raised whenever an extractor changes its output (or the
 * library behind it does), so entries written by an older reader are never served.
 */
export const DOCUMENT_READER_VERSION = 1;

/** The environment variable that moves the cache folder (the document cache goes into `<it>/documents`). */
export const CACHE_DIR_ENV = 'PAGEWISE_CACHE_DIR';

const ENTRY_SCHEMA_VERSION = 1;

/** One unit a reader made of a file: the whole text, a PDF page or a sheet; names are added by the caller. */
export interface ExtractedUnit {
  /** `#<fragment>` of the unit's URI: a PDF page number or a sheet name; absent for a one-unit file. */
  fragment?: string;
  body: string;
  mediaType: string;
  /** A title found in the content itself (an HTML `<title>`); otherwise the caller derives one. */
  title?: string;
}

/** What a reader made of a file: its units, or the reason the content cannot be read. */
export type Extraction = { units: ExtractedUnit[] } | { skip: string };

const unitSchema = z.object({
  fragment: z.string().optional(),
  body: z.string(),
  mediaType: z.string(),
  title: z.string().optional(),
});

const entrySchema = z.object({
  schema: z.literal(ENTRY_SCHEMA_VERSION),
  reader: z.number().int(),
  kind: z.string(),
  contentHash: z.string(),
  /** SHA-256 of the JSON of `extraction`, so an entry damaged at rest is never served. */
  digest: z.string(),
  extraction: z.union([z.object({ units: z.array(unitSchema) }), z.object({ skip: z.string() })]),
});

/** How many characters of extracted text a cache keeps in memory by default (about 128 to 256 MB). */
export const DEFAULT_MEMORY_CACHE_CHARS = 128 * 1024 * 1024;

/** Options of a {@link DocumentCache}. */
export interface DocumentCacheOptions {
  /** The folder entries are kept in. Default {@link defaultDocumentCacheDir}; ignored when `memoryOnly`. */
  dir?: string;
  /** Keeps entries in this process only and writes nothing to disk. Default false. */
  memoryOnly?: boolean;
  /**
   * How many characters of extracted text are kept in memory, in front of the folder; the least recently used entry
   * goes first. 0 keeps nothing in memory. Default {@link DEFAULT_MEMORY_CACHE_CHARS}.
   */
  memoryChars?: number;
  /**
   * Told when an entry cannot be written or an entry on disk is damaged (the file is then read again). The cache
   * only saves time, so neither stops a run; by default nothing is said.
   */
  onWarning?: (message: string) => void;
}

/** The default cache folder: `$PAGEWISE_CACHE_DIR/documents`, else `pagewise/documents` in the user's cache folder. */
export function defaultDocumentCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const base = env[CACHE_DIR_ENV] ? path.resolve(env[CACHE_DIR_ENV]) : path.join(userCacheDir(env), 'pagewise');
  return path.join(base, 'documents');
}

/** SHA-256 of bytes or text, hex. */
export function sha256Hex(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * Extracted text by content hash: in memory first, then (unless memory-only) in a folder. Hits and misses are
 * counted, so a caller can say how much was reused.
 *
 * @example
 * const cache = new DocumentCache({ dir: '/tmp/pagewise-cache' });
 * const folder = await readDocumentFolder('./filings', { cache });
 * console.log(`${cache.hits} files from the cache, ${cache.misses} read`);
 */
export class DocumentCache {
  /** The folder entries are kept in; undefined for a memory-only cache. */
  readonly dir: string | undefined;
  /** Lookups answered from the cache (from memory or from the folder). */
  hits = 0;
  /** Of {@link hits}, those answered from memory. */
  memoryHits = 0;
  /** Lookups that found no usable entry. */
  misses = 0;
  private readonly onWarning: (message: string) => void;
  private readonly memoryLimit: number;
  /** In least-recently-used order: a hit moves its entry to the end. */
  private readonly memory = new Map<string, { extraction: Extraction; chars: number }>();
  private memoryChars = 0;

  constructor(options: DocumentCacheOptions = {}) {
    this.dir = options.memoryOnly ? undefined : path.resolve(options.dir ?? defaultDocumentCacheDir());
    this.onWarning = options.onWarning ?? (() => {});
    this.memoryLimit = integerOption(
      options.memoryChars,
      DEFAULT_MEMORY_CACHE_CHARS,
      0,
      'new DocumentCache({ memoryChars })',
    );
  }

  private fileOf(dir: string, key: string): string {
    return path.join(dir, key.slice(0, 2), `${key}.json`);
  }

  /** The extraction of content hashing to `contentHash` by reader `kind`, when one is cached and intact. */
  async get(contentHash: string, kind: string): Promise<Extraction | undefined> {
    const key = keyOf(contentHash, kind);
    const remembered = this.memory.get(key);
    if (remembered) {
      this.memory.delete(key);
      this.memory.set(key, remembered);
      this.hits += 1;
      this.memoryHits += 1;
      return remembered.extraction;
    }
    if (this.dir === undefined) {
      this.misses += 1;
      return undefined;
    }
    const file = this.fileOf(this.dir, key);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch {
      this.misses += 1;
      return undefined;
    }
    const entry = parseEntry(text);
    if (
      !entry ||
      entry.reader !== DOCUMENT_READER_VERSION ||
      entry.kind !== kind ||
      entry.contentHash !== contentHash ||
      entry.digest !== sha256Hex(JSON.stringify(entry.extraction))
    ) {
      this.onWarning(`document cache entry ${file} is damaged or from another version; the file is read again.`);
      this.misses += 1;
      return undefined;
    }
    this.hits += 1;
    this.remember(key, entry.extraction as Extraction);
    return entry.extraction as Extraction;
  }

  /** Keeps `extraction` for content hashing to `contentHash`; a failure to write is a warning, not an error. */
  async set(contentHash: string, kind: string, extraction: Extraction): Promise<void> {
    const key = keyOf(contentHash, kind);
    this.remember(key, extraction);
    if (this.dir === undefined) return;
    const file = this.fileOf(this.dir, key);
    const entry = {
      schema: ENTRY_SCHEMA_VERSION,
      reader: DOCUMENT_READER_VERSION,
      kind,
      contentHash,
      digest: sha256Hex(JSON.stringify(extraction)),
      extraction,
    };
    // Written beside and renamed into place, so a reader in another process never sees half an entry.
    const temporary = `${file}.${randomUUID()}.tmp`;
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(temporary, JSON.stringify(entry));
      await fs.rename(temporary, file);
    } catch (error) {
      await fs.rm(temporary, { force: true }).catch(() => {});
      this.onWarning(
        `the document cache in ${this.dir} cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); files will be read again next time.`,
      );
    }
  }

  /** Keeps an entry in memory, dropping the least recently used ones past the limit (an entry over it is not kept). */
  private remember(key: string, extraction: Extraction): void {
    const chars = charsOf(extraction);
    const previous = this.memory.get(key);
    if (previous) {
      this.memory.delete(key);
      this.memoryChars -= previous.chars;
    }
    if (chars > this.memoryLimit) return;
    this.memory.set(key, { extraction, chars });
    this.memoryChars += chars;
    for (const [oldest, held] of this.memory) {
      if (this.memoryChars <= this.memoryLimit) break;
      this.memory.delete(oldest);
      this.memoryChars -= held.chars;
    }
  }
}

let processCache: DocumentCache | undefined;

/**
 * The cache {@link readDocumentFolder} uses when given none: memory-only, one per process, so a folder read twice
 * from code (two `folderCorpus` calls) is extracted once. It writes nothing to disk; pass a {@link DocumentCache}
 * with a folder to keep extractions across processes, as `pagewise analyze` does.
 */
export function processDocumentCache(): DocumentCache {
  processCache ??= new DocumentCache({ memoryOnly: true });
  return processCache;
}

/** The key of an entry: the bytes' hash, the reader and its version. */
function keyOf(contentHash: string, kind: string): string {
  return sha256Hex(`${DOCUMENT_READER_VERSION}\0${kind}\0${contentHash}`);
}

/** What an entry holds, in characters: the bound of the memory layer counts these. */
function charsOf(extraction: Extraction): number {
  if ('skip' in extraction) return extraction.skip.length;
  let chars = 0;
  for (const unit of extraction.units) chars += unit.body.length + (unit.title?.length ?? 0);
  return chars;
}

function parseEntry(text: string): z.infer<typeof entrySchema> | undefined {
  try {
    const parsed = entrySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
