/**
 * The contract every document loader satisfies, plus the two ways to build one without a class: wrap a
 * plain function, or route between several sources by URI.
 */
import { ConfigurationError, NotFoundError } from '../errors.js';
import { titleFromText } from './title.js';

/** Default cap on the bytes one document may have, shared by the built-in sources: 5 MiB. */
export const DEFAULT_MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;

/** A document read from a source, ready to be stored as a page or indexed. */
export interface LoadedDocument {
  /** The document's canonical URI: the one asked for, normalized by the source (`./a.md` → `file:a.md`). */
  uri: string;
  /** A short human title: the HTML `<title>`, the first heading or line, or the file name. */
  title: string;
  /** The readable text. HTML has already been turned into text. */
  body: string;
  /** The media type of `body` (so converted HTML is reported as `text/plain`). */
  mediaType: string;
  /** When it was read, in milliseconds since the epoch. */
  fetchedAt: number;
}

/** Options of a single load. */
export interface LoadOptions {
  /** Cancels the load; the source rejects with an `AbortedError`. */
  signal?: AbortSignal;
}

/** Something documents can be loaded from: a folder, the web, a database, ... */
export interface DocumentSource {
  /** A short name used in error messages, e.g. `folder:/srv/docs`. */
  readonly name: string;
  /** True when this source handles the URI (by scheme or shape); it need not exist. */
  canLoad(uri: string): boolean;
  /** Reads one document. Refusals are `AccessDeniedError`, missing documents `NotFoundError`. */
  load(uri: string, options?: LoadOptions): Promise<LoadedDocument>;
  /** Every URI the source can load, sorted, for sources that can enumerate their content. */
  list?(): Promise<string[]>;
  /**
   * The SHA-256 (hex) of the body `load(uri)` would return now, for sources that know it without a full load. A
   * page cache serves a stored body only while this matches its hash, so an edited file is never answered from
   * its old text; without it, a cache can only go by age.
   */
  contentHash?(uri: string, options?: LoadOptions): Promise<string | undefined>;
}

/** A source that can enumerate its documents, as `CorpusIndex.fromSource` needs. */
export type ListableSource = DocumentSource & { list(): Promise<string[]> };

/** What a loader function may return: the body alone, or the body with the fields it knows. */
export type LoaderResult = string | { body: string; title?: string; mediaType?: string };

/** A custom loader function, as wrapped by {@link loaderSource}. */
export type LoaderFunction = (uri: string, options: LoadOptions) => Promise<LoaderResult> | LoaderResult;

/**
 * Turns a plain function into a {@link DocumentSource}. Missing fields are filled in: the title from
 * the body's first heading or line, the media type as `text/plain`, `fetchedAt` as now.
 *
 * @example
 * const tickets = loaderSource('tickets', (uri) => uri.startsWith('ticket:'), async (uri) => {
 *   const ticket = await db.ticket(uri.slice('ticket:'.length));
 *   return { title: ticket.subject, body: ticket.text };
 * });
 */
export function loaderSource(name: string, canLoad: (uri: string) => boolean, fn: LoaderFunction): DocumentSource {
  return {
    name,
    canLoad,
    async load(uri, options = {}) {
      const result = await fn(uri, options);
      const fields = typeof result === 'string' ? { body: result } : result;
      // The function is user code, possibly untyped JavaScript: a wrong shape should fail here, by name.
      if (typeof fields !== 'object' || fields === null || typeof fields.body !== 'string') {
        throw new ConfigurationError(
          'invalid-loader-result',
          `The loader of source "${name}" returned something other than a string or { body: string } for "${uri}". Make it return the document text.`,
        );
      }
      return {
        uri,
        title: fields.title ?? titleFromText(fields.body, uri),
        body: fields.body,
        mediaType: fields.mediaType ?? 'text/plain',
        fetchedAt: Date.now(),
      };
    },
  };
}

/**
 * Combines sources into one that routes each URI to the first source whose `canLoad` accepts it, so
 * the order of `sources` is the order of preference. `list()` concatenates the lists of the sources
 * that can enumerate, without duplicates.
 *
 * @example
 * const sources = combineSources([createFolderSource({ root: './docs' }), createHttpSource({ allowHosts: ['example.com'] })]);
 * const doc = await sources.load('https://example.com/guide');
 */
export function combineSources(sources: readonly DocumentSource[]): DocumentSource {
  if (sources.length === 0) {
    throw new ConfigurationError(
      'no-sources',
      'combineSources needs at least one source; pass e.g. createFolderSource({ root }).',
    );
  }
  const all = [...sources];
  const names = all.map((source) => source.name).join(', ');
  const listable = all.filter((source): source is ListableSource => typeof source.list === 'function');
  const combined: DocumentSource = {
    name: `combined(${names})`,
    canLoad: (uri) => all.some((source) => source.canLoad(uri)),
    load(uri, options) {
      const source = all.find((candidate) => candidate.canLoad(uri));
      if (source === undefined) {
        return Promise.reject(
          new NotFoundError(
            'Document',
            uri,
            `No source can load this URI (tried: ${names}). Use a URI one of them accepts, or add a source for it.`,
          ),
        );
      }
      return source.load(uri, options);
    },
  };
  if (all.some((source) => typeof source.contentHash === 'function')) {
    combined.contentHash = async (uri, options) =>
      all.find((candidate) => candidate.canLoad(uri))?.contentHash?.(uri, options);
  }
  if (listable.length > 0) {
    combined.list = async () => {
      const lists = await Promise.all(listable.map((source) => source.list()));
      return [...new Set(lists.flat())];
    };
  }
  return combined;
}
