/**
 * A content-addressed cache of extracted document text: what a reader made of a file's bytes, keyed by the
 * SHA-256 of those bytes, the kind of reader and the reader version. A file that changed hashes differently and is
 * read again; two files with the same name in different folders are told apart by their content, never by a name.
 * Entries are files under one folder (the user's cache folder by default), so runs and processes share them.
 */
import { createHash, randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { userCacheDir } from 'pagewise/internal';

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

/** Options of a {@link DocumentCache}. */
export interface DocumentCacheOptions {
  /** The folder entries are kept in. Default {@link defaultDocumentCacheDir}. */
  dir?: string;
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
 * Extracted text by content hash. Hits and misses are counted, so a caller can say how much was reused.
 *
 * @example
 * const cache = new DocumentCache({ dir: '/tmp/pagewise-cache' });
 * const folder = await readDocumentFolder('./filings', { cache });
 * console.log(`${cache.hits} files from the cache, ${cache.misses} read`);
 */
export class DocumentCache {
  /** The folder entries are kept in. */
  readonly dir: string;
  /** Lookups answered from the cache. */
  hits = 0;
  /** Lookups that found no usable entry. */
  misses = 0;
  private readonly onWarning: (message: string) => void;

  constructor(options: DocumentCacheOptions = {}) {
    this.dir = path.resolve(options.dir ?? defaultDocumentCacheDir());
    this.onWarning = options.onWarning ?? (() => {});
  }

  private fileOf(contentHash: string, kind: string): string {
    const key = sha256Hex(`${DOCUMENT_READER_VERSION}\0${kind}\0${contentHash}`);
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** The extraction of content hashing to `contentHash` by reader `kind`, when one is cached and intact. */
  async get(contentHash: string, kind: string): Promise<Extraction | undefined> {
    const file = this.fileOf(contentHash, kind);
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
    return entry.extraction as Extraction;
  }

  /** Keeps `extraction` for content hashing to `contentHash`; a failure to write is a warning, not an error. */
  async set(contentHash: string, kind: string, extraction: Extraction): Promise<void> {
    const file = this.fileOf(contentHash, kind);
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
}

function parseEntry(text: string): z.infer<typeof entrySchema> | undefined {
  try {
    const parsed = entrySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
