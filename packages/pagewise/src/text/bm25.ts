/**
 * BM25+ relevance of a set of texts to a query, scored as minisearch 7 scores a one-field index searched
 * with prefix and fuzzy matching (`combineWith: 'OR'`), without building its radix tree and nested maps:
 * a compressor ranks the units of one document per call, so the index lives for one search, and building
 * it was most of the time a call took.
 *
 * Scoring, as minisearch's: a text's length is its count of distinct tokens; a term's score in a text is
 * `idf · (d + tf·(k+1) / (tf + k·(1 − b + b·length/avgLength)))` with k 1.2, b 0.7, d 0.5 and
 * `idf = ln(1 + (N − n + 0.5)/(n + 0.5))`; an indexed term that extends a query term is weighted
 * `0.375·len / (len + 0.3·extra)`, one within the fuzzy edit distance `0.45·len / (len + distance)`; a
 * text's score is the sum over the query's terms, times the number of query terms it matched. Sums are
 * taken in the same order for every text, so equal texts score equally; the order of a query term's prefix
 * and fuzzy matches is the index's first-seen order, where minisearch's is its tree's, which can change
 * the last bit of a sum over several such matches.
 */

/** How texts and queries become terms, and how each query term is matched. */
export interface Bm25Terms {
  /** Splits a text (or a query term) into tokens. */
  tokenize: (text: string) => string[];
  /** The indexed or searched form of a token; null drops it (a stopword). */
  processTerm: (token: string) => string | null;
  /** Whether a query term also matches the indexed terms it is a prefix of. */
  prefix: (term: string) => boolean;
  /**
   * A text's length (its count of distinct tokens) and its processed terms in order, as `tokenize` and
   * `processTerm` give them; faster when texts share pieces whose analysis can be remembered.
   */
  analyze?: (text: string) => { length: number; terms: readonly string[] };
  /** The edit distance allowed for a query term, as a share of its length (rounded, at most 6), or false. */
  fuzzy: (term: string) => number | false;
}

// BM25's k1 and b, and BM25+'s delta, named for what each does to a score.
const TERM_SATURATION = 1.2;
const LENGTH_NORMALIZATION = 0.7;
const MATCH_DELTA = 0.5;
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
const MAX_FUZZY = 6;
// Indexed terms are grouped by their first characters, so a prefix query looks at its group only.
const HEAD = 3;

interface Posting {
  docs: number[];
  freqs: number[];
}

/** One query term as it is searched: the processed term, whether prefixes count, the edits allowed. */
export interface Bm25Search {
  term: string;
  prefixed: boolean;
  /** Edit distance allowed for fuzzy matches (0: none). */
  maxEdits: number;
  /** The term cut into `maxEdits + 1` pieces: a term within reach holds one of them unchanged. */
  pieces: readonly string[];
  /** The first trigram of each piece, or undefined when a piece is shorter (see `TermIndex.near`). */
  grams: readonly string[] | undefined;
  /** The first characters of the term, by which the index groups the terms a prefix can extend. */
  head: string;
}

/**
 * Query texts tokenized and processed once, for scoring many sets of texts against the same query
 * (a compressor ranks units, paragraphs and records against one query).
 */
export interface Bm25Query {
  /** Per query text, its searched terms in order. */
  readonly searches: readonly (readonly Bm25Search[])[];
}

/** Tokenizes and processes `queries` as {@link bm25PlusScores} searches them. */
export function prepareBm25Query(queries: readonly string[], terms: Bm25Terms): Bm25Query {
  return { searches: queries.map((text) => searchesOf(text, terms)) };
}

/**
 * The searched terms of one query text, in order: one entry of {@link Bm25Query.searches}. A caller that
 * builds queries from the same texts again and again can remember these.
 */
export function searchesOf(text: string, terms: Bm25Terms): readonly Bm25Search[] {
  const out: Bm25Search[] = [];
  for (const token of terms.tokenize(text)) {
    const term = terms.processTerm(token);
    if (!term) continue;
    const fuzzy = terms.fuzzy(term);
    const maxEdits = fuzzy === false ? 0 : fuzzy < 1 ? Math.min(MAX_FUZZY, Math.round(term.length * fuzzy)) : fuzzy;
    const pieces = maxEdits > 0 ? piecesOf(term, maxEdits + 1) : [];
    const grams = pieces.every((p) => p.length >= GRAM) ? pieces.map((p) => p.slice(0, GRAM)) : undefined;
    out.push({ term, prefixed: terms.prefix(term), maxEdits, pieces, grams, head: term.slice(0, HEAD) });
  }
  return out;
}

// Fuzzy candidates are found through the trigrams of the indexed terms: each piece of a query term is at
// least this long when the term is allowed edits (a shorter piece falls back to a scan by length).
const GRAM = 3;
// Fuzzy searches of one index answered by a scan before its trigrams are indexed.
const SCANNED_SEARCHES = 16;

/** The terms of the texts, with what a search needs to find prefix and fuzzy matches quickly. */
class TermIndex {
  readonly postings = new Map<string, Posting>();
  readonly lengths: number[];
  avgLength = 0;
  private byHead: Map<string, string[]> | undefined;
  private byLength: Map<number, string[]> | undefined;
  /** Indexed terms in first-seen order, and per trigram the positions in it of the terms holding it. */
  private ordered: string[] | undefined;
  private byGram: Map<string, number[]> | undefined;
  private seenAt: Int32Array | undefined;
  private stamp = 0;
  private fuzzySearches = 0;

  constructor(texts: readonly string[], terms: Bm25Terms) {
    this.lengths = new Array<number>(texts.length);
    const analyze = terms.analyze ?? ((text: string) => analyzed(text, terms));
    texts.forEach((text, doc) => {
      const { length, terms: processed } = analyze(text);
      this.lengths[doc] = length;
      // Updated as minisearch updates it, so the average has the same bits.
      this.avgLength = (this.avgLength * doc + length) / (doc + 1);
      for (const term of processed) {
        const posting = this.postings.get(term);
        if (posting === undefined) this.postings.set(term, { docs: [doc], freqs: [1] });
        else if (posting.docs[posting.docs.length - 1] === doc) posting.freqs[posting.freqs.length - 1]! += 1;
        else {
          posting.docs.push(doc);
          posting.freqs.push(1);
        }
      }
    });
  }

  /** Indexed terms that `term` is a proper prefix of, in first-seen order. */
  extensions(term: string): string[] {
    const byHead = this.heads();
    const pool = term.length >= HEAD ? (byHead.get(term.slice(0, HEAD)) ?? []) : [...byHead.values()].flat();
    return pool.filter((t) => t.length > term.length && t.startsWith(term));
  }

  private heads(): Map<string, string[]> {
    if (this.byHead === undefined) {
      this.byHead = new Map();
      for (const term of this.postings.keys()) push(this.byHead, term.slice(0, HEAD), term);
    }
    return this.byHead;
  }

  /**
   * False when `search` can match no indexed term: not one exactly, none it is a prefix of (no term starts
   * with its first characters) and none within its edits (no term holds a piece's first trigram). A long
   * query holds many such terms; this tells them apart without the searches' allocations.
   */
  mayMatch({ term, prefixed, maxEdits, grams, head }: Bm25Search): boolean {
    if (this.postings.has(term)) return true;
    if (prefixed && (term.length < HEAD || this.heads().has(head))) return true;
    if (maxEdits === 0) return false;
    if (grams === undefined || this.byGram === undefined) return true;
    return grams.some((gram) => this.byGram!.has(gram));
  }

  /**
   * Indexed terms within `max` edits of `term` (itself excluded), with their distance, by length and then
   * in first-seen order. Each edit changes at most one of the `max + 1` pieces, so a term within reach
   * holds one of them unchanged, and with it that piece's first trigram: only the terms holding one of
   * those trigrams are compared.
   */
  near({ term, maxEdits: max, pieces, grams }: Bm25Search): [string, number][] {
    // A few searches scan the terms of near length; the trigrams pay off from a long query on.
    this.fuzzySearches += 1;
    if (grams === undefined || this.fuzzySearches <= SCANNED_SEARCHES) return this.nearByLength(term, max, pieces);
    const ordered = this.gramIndex();
    const seenAt = this.seenAt!;
    this.stamp += 1;
    const candidates: number[] = [];
    for (const gram of grams) {
      for (const ordinal of this.byGram!.get(gram) ?? []) {
        if (seenAt[ordinal] === this.stamp) continue;
        seenAt[ordinal] = this.stamp;
        const indexedTerm = ordered[ordinal]!;
        if (Math.abs(indexedTerm.length - term.length) <= max) candidates.push(ordinal);
      }
    }
    candidates.sort((a, b) => ordered[a]!.length - ordered[b]!.length || a - b);
    const out: [string, number][] = [];
    for (const ordinal of candidates) {
      const indexedTerm = ordered[ordinal]!;
      if (!pieces.some((p) => indexedTerm.includes(p))) continue;
      const distance = editDistance(term, indexedTerm, max);
      if (distance > 0 && distance <= max) out.push([indexedTerm, distance]);
    }
    return out;
  }

  /**
   * Indexes the trigrams now, for a query with more fuzzy terms than a scan is worth: {@link near} then
   * finds candidates through them from the first search on, and {@link mayMatch} rules out the fuzzy terms
   * no indexed term shares a trigram with. Either way a search finds the same terms, in the same order.
   */
  indexGrams(): void {
    this.gramIndex();
    this.fuzzySearches = Math.max(this.fuzzySearches, SCANNED_SEARCHES);
  }

  private gramIndex(): string[] {
    if (this.ordered === undefined) {
      this.ordered = [...this.postings.keys()];
      this.byGram = new Map();
      this.seenAt = new Int32Array(this.ordered.length);
      this.ordered.forEach((indexedTerm, ordinal) => {
        for (let at = 0; at + GRAM <= indexedTerm.length; at += 1) {
          const gram = indexedTerm.slice(at, at + GRAM);
          const list = this.byGram!.get(gram);
          if (list === undefined) this.byGram!.set(gram, [ordinal]);
          else if (list[list.length - 1] !== ordinal) list.push(ordinal);
        }
      });
    }
    return this.ordered;
  }

  private nearByLength(term: string, max: number, pieces: readonly string[]): [string, number][] {
    if (this.byLength === undefined) {
      this.byLength = new Map();
      for (const indexedTerm of this.postings.keys()) push(this.byLength, indexedTerm.length, indexedTerm);
    }
    const out: [string, number][] = [];
    for (let length = Math.max(1, term.length - max); length <= term.length + max; length += 1) {
      for (const indexedTerm of this.byLength.get(length) ?? []) {
        if (!pieces.some((p) => indexedTerm.includes(p))) continue;
        const distance = editDistance(term, indexedTerm, max);
        if (distance > 0 && distance <= max) out.push([indexedTerm, distance]);
      }
    }
    return out;
  }
}

function analyzed(text: string, terms: Bm25Terms): { length: number; terms: string[] } {
  const tokens = terms.tokenize(text);
  const processed: string[] = [];
  for (const token of tokens) {
    const term = terms.processTerm(token);
    if (term) processed.push(term);
  }
  return { length: new Set(tokens).size, terms: processed };
}

function push<K>(map: Map<K, string[]>, key: K, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** `text` cut into `count` contiguous pieces of near-equal length (fewer when it is shorter than `count`). */
function piecesOf(text: string, count: number): string[] {
  const pieces: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const piece = text.slice(
      Math.floor((index * text.length) / count),
      Math.floor(((index + 1) * text.length) / count),
    );
    if (piece) pieces.push(piece);
  }
  return pieces;
}

let previousRow = new Int32Array(64);
let currentRow = new Int32Array(64);

/** Levenshtein distance of `source` and `target` when at most `max`, else some value above `max`. */
export function editDistance(source: string, target: string, max: number): number {
  if (Math.abs(source.length - target.length) > max) return max + 1;
  if (previousRow.length <= target.length) {
    previousRow = new Int32Array(target.length * 2 + 1);
    currentRow = new Int32Array(target.length * 2 + 1);
  }
  let prev = previousRow;
  let cur = currentRow;
  for (let column = 0; column <= target.length; column += 1) prev[column] = column;
  for (let row = 1; row <= source.length; row += 1) {
    cur[0] = row;
    let rowMin = row;
    const ca = source.charCodeAt(row - 1);
    for (let column = 1; column <= target.length; column += 1) {
      const value = Math.min(
        prev[column - 1]! + (ca === target.charCodeAt(column - 1) ? 0 : 1),
        prev[column]! + 1,
        cur[column - 1]! + 1,
      );
      cur[column] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    [prev, cur] = [cur, prev];
  }
  return prev[target.length]!;
}

/** Per-text sums that are taken and then emptied, touching only the texts that have a share. */
class Sum {
  private readonly values: Float64Array;
  private readonly touched: number[] = [];

  constructor(size: number) {
    this.values = new Float64Array(size);
  }

  add(doc: number, value: number): void {
    // Scores are positive, so a zero is a text without a share yet.
    const sum = this.values[doc] ?? 0;
    if (sum === 0) this.touched.push(doc);
    this.values[doc] = sum + value;
  }

  /** True when no text has a share. */
  get empty(): boolean {
    return this.touched.length === 0;
  }

  /** Calls `use` with each text's sum, in the order the texts got their first share, and empties them. */
  drain(use: (doc: number, sum: number) => void): void {
    // A long query drains once per word, mostly with nothing to drain: setting the length is not free.
    if (this.touched.length === 0) return;
    for (const doc of this.touched) {
      use(doc, this.values[doc]!);
      this.values[doc] = 0;
    }
    this.touched.length = 0;
  }
}

/**
 * BM25+ scores of `texts` against the query terms `queries` (each tokenized and processed like a text), as
 * minisearch 7 gives them (see the module comment); 0 for a text no query term matches.
 */
export function bm25PlusScores(
  texts: readonly string[],
  queries: readonly string[] | Bm25Query,
  terms: Bm25Terms,
): number[] {
  return bm25Index(texts, terms).scores(isPrepared(queries) ? queries : prepareBm25Query(queries, terms));
}

function isPrepared(queries: readonly string[] | Bm25Query): queries is Bm25Query {
  return !Array.isArray(queries);
}

/** An index of `texts`, to score them against one query or several (see {@link bm25PlusScores}). */
export interface Bm25Index {
  scores(query: Bm25Query): number[];
  /**
   * `query` without its terms that match no indexed term (exactly, as a prefix or fuzzily), and without the
   * query texts left with no term. Texts made of
   * these texts' tokens (a paragraph of indexed units) score against it exactly as against `query`, without
   * the search of terms that cannot match: a long query holds far more terms than one document.
   */
  matching(query: Bm25Query): Bm25Query;
}

/** Indexes `texts` once for {@link Bm25Index.scores} against any number of prepared queries. */
export function bm25Index(texts: readonly string[], terms: Bm25Terms): Bm25Index {
  let index: TermIndex | undefined;
  const scored = new Map<Bm25Query, { scores: number[]; matching: Bm25Query }>();
  const score = (query: Bm25Query) => {
    let known = scored.get(query);
    if (known === undefined) {
      // No term to search (none matched a larger index): every text scores 0, as it would when searched.
      if (texts.length === 0 || query.searches.every((searches) => searches.length === 0)) {
        known = { scores: new Array<number>(texts.length).fill(0), matching: query };
      } else {
        index ??= new TermIndex(texts, terms);
        known = scoresOf(index, texts.length, query);
      }
      scored.set(query, known);
    }
    return known;
  };
  return { scores: (query) => [...score(query).scores], matching: (query) => score(query).matching };
}

/** Whether more than {@link SCANNED_SEARCHES} of the query's terms are searched fuzzily through trigrams. */
function manyFuzzy(query: Bm25Query): boolean {
  let count = 0;
  for (const searches of query.searches) {
    for (const search of searches) {
      if (search.maxEdits > 0 && search.grams !== undefined && ++count > SCANNED_SEARCHES) return true;
    }
  }
  return false;
}

function scoresOf(index: TermIndex, textCount: number, query: Bm25Query): { scores: number[]; matching: Bm25Query } {
  if (manyFuzzy(query)) index.indexGrams();
  const scores = new Array<number>(textCount).fill(0);
  // A query term's sum per text (its own matches, then its prefix and fuzzy matches), a query's sum over
  // its terms, and the total over queries: the three sums minisearch takes, in its order.
  const term = new Sum(textCount);
  const perQuery = new Sum(textCount);
  const total = new Float64Array(textCount);
  const matched = new Int32Array(textCount);
  const matchedBy = new Map<string, Set<number>>();
  const add = (indexed: string, weight: number): void => {
    const posting = index.postings.get(indexed);
    if (posting === undefined) return;
    const count = posting.docs.length;
    const idf = Math.log(1 + (textCount - count + 0.5) / (count + 0.5));
    for (let position = 0; position < count; position += 1) {
      const doc = posting.docs[position]!;
      const tf = posting.freqs[position]!;
      term.add(
        doc,
        weight *
          (idf *
            (MATCH_DELTA +
              (tf * (TERM_SATURATION + 1)) /
                (tf +
                  TERM_SATURATION *
                    (1 - LENGTH_NORMALIZATION + (LENGTH_NORMALIZATION * index.lengths[doc]!) / index.avgLength)))),
      );
    }
  };
  const addToTotal = (doc: number, score: number): void => {
    total[doc] = (total[doc] ?? 0) + score;
  };
  const live: (readonly Bm25Search[])[] = [];
  // Indexed loops: a long query runs them hundreds of times per index, mostly for words the index lacks.
  for (let queryIndex = 0; queryIndex < query.searches.length; queryIndex += 1) {
    const searches = query.searches[queryIndex]!;
    // Most query texts of a long query match nothing here.
    let kept: Bm25Search[] | undefined;
    for (let searchIndex = 0; searchIndex < searches.length; searchIndex += 1) {
      const search = searches[searchIndex]!;
      if (!index.mayMatch(search)) continue;
      const { term: searched, prefixed, maxEdits } = search;
      add(searched, 1);
      for (const extension of prefixed ? index.extensions(searched) : []) {
        add(
          extension,
          (PREFIX_WEIGHT * extension.length) / (extension.length + 0.3 * (extension.length - searched.length)),
        );
      }
      for (const [neighbour, distance] of maxEdits > 0 ? index.near(search) : []) {
        if (!(prefixed && neighbour.startsWith(searched)))
          add(neighbour, (FUZZY_WEIGHT * neighbour.length) / (neighbour.length + distance));
      }
      // Every match adds a positive share, so a term that added none matched nothing.
      if (term.empty) continue;
      (kept ??= []).push(search);
      let seen = matchedBy.get(searched);
      if (seen === undefined) matchedBy.set(searched, (seen = new Set()));
      term.drain((doc, score) => {
        perQuery.add(doc, score);
        if (!seen.has(doc)) {
          seen.add(doc);
          matched[doc] = (matched[doc] ?? 0) + 1;
        }
      });
    }
    // A query text with no term left adds nothing to any score: it is left out of the matching query.
    if (kept !== undefined) live.push(kept);
    if (!perQuery.empty) perQuery.drain(addToTotal);
  }
  for (let doc = 0; doc < textCount; doc += 1) if (matched[doc]! > 0) scores[doc] = total[doc]! * matched[doc]!;
  return { scores, matching: { searches: live } };
}
