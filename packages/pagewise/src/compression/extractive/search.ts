/**
 * Query search for the extractive compressor: BM25 terms of units and queries (words, CJK, plurals, prefixes and
 * fuzzy matches), queries prepared once for many calls, and field-name matches against the query.
 */
import { hasCjk, indexTerms, wordTokens } from '../../text/words.js';
import {
  bm25Index,
  bm25PlusScores,
  searchesOf,
  type Bm25Index,
  type Bm25Query,
  type Bm25Search,
  type Bm25Terms,
} from '../../text/bm25.js';
import { isStopword } from '../../text/stopwords.js';

// ---------------------------------------------------------------------------------------------
// Scoring

// Scored texts are joined from pieces (a unit, its headers, its paragraph's units) with this separator,
// so each piece is segmented into words once per call and reused, however many texts it is part of.
export const PIECE = '\u0000';
const wordCache = new Map<string, string[]>();
export const WORD_CACHE_LIMIT = 20_000;

/**
 * The terms of a piece: text in Japanese, Chinese or Korean as {@link indexTerms} words; other text split at
 * spaces and punctuation, so `order_id` and `#W123` match `order` and `w123` (JSON keys, ids in queries).
 */
export function piecesWords(piece: string): string[] {
  let words = wordCache.get(piece);
  if (!words) {
    words = hasCjk(piece) ? indexTerms(piece) : splitWords(piece.toLowerCase());
    if (wordCache.size >= WORD_CACHE_LIMIT) wordCache.clear();
    wordCache.set(piece, words);
  }
  return words;
}

const WORD_BREAKS = /[\n\r\p{Z}\p{P}]+/u;
// The same class within ASCII (space and the ASCII punctuation marks), which V8 matches faster.
const ASCII_WORD_BREAKS = /[\n\r !-#%-*,-/:;?@[-\]_{}]+/;
const NON_ASCII = /[\u0080-\uffff]/;

function splitWords(text: string): string[] {
  const words = text.split(NON_ASCII.test(text) ? WORD_BREAKS : ASCII_WORD_BREAKS);
  const kept: string[] = [];
  for (const word of words) if (word !== '') kept.push(singularOf(word));
  return kept;
}

/**
 * A plural in -ies as its singular ("inventories" → "inventory"), so the two are one term. Prefix matching finds a
 * plural in -s from its singular ("expense" → "expenses"), and fuzzy matching the other way, but neither reaches
 * across "y" → "ies".
 */
function singularOf(word: string): string {
  return word.length > MIN_IES_PLURAL && word.endsWith('ies') ? `${word.slice(0, -3)}y` : word;
}

// Shortest word read as a plural in -ies: "lies" and "ties" stay as they are.
const MIN_IES_PLURAL = 4;

/** A piece's words, how many of them are distinct, and its indexed terms (stopwords left out). */
interface PieceTerms {
  words: readonly string[];
  /** The distinct words, as a set and as a list (walked faster than the set). */
  distinct: ReadonlySet<string>;
  distinctWords: readonly string[];
  terms: readonly string[];
}

const pieceTermCache = new Map<string, PieceTerms>();

function pieceTerms(piece: string): PieceTerms {
  let analyzed = pieceTermCache.get(piece);
  if (!analyzed) {
    const words = piecesWords(piece);
    const terms: string[] = [];
    // The words are lower-cased already (as indexedTerm would make them): only stopwords go.
    for (const word of words) if (!isStopword(word)) terms.push(word);
    const distinct = new Set(words);
    analyzed = { words, distinct, distinctWords: [...distinct], terms };
    if (pieceTermCache.size >= WORD_CACHE_LIMIT) pieceTermCache.clear();
    pieceTermCache.set(piece, analyzed);
  }
  return analyzed;
}

function indexedTerm(word: string): string | null {
  const lower = word.toLowerCase();
  return isStopword(lower) ? null : lower;
}

// Scratch set of `BM25_TERMS.analyze`, emptied after each use.
const otherWords = new Set<string>();

// How units and queries become terms for BM25: words of any language (Japanese and Chinese have no spaces to
// split on), stopwords left out; prefix matching stands in for stemming ("write" finds "writer"), fuzzy
// matching for spelling variants. A text joined from pieces is analyzed piece by piece, each piece once
// per process however many texts it is part of.
/** Query terms this long also match words they begin ("renovat" → "renovation"). */
export const MIN_PREFIX_TERM_CHARS = 4;
/** Query terms this long also match words within {@link FUZZY_DISTANCE} of their length in edits. */
export const MIN_FUZZY_TERM_CHARS = 6;
const FUZZY_DISTANCE = 0.15;

export const BM25_TERMS: Bm25Terms = {
  tokenize: (text) => (text.includes(PIECE) ? text.split(PIECE).flatMap(piecesWords) : piecesWords(text)),
  processTerm: indexedTerm,
  analyze: (text) => {
    if (!text.includes(PIECE)) {
      const { distinct, terms } = pieceTerms(text);
      return { length: distinct.size, terms };
    }
    const pieces = text.split(PIECE).map(pieceTerms);
    // The distinct words of all pieces: the largest piece's, plus the others' it lacks.
    let largest = pieces[0] as PieceTerms;
    for (const piece of pieces) if (piece.distinct.size > largest.distinct.size) largest = piece;
    const others = otherWords;
    for (const piece of pieces) {
      if (piece === largest) continue;
      for (const word of piece.distinctWords) if (!largest.distinct.has(word)) others.add(word);
    }
    const length = largest.distinct.size + others.size;
    others.clear();
    return { length, terms: ([] as string[]).concat(...pieces.map((p) => p.terms)) };
  },
  prefix: (term) => term.length >= MIN_PREFIX_TERM_CHARS,
  fuzzy: (term) => (term.length >= MIN_FUZZY_TERM_CHARS ? FUZZY_DISTANCE : false),
};

/**
 * The terms of `query` as the compressor searches them, prepared once for every set of texts a call ranks
 * against it (a long query, the recent steps as context, costs more to analyze than the texts). A query
 * term counts once: a long query repeats its structural words (JSON keys, tool names) so often that they
 * would outweigh the rare terms, such as ids, that actually say which records matter. Each distinct word
 * not a stopword is one query text, in order of first occurrence.
 */
export function searchQuery(query: string): Bm25Query {
  startSearchGeneration();
  // The same query comes again for every observation of a step (each document a task reads): its searches
  // are remembered whole. They are the same whatever the caches held when they were made.
  let prepared = recentQueries.get(query);
  if (prepared === undefined) {
    const lines = query.length < LONG_QUERY_CHARS ? undefined : searchesOfLines(query);
    prepared = { searches: lines ?? searchesOfWords(query) };
    if (recentQueries.size >= RECENT_QUERIES) recentQueries.delete(recentQueries.keys().next().value as string);
    recentQueries.set(query, prepared);
  }
  return prepared;
}

const recentQueries = new Map<string, Bm25Query>();
const RECENT_QUERIES = 16;

function searchesOfWords(query: string): (readonly Bm25Search[])[] {
  const distinct = new Set<string>();
  const searches: (readonly Bm25Search[])[] = [];
  for (const word of piecesWords(query)) {
    if (distinct.has(word)) continue;
    distinct.add(word);
    if (!isStopword(word)) searches.push(searchesOfWord(word));
  }
  return searches;
}

// A query from this many characters is read line by line (see searchesOfLines).
export const LONG_QUERY_CHARS = 1024;

// Per word, its searches; per line of a long query, those of its words that are not stopwords, in order (null:
// a line in a script that is segmented as a whole text). Cleared together, at the start of a call.
const wordSearches = new Map<string, readonly Bm25Search[]>();
const lineSearches = new Map<string, readonly (readonly Bm25Search[])[] | null>();

function searchesOfWord(word: string): readonly Bm25Search[] {
  let searches = wordSearches.get(word);
  if (searches === undefined) {
    searches = searchesOf(word, BM25_TERMS);
    wordSearches.set(word, searches);
  }
  return searches;
}

/**
 * The searches of a long query (the task, then every later step), as {@link searchQuery} makes them from its
 * words, or undefined for a query in Japanese, Chinese or Korean, which is segmented whole. Such a query is
 * mostly lines seen before in other queries: it is split at line breaks, which every word break class holds
 * and lower-casing never looks across, and each line's searches are remembered. A word's searches are one
 * entry per cache generation, so a word met again, on this line or another, is the same entry, found by
 * identity; a line met again adds nothing.
 */
function searchesOfLines(query: string): (readonly Bm25Search[])[] | undefined {
  const seenLines = new Set<string>();
  const taken = new Set<readonly Bm25Search[]>();
  const searches: (readonly Bm25Search[])[] = [];
  for (const line of query.split('\n')) {
    if (seenLines.has(line)) continue;
    seenLines.add(line);
    const known = searchesOfLine(line);
    if (known === null) return undefined;
    for (const entry of known) {
      if (taken.has(entry)) continue;
      taken.add(entry);
      searches.push(entry);
    }
  }
  return searches;
}

/**
 * The searches of one line of a long query, in order, one entry per word that is not a stopword (the same entry
 * for the same word within a cache generation), remembered; null for a line in Japanese, Chinese or Korean, which
 * a query is segmented whole for.
 */
export function searchesOfLine(line: string): readonly (readonly Bm25Search[])[] | null {
  let known = lineSearches.get(line);
  if (known === undefined) {
    known = hasCjk(line)
      ? null
      : splitWords(line.toLowerCase())
          .filter((word) => !isStopword(word))
          .map(searchesOfWord);
    lineSearches.set(line, known);
  }
  return known;
}

/**
 * Starts a new generation of the word and line caches when they are full (together, so that within a call one
 * word always has one entry; see searchesOfLines). Called at the start of a query's preparation.
 */
export function startSearchGeneration(): void {
  if (wordSearches.size >= WORD_CACHE_LIMIT || lineSearches.size >= WORD_CACHE_LIMIT) {
    wordSearches.clear();
    lineSearches.clear();
  }
}

/** The query words as the key match reads them: membership and count. */
export interface WordSet {
  readonly size: number;
  has(word: string): boolean;
}

/**
 * A query prepared once for many calls: its searches, as {@link searchQuery} makes them from its text, and its
 * words, as the key match reads them (made on first use). Built by `suffixQueries`.
 */
export interface PreparedQuery {
  readonly searches: Bm25Query;
  words(): WordSet;
}

export function searchesFor(query: string | PreparedQuery): Bm25Query {
  return typeof query === 'string' ? searchQuery(query) : query.searches;
}

export function wordsFor(query: string | PreparedQuery): WordSet {
  return typeof query === 'string' ? queryWordsOf(query) : query.words();
}

/** BM25 scores (minisearch's BM25+) of each text against the query; 0 for texts with no query term. */
export function bm25Scores(texts: readonly string[], query: string | Bm25Query): number[] {
  return bm25PlusScores(texts, typeof query === 'string' ? searchQuery(query) : query, BM25_TERMS);
}

/** Values divided by their maximum (all 0 when none is positive). */
export function normalized(values: readonly number[]): number[] {
  const max = Math.max(0, ...values);
  return max > 0 ? values.map((v) => v / max) : values.map(() => 0);
}

/**
 * Weight of relevance to the context against relevance to the query (1): the context's ids still pick the
 * record a step is about, among records the query does not tell apart.
 */
export const CONTEXT_WEIGHT = 0.5;

/** A query and its context, each prepared for search ({@link searchQuery}); no context: undefined. */
export interface SearchedQuery {
  query: Bm25Query;
  context: Bm25Query | undefined;
}

/** Relevance to the query, plus {@link CONTEXT_WEIGHT} of relevance to the context, each normalized. */
export function weightedRelevance(texts: readonly string[] | Bm25Index, query: SearchedQuery): number[] {
  const index = 'scores' in texts ? texts : bm25Index(texts, BM25_TERMS);
  const main = normalized(index.scores(query.query));
  if (!query.context) return main;
  const side = normalized(index.scores(query.context));
  return main.map((v, i) => v + CONTEXT_WEIGHT * (side[i] ?? 0));
}

/** Share of the words of a field name that the query uses, memoized per key. */
export function keyMatchOf(key: string | undefined, queryWords: WordSet, memo: Map<string, number>): number {
  if (key === undefined || queryWords.size === 0) return 0;
  const known = memo.get(key);
  if (known !== undefined) return known;
  const words = keyWordsOf(key);
  const share = words.length === 0 ? 0 : words.filter((w) => queryWords.has(w)).length / words.length;
  memo.set(key, share);
  return share;
}

// Field names and line labels recur from call to call: their words (stopwords left out) are remembered.
const keyWords = new Map<string, readonly string[]>();

function keyWordsOf(key: string): readonly string[] {
  let words = keyWords.get(key);
  if (words === undefined) {
    words = wordTokens(pathWords([key])).filter((w) => !isStopword(w));
    if (keyWords.size >= WORD_CACHE_LIMIT) keyWords.clear();
    keyWords.set(key, words);
  }
  return words;
}

// The words of the last queries, as the learned scorer's key match reads them (one query serves many calls).
const recentQueryWords = new Map<string, ReadonlySet<string>>();

function queryWordsOf(query: string): ReadonlySet<string> {
  let words = recentQueryWords.get(query);
  if (words === undefined) {
    words = new Set(wordTokens(query));
    if (recentQueryWords.size >= RECENT_QUERIES)
      recentQueryWords.delete(recentQueryWords.keys().next().value as string);
    recentQueryWords.set(query, words);
  }
  return words;
}

export function pathWords(path: readonly (string | number)[]): string {
  return path
    .filter((p): p is string => typeof p === 'string')
    .map(keyText)
    .join(' ');
}

// Field names recur in every record: each one's words are spelled out once.
const keyTexts = new Map<string, string>();

/** A field name as words: `orderId` and `order_id` as `order Id` and `order id`. */
function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    // One pass: a space between a lower-case letter and the capital after it, and for each run of `_` and `-`.
    text = key.replace(/([a-z])([A-Z])|[_-]+/gu, (_, lower?: string, upper?: string) =>
      lower === undefined ? ' ' : `${lower} ${upper}`,
    );
    if (keyTexts.size >= WORD_CACHE_LIMIT) keyTexts.clear();
    keyTexts.set(key, text);
  }
  return text;
}
