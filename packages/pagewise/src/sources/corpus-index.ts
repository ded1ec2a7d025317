/**
 * Full-text search over a corpus of documents, and the `search` tool that exposes it to a model. A hit
 * carries a URI, a title and a short snippet, never the body: the model pages in what it wants to read.
 */
import { createRequire } from 'node:module';
import type MiniSearch from 'minisearch';
import type { SearchResult as MiniSearchResult } from 'minisearch';
import { z } from 'zod';
import { tool } from '../agents/tool.js';
import type { Tool } from '../agents/tool.js';
import { ConfigurationError } from '../errors.js';
import { fenceBoundary, renderFencedPages } from '../paging/fence.js';
import { wordTokens } from '../text/words.js';
import { throwIfAborted } from './guards.js';
import type { DocumentSource } from './source.js';

/** What the index needs of a document; `LoadedDocument` has it. */
export interface IndexableDocument {
  uri: string;
  title: string;
  body: string;
}

/** One hit of {@link CorpusIndex.search}. */
export interface CorpusSearchResult {
  uri: string;
  title: string;
  /** At most 200 characters of the body around the best-matching terms. */
  snippet: string;
  /** Relevance (BM25+), higher is better; only comparable within one search. */
  score: number;
}

/** Characters of body text in one excerpt window; with two ellipses a snippet stays within 200. */
const WINDOW_CHARS = 180;
/** Excerpt windows kept per document, the lead window included: a bound on memory per document. */
const MAX_EXCERPTS = 24;
const DEFAULT_K = 10;
const MAX_K = 50;

// One tokenizer for indexing, queries and excerpts, so a term that matched is a term the excerpts know; the shared
// word segmenter splits Japanese and Chinese (written without spaces) into words as it does English.
const tokenize = (text: string): string[] => wordTokens(text);
const processTerm = (term: string): string => term.toLowerCase();

// minisearch loads with the first index, not when pagewise is imported (test/packaging/lean-import.test.ts).
const requireCjs = createRequire(import.meta.url);
let miniSearchClass: typeof MiniSearch | undefined;
function miniSearch(): typeof MiniSearch {
  miniSearchClass ??= requireCjs('minisearch') as typeof MiniSearch;
  return miniSearchClass;
}

/**
 * The snippet material of one document: a few short windows of its body and, for each term they
 * contain, the window it first appears in. Bodies themselves are not kept.
 */
interface Excerpts {
  /** Snippet-ready windows; the first is the start of the document. */
  windows: string[];
  termWindow: Map<string, number>;
}

interface StoredFields {
  uri: string;
  title: string;
}

/**
 * An in-memory full-text index over documents (title and body; title matches count double). Only URI
 * and title are stored with a document, plus up to 24 short excerpt windows chosen at index time for
 * the snippets, so memory stays bounded however long the bodies are.
 *
 * @example
 * const index = await CorpusIndex.fromSource(createFolderSource({ root: './docs' }));
 * index.search('refund policy', 3); // [{ uri: 'file:policies/refunds.md', title: 'Refunds', snippet: '…', score: 7.1 }, ...]
 */
export class CorpusIndex {
  readonly #search = new (miniSearch())<IndexableDocument>({
    idField: 'uri',
    fields: ['title', 'body'],
    storeFields: ['uri', 'title'],
    tokenize,
    processTerm,
    searchOptions: {
      boost: { title: 2 },
      // Short prefixes and fuzzy short words match almost everything; only longer terms get the leeway.
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
    },
  });
  readonly #excerpts = new Map<string, Excerpts>();

  /**
   * Loads every document a source lists and indexes it. Load errors are not swallowed: a source's
   * `list()` should only return what it can load.
   */
  static async fromSource(source: DocumentSource, options: { signal?: AbortSignal } = {}): Promise<CorpusIndex> {
    if (typeof source.list !== 'function') {
      throw new ConfigurationError(
        'source-not-listable',
        `The source "${source.name}" cannot list its documents, so it cannot be indexed whole. Add the documents one by one with CorpusIndex.add.`,
      );
    }
    const index = new CorpusIndex();
    for (const uri of await source.list()) {
      throwIfAborted(options.signal, `the corpus of ${source.name}`);
      index.add(await source.load(uri, options));
    }
    return index;
  }

  /** Number of indexed documents. */
  get size(): number {
    return this.#search.documentCount;
  }

  /** True when a document with this URI is indexed. */
  has(uri: string): boolean {
    return this.#search.has(uri);
  }

  /** Indexes a document; a document already indexed under the same URI is replaced. */
  add(doc: IndexableDocument): void {
    if (this.#search.has(doc.uri)) this.#search.discard(doc.uri);
    this.#search.add({ uri: doc.uri, title: doc.title, body: doc.body });
    this.#excerpts.set(doc.uri, buildExcerpts(doc.body));
  }

  /** Removes a document; returns false when it was not indexed. */
  remove(uri: string): boolean {
    if (!this.#search.has(uri)) return false;
    this.#search.discard(uri);
    this.#excerpts.delete(uri);
    return true;
  }

  /**
   * The `count` best matches for `query` (any of its words; longer words also match by prefix and with
   * small typos), best first. `count` is clamped to 1..50.
   */
  search(query: string, count = DEFAULT_K): CorpusSearchResult[] {
    if (query.trim() === '') return [];
    const limit = clampCount(count);
    return this.#search
      .search(query)
      .slice(0, limit)
      .map((result) => {
        const stored = result as MiniSearchResult & StoredFields;
        return { uri: stored.uri, title: stored.title, snippet: this.#snippet(result), score: result.score };
      });
  }

  /** The excerpt window holding the most distinct terms that matched in the body. */
  #snippet(result: MiniSearchResult): string {
    const excerpts = this.#excerpts.get(String(result.id));
    if (excerpts === undefined) return '';
    const votes = new Map<number, number>();
    for (const term of result.terms) {
      if (!result.match[term]?.includes('body')) continue;
      const window = excerpts.termWindow.get(term);
      if (window !== undefined) votes.set(window, (votes.get(window) ?? 0) + 1);
    }
    let best = 0;
    let bestVotes = 0;
    for (const [window, count] of votes) {
      if (count > bestVotes || (count === bestVotes && window < best)) {
        best = window;
        bestVotes = count;
      }
    }
    return excerpts.windows[best] ?? '';
  }
}

/**
 * Cuts the body into windows at word boundaries and keeps the lead window plus the windows richest in
 * terms that are rare within the document, which are the terms a query is most likely to aim at.
 */
function buildExcerpts(body: string): Excerpts {
  const bounds = windowBounds(body);
  const windowTerms = (index: number): Set<string> => {
    const [start, end] = bounds[index] as [number, number];
    return new Set(tokenize(body.slice(start, end)).map(processTerm));
  };

  let chosen = bounds.map((_, index) => index);
  if (bounds.length > MAX_EXCERPTS) {
    const spread = new Map<string, number>();
    for (let index = 0; index < bounds.length; index += 1) {
      for (const term of windowTerms(index)) spread.set(term, (spread.get(term) ?? 0) + 1);
    }
    const scored: { index: number; score: number }[] = [];
    for (let index = 1; index < bounds.length; index += 1) {
      let score = 0;
      for (const term of windowTerms(index)) score += 1 / (spread.get(term) ?? 1);
      scored.push({ index, score });
    }
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    chosen = [
      0,
      ...scored
        .slice(0, MAX_EXCERPTS - 1)
        .map(({ index }) => index)
        .sort((a, b) => a - b),
    ];
  }

  const windows: string[] = [];
  const termWindow = new Map<string, number>();
  for (const index of chosen) {
    const [start, end] = bounds[index] as [number, number];
    for (const term of windowTerms(index)) if (!termWindow.has(term)) termWindow.set(term, windows.length);
    const text = body.slice(start, end).replace(/\s+/g, ' ').trim();
    windows.push(`${start > 0 ? '…' : ''}${text}${end < body.length ? '…' : ''}`);
  }
  return { windows, termWindow };
}

/** [start, end) ranges of at most WINDOW_CHARS characters covering the body, cut at whitespace when possible. */
function windowBounds(body: string): [number, number][] {
  const bounds: [number, number][] = [];
  let start = skipSpace(body, 0);
  while (start < body.length) {
    let end = Math.min(start + WINDOW_CHARS, body.length);
    if (end < body.length && !/\s/.test(body[end] ?? ' ')) {
      // Back up to the last space in the second half of the window; one very long word is cut instead.
      const space = body.slice(start + WINDOW_CHARS / 2, end).search(/\s\S*$/);
      if (space !== -1) end = start + WINDOW_CHARS / 2 + space;
    }
    bounds.push([start, end]);
    start = skipSpace(body, end);
  }
  return bounds;
}

/** A result count within 1..MAX_K; anything that is not a finite number means the default. */
function clampCount(count: number): number {
  return Number.isFinite(count) ? Math.min(Math.max(Math.trunc(count), 1), MAX_K) : DEFAULT_K;
}

function skipSpace(text: string, from: number): number {
  let index = from;
  while (index < text.length && /\s/.test(text[index] ?? '')) index += 1;
  return index;
}

/** Options of {@link createSearchTool}. */
export interface SearchToolOptions {
  /** Most results one call returns, whatever `k` the model asks for. Default 10, at most 50. */
  maxResults?: number;
}

const searchInput = z.object({
  query: z.string().min(1).max(500).describe('Keywords to look for in titles and bodies.'),
  k: z.number().int().min(1).max(MAX_K).optional().describe('How many results to return.'),
});

/**
 * The `search` tool over an index. It returns a short text listing URI, title and snippet of each hit,
 * never a body, so a search costs few tokens and reading stays a separate, deliberate step.
 *
 * @example
 * const agent = new Agent({ name: 'analyst', tools: [createSearchTool(index, { maxResults: 5 })] });
 */
export function createSearchTool(
  index: CorpusIndex,
  options: SearchToolOptions = {},
): Tool<z.infer<typeof searchInput>> {
  const maxResults = clampCount(options.maxResults ?? DEFAULT_K);
  return tool({
    name: 'search',
    description:
      `Searches the document corpus by keywords and returns up to ${maxResults} matches, best first, each with its uri, title and a short snippet. ` +
      'Bodies are not returned: load a document by its uri to read it.',
    inputSchema: searchInput,
    execute: ({ query, k: count }) => {
      const results = index.search(query, Math.min(count ?? maxResults, maxResults));
      if (results.length === 0) return `No documents match "${query}". Try other or fewer keywords.`;
      // Titles and snippets are document text: fenced as untrusted data, like paged content.
      const fenced = renderFencedPages(
        results.map((r) => ({ uri: r.uri, title: r.title, body: r.snippet })),
        fenceBoundary(),
        { label: 'search results' },
      ).text;
      return `${results.length} document${results.length === 1 ? '' : 's'} match ${JSON.stringify(query)}:\n${fenced}`;
    },
  });
}
