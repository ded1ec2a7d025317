/**
 * The page store: documents keyed by URI, with body, title, media type, byte and token size, content
 * hash and fetch time. Identical bodies are stored once. Pages live in namespaces (a session, a user, or
 * a shared corpus) so one database serves many agents.
 */
import { createHash } from 'node:crypto';
import { ImmutablePageError, IntegrityError, StorageError } from '../errors.js';
import { countTokens } from '../tokens/tokenizer.js';

/** A stored page. */
export interface Page {
  /** The namespace the page belongs to (e.g. a session id, or `corpus:<name>`). */
  namespace: string;
  uri: string;
  title: string;
  body: string;
  mediaType: string;
  /** UTF-8 bytes of the body. */
  bytes: number;
  /** o200k tokens of the body. */
  tokens: number;
  /** sha256 of the body, hex. */
  hash: string;
  /** Milliseconds since the epoch. */
  fetchedAt: number;
  /** Free-form metadata (source, frame info, ...). */
  meta: Record<string, unknown>;
}

/** A page without its body, for listings and receipts. */
export type PageInfo = Omit<Page, 'body'>;

/** What is written to store a page; sizes and hash are computed. */
export interface PageInput {
  namespace: string;
  uri: string;
  title?: string;
  body: string;
  mediaType?: string;
  fetchedAt?: number;
  meta?: Record<string, unknown>;
}

/** URI scheme of tool results stored as pages by auto-paging and observation compression. */
export const TOOL_PAGE_SCHEME = 'tool://';

/**
 * Whether a URI is a handle: the page of a tool result (or of archived history) that compressed text
 * points back to. Its body never changes once written (see {@link PageStore.put}); a document from a
 * source may be fetched again and replaced.
 */
export function isHandleUri(uri: string): boolean {
  return uri.startsWith(TOOL_PAGE_SCHEME);
}

/**
 * What a put does to a page already stored under its URI: `'replace'` it, or keep it `'unchanged'` (the
 * same body written under a handle again). The stored page's first write wins, metadata included.
 *
 * @throws ImmutablePageError when a different body is written under a handle.
 */
export function putOutcome(
  stored: Pick<PageInfo, 'namespace' | 'uri' | 'hash'>,
  hash: string,
): 'replace' | 'unchanged' {
  if (!isHandleUri(stored.uri)) return 'replace';
  if (stored.hash === hash) return 'unchanged';
  throw new ImmutablePageError(stored.namespace, stored.uri, stored.hash, hash);
}

/** Durable storage of pages. */
export interface PageStore {
  /**
   * Stores (or replaces) a page and returns its info. A handle ({@link isHandleUri}) is written once: the
   * same body again returns the stored page unchanged, a different one throws ImmutablePageError.
   */
  put(page: PageInput): Promise<PageInfo>;
  get(namespace: string, uri: string): Promise<Page | undefined>;
  info(namespace: string, uri: string): Promise<PageInfo | undefined>;
  list(namespace: string): Promise<PageInfo[]>;
  delete(namespace: string, uri: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Schema version of persisted pages. */
export const PAGE_SCHEMA_VERSION = 1;

/** sha256 hex of a body. */
export function hashBody(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}

/**
 * Returns `body` once it hashes to the page's recorded hash, so every store answers only with the
 * content that was put.
 *
 * @throws IntegrityError naming the page when the body was altered or damaged at rest.
 */
export function verifiedBody(info: Pick<PageInfo, 'namespace' | 'uri' | 'hash'>, body: string): string {
  const actual = hashBody(body);
  if (actual !== info.hash) throw new IntegrityError(info.namespace, info.uri, info.hash, actual);
  return body;
}

/** Computes the stored form of a page input. */
export function toPage(input: PageInput): Page {
  return {
    namespace: input.namespace,
    uri: input.uri,
    title: input.title ?? input.uri,
    body: input.body,
    mediaType: input.mediaType ?? 'text/plain',
    bytes: Buffer.byteLength(input.body),
    tokens: countTokens(input.body),
    hash: hashBody(input.body),
    fetchedAt: input.fetchedAt ?? Date.now(),
    meta: input.meta ?? {},
  };
}

/** A page's metadata as a SQL store holds it (snake_case columns; the body joined in by hash). */
export interface StoredPageRow {
  namespace: string;
  uri: string;
  title: string;
  media_type: string;
  hash: string;
  fetched_at: number | string;
  meta: string;
  schema_version: number;
  bytes: number;
  tokens: number;
}

/**
 * Reads a stored page row back, checking its schema version and validating its metadata, so a row
 * written by another version or damaged on disk is a clear StorageError, not a silent wrong value.
 */
export function pageInfoFromRow(row: StoredPageRow): PageInfo {
  if (row.schema_version !== PAGE_SCHEMA_VERSION) {
    throw new StorageError(
      `Page ${row.uri} was written with schema version ${row.schema_version}; this pagewise reads ${PAGE_SCHEMA_VERSION}. Upgrade pagewise.`,
    );
  }
  let meta: Record<string, unknown>;
  try {
    const parsed = JSON.parse(row.meta) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('meta is not an object');
    meta = parsed as Record<string, unknown>;
  } catch (error) {
    throw new StorageError(`Page ${row.uri} has unreadable metadata: ${(error as Error).message}`, error);
  }
  return {
    namespace: row.namespace,
    uri: row.uri,
    title: row.title,
    mediaType: row.media_type,
    hash: row.hash,
    fetchedAt: Number(row.fetched_at),
    meta,
    bytes: row.bytes,
    tokens: row.tokens,
  };
}

/**
 * The values of a page's metadata row, in the order of the columns `namespace, uri, title, media_type, hash,
 * fetched_at, meta, schema_version` of a SQL store's `pages` table: what {@link pageInfoFromRow} reads back.
 */
export function pageRowValues(page: Page): [string, string, string, string, string, number, string, number] {
  return [
    page.namespace,
    page.uri,
    page.title,
    page.mediaType,
    page.hash,
    page.fetchedAt,
    JSON.stringify(page.meta),
    PAGE_SCHEMA_VERSION,
  ];
}

/** Drops the body of a page. */
export function pageInfo(page: Page): PageInfo {
  const { body: _body, ...info } = page;
  return info;
}

/** Keeps pages in memory; identical bodies are shared by hash. */
export class InMemoryPageStore implements PageStore {
  private readonly bodies = new Map<string, { body: string; refs: number }>();
  private readonly pages = new Map<string, PageInfo>();

  private key(namespace: string, uri: string): string {
    return JSON.stringify([namespace, uri]);
  }

  async put(input: PageInput): Promise<PageInfo> {
    const page = toPage(input);
    const info = pageInfo(page);
    const key = this.key(page.namespace, page.uri);
    const old = this.pages.get(key);
    if (old && putOutcome(old, page.hash) === 'unchanged') return old;
    if (old) this.release(old.hash);
    const held = this.bodies.get(page.hash);
    if (held) held.refs += 1;
    else this.bodies.set(page.hash, { body: page.body, refs: 1 });
    this.pages.set(key, info);
    return info;
  }

  private release(hash: string): void {
    const held = this.bodies.get(hash);
    if (!held) return;
    held.refs -= 1;
    if (held.refs <= 0) this.bodies.delete(hash);
  }

  async get(namespace: string, uri: string): Promise<Page | undefined> {
    const info = this.pages.get(this.key(namespace, uri));
    if (!info) return undefined;
    // Verified here too: bodies are shared by hash, so a caller that mutated one would change others.
    return { ...info, body: verifiedBody(info, this.bodies.get(info.hash)?.body ?? '') };
  }

  async info(namespace: string, uri: string): Promise<PageInfo | undefined> {
    return this.pages.get(this.key(namespace, uri));
  }

  async list(namespace: string): Promise<PageInfo[]> {
    return [...this.pages.values()].filter((p) => p.namespace === namespace).sort((a, b) => a.uri.localeCompare(b.uri));
  }

  async delete(namespace: string, uri: string): Promise<boolean> {
    const key = this.key(namespace, uri);
    const info = this.pages.get(key);
    if (!info) return false;
    this.pages.delete(key);
    this.release(info.hash);
    return true;
  }

  /** Distinct bodies held, for dedup checks. */
  get distinctBodies(): number {
    return this.bodies.size;
  }

  async close(): Promise<void> {}
}
