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

const K = 1.2;
const B = 0.7;
const D = 0.5;
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
const MAX_FUZZY = 6;
// Indexed terms are grouped by their first characters, so a prefix query looks at its group only.
const HEAD = 3;

interface Posting {
  docs: number[];
  freqs: number[];
}

/** The terms of the texts, with what a search needs to find prefix and fuzzy matches quickly. */
class TermIndex {
  readonly postings = new Map<string, Posting>();
  readonly lengths: number[];
  avgLength = 0;
  private byHead: Map<string, string[]> | undefined;
  private byLength: Map<number, string[]> | undefined;

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
    if (this.byHead === undefined) {
      this.byHead = new Map();
      for (const t of this.postings.keys()) push(this.byHead, t.slice(0, HEAD), t);
    }
    const pool = term.length >= HEAD ? (this.byHead.get(term.slice(0, HEAD)) ?? []) : [...this.byHead.values()].flat();
    return pool.filter((t) => t.length > term.length && t.startsWith(term));
  }

  /** Indexed terms within `max` edits of `term` (itself excluded), with their distance. */
  near(term: string, max: number): [string, number][] {
    if (this.byLength === undefined) {
      this.byLength = new Map();
      for (const t of this.postings.keys()) push(this.byLength, t.length, t);
    }
    const pieces = piecesOf(term, max + 1);
    const out: [string, number][] = [];
    for (let length = Math.max(1, term.length - max); length <= term.length + max; length += 1) {
      for (const t of this.byLength.get(length) ?? []) {
        // Each edit changes at most one of max + 1 pieces: a term within reach contains one unchanged.
        if (!pieces.some((p) => t.includes(p))) continue;
        const distance = editDistance(term, t, max);
        if (distance > 0 && distance <= max) out.push([t, distance]);
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

/** `text` cut into `n` contiguous pieces of near-equal length (fewer when it is shorter than `n`). */
function piecesOf(text: string, n: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const piece = text.slice(Math.floor((i * text.length) / n), Math.floor(((i + 1) * text.length) / n));
    if (piece) pieces.push(piece);
  }
  return pieces;
}

let previousRow = new Int32Array(64);
let currentRow = new Int32Array(64);

/** Levenshtein distance of `a` and `b` when at most `max`, else some value above `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (previousRow.length <= b.length) {
    previousRow = new Int32Array(b.length * 2 + 1);
    currentRow = new Int32Array(b.length * 2 + 1);
  }
  let prev = previousRow;
  let cur = currentRow;
  for (let j = 0; j <= b.length; j += 1) prev[j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j += 1) {
      const value = Math.min(prev[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1), prev[j]! + 1, cur[j - 1]! + 1);
      cur[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** Per-text sums that are taken and then emptied, touching only the texts that have a share. */
class Sum {
  private readonly values: Float64Array;
  private readonly touched: number[] = [];

  constructor(n: number) {
    this.values = new Float64Array(n);
  }

  add(doc: number, value: number): void {
    // Scores are positive, so a zero is a text without a share yet.
    const sum = this.values[doc] ?? 0;
    if (sum === 0) this.touched.push(doc);
    this.values[doc] = sum + value;
  }

  /** Calls `use` with each text's sum, in the order the texts got their first share, and empties them. */
  drain(use: (doc: number, sum: number) => void): void {
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
export function bm25PlusScores(texts: readonly string[], queries: readonly string[], terms: Bm25Terms): number[] {
  const n = texts.length;
  const scores = new Array<number>(n).fill(0);
  if (n === 0 || queries.length === 0) return scores;
  const index = new TermIndex(texts, terms);
  // A query term's sum per text (its own matches, then its prefix and fuzzy matches), a query's sum over
  // its terms, and the total over queries: the three sums minisearch takes, in its order.
  const term = new Sum(n);
  const query = new Sum(n);
  const total = new Float64Array(n);
  const matched = new Int32Array(n);
  const matchedBy = new Map<string, Set<number>>();
  const add = (indexed: string, weight: number): void => {
    const posting = index.postings.get(indexed);
    if (posting === undefined) return;
    const count = posting.docs.length;
    const idf = Math.log(1 + (n - count + 0.5) / (count + 0.5));
    for (let i = 0; i < count; i += 1) {
      const doc = posting.docs[i]!;
      const tf = posting.freqs[i]!;
      term.add(
        doc,
        weight * (idf * (D + (tf * (K + 1)) / (tf + K * (1 - B + (B * index.lengths[doc]!) / index.avgLength)))),
      );
    }
  };
  for (const text of queries) {
    for (const token of terms.tokenize(text)) {
      const searched = terms.processTerm(token);
      if (!searched) continue;
      add(searched, 1);
      const prefixed = terms.prefix(searched);
      for (const t of prefixed ? index.extensions(searched) : []) {
        add(t, (PREFIX_WEIGHT * t.length) / (t.length + 0.3 * (t.length - searched.length)));
      }
      const fuzzy = terms.fuzzy(searched);
      const max = fuzzy === false ? 0 : fuzzy < 1 ? Math.min(MAX_FUZZY, Math.round(searched.length * fuzzy)) : fuzzy;
      for (const [t, distance] of max > 0 ? index.near(searched, max) : []) {
        if (!(prefixed && t.startsWith(searched))) add(t, (FUZZY_WEIGHT * t.length) / (t.length + distance));
      }
      let seen = matchedBy.get(searched);
      if (seen === undefined) matchedBy.set(searched, (seen = new Set()));
      term.drain((doc, score) => {
        query.add(doc, score);
        if (!seen.has(doc)) {
          seen.add(doc);
          matched[doc] = (matched[doc] ?? 0) + 1;
        }
      });
    }
    query.drain((doc, score) => (total[doc] = (total[doc] ?? 0) + score));
  }
  for (let doc = 0; doc < n; doc += 1) if (matched[doc]! > 0) scores[doc] = total[doc]! * matched[doc]!;
  return scores;
}
