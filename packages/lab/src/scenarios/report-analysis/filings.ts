/**
 * Documents before passages: a search over a folder of filings that first ranks the documents (files) by whether
 * they are the one the question is about (the company it names, against the file name, the first page and how
 * often the document says it; the fiscal year; the form type) and only then the pages within the best of them.
 * Over a folder of twenty 10-Ks, "AmEx operating margin" must lead with AmEx's pages, however well another
 * company's page matches "operating margin".
 */
import { CorpusIndex, type CorpusSearchResult } from 'pagewise/sources';
import { wordTokens } from 'pagewise/internal';
import { pagePrints, questionMeasures } from './measures.js';
import { canonicalTerm, searchQuery, understandQuestion, type QuestionQuery } from './query.js';

/** The file a document URI belongs to: a PDF page (`q3.pdf#12`) and a sheet (`book.xlsx#Costs`) to their file. */
export function fileOfUri(uri: string): string {
  const match = /^(.*\.(?:pdf|xlsx))#[^/]*$/i.exec(uri);
  return match ? match[1]! : uri;
}

interface FileProfile {
  /** The file name, lower-case, its separators as spaces. */
  name: string;
  /** The pages (or the one document) of the file, in order. */
  pages: { uri: string; title: string; body: string }[];
  /** The first page's text, lower-case. */
  first?: string;
  /** The whole text, lower-case (built when first needed). */
  all?: string;
}

/** How one document matches a question, for ranking and for saying so. */
export interface DocumentMatch {
  /** The file. */
  file: string;
  /** 0..1: how well the document is the entity the question names (0 when the question names none). */
  entity: number;
  /**
   * Whether it is one of the named entity's documents: its {@link entity} is within {@link ENTITY_TOLERANCE} of the
   * best document's (and above 0).
   */
  named: boolean;
  /**
   * 0..1: the fiscal years named, in the file name or on the first page. When the question names no year, the named company's latest filing: 1 when the question asks for the latest,
   * {@link UNDATED_LATEST} otherwise.
   */
  period: number;
  /** 0..1: the quarters named with their year ("Q1 2023"), in the file name ({@link namesQuarter}). */
  quarter: number;
  /** Whether the form type named is in the file name or on the first page. */
  form: boolean;
  /** 0..1: its best page's full-text score against the best page overall. */
  content: number;
  score: number;
}

/**
 * How far below the best entity match a document still counts as the named entity's. A name the file name and the
 * cover do not give ("AWS" in Amazon's filings) is scored by how often the text says it, which differs a little
 * from one filing of a company to the next; those filings are still one company's.
 */
const ENTITY_TOLERANCE = 0.05;

/** Page hits considered when ranking documents. */
const HITS_CONSIDERED = 50;
/** Pages the best document shows first when it is the named company's, before that company's other filings. */
const LEAD_PAGES = 4;
/** Pages each other filing of the named company shows after those. */
const SAME_COMPANY_PAGES = 1;
/** Pages a document gets in the results when no document is the named entity (so several documents show). */
const PAGES_PER_DOCUMENT = 3;
/** Characters of the first page read for the file's identity (cover page, title). */
const FIRST_PAGE_CHARS = 4000;
/** BM25 term-frequency saturation and length normalisation of the page ranking within a named company's filings. */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

/**
 * The period credit of the named company's latest filing for a question that names no period and does not ask for
 * the latest: a question over "these quarters" or "over time" is answered from the latest filing, which reports the
 * latest period beside the periods before it, unless another filing's pages hold more of the question's words.
 */
const UNDATED_LATEST = 0.5;

/** Words of a question for the latest period a company has filed for. */
const LATEST = /\b(?:latest|recent|current)\b/i;
const PERIOD_ENDED =
  /\bperiod\s+ended\s+(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+(\d{1,2}),?\s+((?:19|20)\d\d)\b/i;

/**
 * When a filing's period ended, as a time value: the first page's "for the quarterly period ended July 1, 2023",
 * else the year and quarter of its file name ("2023 Q3 AAPL.pdf"); undefined when neither says it.
 */
function periodEnded(profile: FileProfile): number | undefined {
  const first = `${profile.pages[0]?.body.slice(0, FIRST_PAGE_CHARS) ?? ''}`;
  const match = PERIOD_ENDED.exec(first);
  if (match) {
    const at = Date.parse(`${match[1]} ${match[2]}, ${match[3]}`);
    if (!Number.isNaN(at)) return at;
  }
  const named = /\b((?:19|20)\d\d)\s*q([1-4])\b/.exec(profile.name);
  return named ? Date.UTC(Number(named[1]), Number(named[2]) * 3 - 1, 28) : undefined;
}

/**
 * Whether a file name (lower-case, separators as spaces) names the quarter `2023 Q1` of {@link QuestionQuery.quarters}:
 * "2023 q1", "q1 2023", "2023q1", "q1 fy2023".
 */
export function namesQuarter(name: string, quarter: string): boolean {
  const [year, number] = quarter.toLowerCase().split(' ');
  return new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${year} ?${number}|${number} ?(?:fy ?)?${year})(?![\\p{L}\\p{N}])`,
    'u',
  ).test(name);
}

/** A page's words in canonical form with their counts, and its length in words. */
interface PageWords {
  counts: Map<string, number>;
  length: number;
}

function pageWords(body: string): PageWords {
  const counts = new Map<string, number>();
  const words = wordTokens(body);
  for (const word of words) {
    const term = canonicalTerm(word);
    counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return { counts, length: words.length };
}

function occurrences(text: string, word: string): number {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.match(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'gu'))?.length ?? 0;
}

/**
 * A full-text index whose search ranks documents before pages (see the module comment). Without names, years or
 * a form type in the query it orders documents by their best page and shows a few pages of each.
 *
 * @example
 * const index = new FilingIndex();
 * for (const doc of folder.documents) index.add(doc);
 * index.search("AmEx's operating margin FY2022", 10); // AmEx's pages first
 */
export class FilingIndex extends CorpusIndex {
  readonly #files = new Map<string, FileProfile>();
  /** Canonical words of each page, built when first needed. */
  readonly #words = new Map<string, PageWords>();
  /** In how many pages of the whole folder each canonical word occurs, and the mean page length (built when needed). */
  #frequencies: { pages: Map<string, number>; meanLength: number } | undefined;

  #wordsOf(page: { uri: string; body: string }): PageWords {
    let words = this.#words.get(page.uri);
    if (!words) this.#words.set(page.uri, (words = pageWords(page.body)));
    return words;
  }

  #pageFrequencies(): { pages: Map<string, number>; meanLength: number } {
    if (this.#frequencies) return this.#frequencies;
    const pages = new Map<string, number>();
    let total = 0;
    let count = 0;
    for (const profile of this.#files.values())
      for (const page of profile.pages) {
        const words = this.#wordsOf(page);
        for (const term of words.counts.keys()) pages.set(term, (pages.get(term) ?? 0) + 1);
        total += words.length;
        count += 1;
      }
    return (this.#frequencies = { pages, meanLength: total / Math.max(1, count) });
  }

  /**
   * BM25 of a page of the named company's filings over the question's terms other than the names: the name chose
   * the filing, so the pages that repeat it (a cover, a header) are not the better answer for it.
   */
  #pageScore(page: { uri: string; body: string }, terms: readonly string[]): number {
    const { pages, meanLength } = this.#pageFrequencies();
    const pageCount = this.size;
    const words = this.#wordsOf(page);
    let score = 0;
    for (const term of terms) {
      const tf = words.counts.get(term) ?? 0;
      if (tf === 0) continue;
      const df = pages.get(term) ?? 0;
      const idf = Math.log(1 + (pageCount - df + 0.5) / (df + 0.5));
      score += (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * words.length) / meanLength));
    }
    return score;
  }

  override add(doc: { uri: string; title: string; body: string }): void {
    super.add(doc);
    const file = fileOfUri(doc.uri);
    let profile = this.#files.get(file);
    if (!profile) {
      const base = file.split('/').pop() ?? file;
      profile = { name: base.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' '), pages: [] };
      this.#files.set(file, profile);
    }
    const at = profile.pages.findIndex((p) => p.uri === doc.uri);
    if (at >= 0) profile.pages[at] = doc;
    else profile.pages.push(doc);
    delete profile.first;
    delete profile.all;
    this.#words.delete(doc.uri);
    this.#frequencies = undefined;
  }

  override remove(uri: string): boolean {
    const profile = this.#files.get(fileOfUri(uri));
    if (profile) {
      profile.pages = profile.pages.filter((p) => p.uri !== uri);
      delete profile.first;
      delete profile.all;
      if (profile.pages.length === 0) this.#files.delete(fileOfUri(uri));
    }
    this.#words.delete(uri);
    this.#frequencies = undefined;
    return super.remove(uri);
  }

  /** How each document matches `query`, best first (documents with no match of any kind are left out). */
  rankDocuments(query: QuestionQuery, pageHits?: readonly CorpusSearchResult[]): DocumentMatch[] {
    const hits = pageHits ?? super.search(searchQuery(query), HITS_CONSIDERED);
    const best = new Map<string, number>();
    const top = hits[0]?.score ?? 1;
    for (const hit of hits) {
      const file = fileOfUri(hit.uri);
      if (!best.has(file)) best.set(file, hit.score / top);
    }
    const order = [...best.keys()];
    const matches: DocumentMatch[] = [];
    for (const [file, profile] of this.#files) {
      const first = (profile.first ??=
        `${profile.pages[0]?.title ?? ''}\n${profile.pages[0]?.body.slice(0, FIRST_PAGE_CHARS) ?? ''}`.toLowerCase());
      let entity = 0;
      for (const entityName of query.entities) {
        if (
          occurrences(profile.name, entityName) > 0 ||
          (entityName.length >= 4 && profile.name.replace(/ /g, '').includes(entityName))
        )
          entity += 1;
        else if (occurrences(first, entityName) > 0) entity += 0.8;
        else {
          profile.all ??= profile.pages
            .map((p) => p.body)
            .join('\n')
            .toLowerCase();
          entity += Math.min(0.6, Math.log10(1 + occurrences(profile.all, entityName)) / 3);
        }
      }
      entity = query.entities.length ? entity / query.entities.length : 0;
      let period = 0;
      for (const year of query.years)
        period += occurrences(profile.name, year) > 0 ? 1 : first.includes(year) ? 0.5 : 0;
      period = query.years.length ? period / query.years.length : 0;
      const quarter = query.quarters.length
        ? query.quarters.filter((q) => namesQuarter(profile.name, q)).length / query.quarters.length
        : 0;
      const formWord = query.formType?.toLowerCase();
      const form =
        formWord !== undefined &&
        (profile.name.includes(formWord.replace('-', '')) ||
          profile.name.includes(formWord.replace('-', ' ')) ||
          first.includes(formWord));
      const content = best.get(file) ?? 0;
      matches.push({ file, entity, named: false, period, quarter, form, content, score: 0 });
    }
    // Content counts against the best page of the documents that match the name best, so another company's better
    // page does not shrink the difference between two filings of the named one.
    const topEntity = Math.max(0, ...matches.map((m) => m.entity));
    for (const match of matches) match.named = topEntity > 0 && match.entity >= topEntity - ENTITY_TOLERANCE;
    // No year named: of the named company's filings, the one filed for the latest period ("the most recent 10-Q"
    // fully; a question over the company's filings as a tie-break, see UNDATED_LATEST).
    if (query.years.length === 0) {
      const credit = LATEST.test(query.text) ? 1 : UNDATED_LATEST;
      const dated = matches
        .filter((m) => m.named)
        .map((m) => ({ m, at: periodEnded(this.#files.get(m.file)!) }))
        .filter((d): d is { m: DocumentMatch; at: number } => d.at !== undefined);
      const newest = Math.max(...dated.map((d) => d.at));
      for (const entry of dated) if (entry.at === newest) entry.m.period = credit;
    }
    const topContent = Math.max(0, ...matches.filter((m) => m.named || topEntity === 0).map((m) => m.content)) || 1;
    // The named company's filings are read whole: a page outside the overall hits (crowded out by other companies'
    // pages) still counts by the share of the question's other terms it holds.
    const canonicalNames = new Set(query.entities.map(canonicalTerm));
    const asked = query.terms.filter((t) => !canonicalNames.has(t));
    for (const match of matches) {
      match.content = Math.min(1, match.content / topContent);
      if (match.named && asked.length > 0) {
        let share = 0;
        for (const page of this.#files.get(match.file)!.pages) {
          const words = this.#wordsOf(page).counts;
          share = Math.max(share, asked.filter((t) => words.has(t)).length / asked.length);
        }
        match.content = Math.max(match.content, share);
      }
      // The name decides; between a company's filings, the words of the question outweigh the year of the file (a
      // 2019 filing reports 2018 too), and the year outweighs the form. A quarter named weighs as much as the words:
      // a quarter's own figures are in that quarter's filing, and in the next year's only as the comparison.
      match.score = 3 * match.entity + 0.5 * match.period + match.quarter + (match.form ? 0.25 : 0) + match.content;
    }
    const rankOf = (file: string) => {
      const position = order.indexOf(file);
      return position < 0 ? order.length : position;
    };
    return matches
      .filter((m) => m.score > 0)
      .sort((a, b) => b.score - a.score || rankOf(a.file) - rankOf(b.file) || (a.file < b.file ? -1 : 1));
  }

  /**
   * The `count` best pages for `query`: the pages of the best-matching document first (all `count` of them when it is
   * the entity the query names), each document's pages by their own match, then the next document's.
   */
  override search(query: string, count = 10): CorpusSearchResult[] {
    const parsed = understandQuestion(query);
    const limit = Math.max(1, Math.min(50, Math.trunc(count)));
    const hits = super.search(searchQuery(parsed), HITS_CONSIDERED);
    const documents = this.rankDocuments(parsed, hits);
    if (documents.length === 0) return [];
    const byUri = new Map(hits.map((h) => [h.uri, h]));
    const top = hits[0]?.score ?? 1;
    const names = new Set(parsed.entities.map(canonicalTerm));
    const asked = parsed.terms.filter((t) => !names.has(t));
    const lead = documents[0]!;
    // A page that prints a measure the query names as a statement line (measures.ts) answers it, whatever its words.
    const measures = questionMeasures(query);
    /**
     * A document's pages best first. The named company's filings: every page by the question's other terms. Any
     * other document: its overall hits, then its other pages by the share of the terms they hold.
     */
    const pagesOf = (file: string): CorpusSearchResult[] => {
      const profile = this.#files.get(file)!;
      const named = documents.find((d) => d.file === file)?.named === true;
      if (named && asked.length > 0) {
        const scored = profile.pages.map((page) => ({
          page,
          score: this.#pageScore(page, asked),
          prints: pagePrints(measures, page.body) ? 1 : 0,
        }));
        return (
          scored
            // A page that prints the measure stays even when it holds none of the other words ("R&D" is no word of it).
            .filter(({ page, score, prints }) => score > 0 || prints > 0 || byUri.has(page.uri))
            .sort(
              (left, right) =>
                right.prints - left.prints ||
                right.score - left.score ||
                (byUri.get(right.page.uri)?.score ?? 0) - (byUri.get(left.page.uri)?.score ?? 0),
            )
            .map(({ page, score }) => ({
              uri: page.uri,
              title: page.title,
              snippet: byUri.get(page.uri)?.snippet ?? page.body.replace(/\s+/g, ' ').trim().slice(0, 200),
              score,
            }))
        );
      }
      const hitPages = profile.pages.filter((page) => byUri.has(page.uri)).map((page) => byUri.get(page.uri)!);
      const others = profile.pages
        .filter((page) => !byUri.has(page.uri))
        .map((page) => {
          const words = this.#wordsOf(page).counts;
          const held = (asked.length ? asked : parsed.terms).filter((t) => words.has(t)).length;
          return {
            uri: page.uri,
            title: page.title,
            snippet: page.body.replace(/\s+/g, ' ').trim().slice(0, 200),
            score: (held / Math.max(1, asked.length || parsed.terms.length)) * top * 0.5,
          };
        })
        .filter((p) => p.score > 0);
      return [...hitPages.sort((x, y) => y.score - x.score), ...others.sort((x, y) => y.score - x.score)];
    };
    // The named company's filings (other years, other forms) come right after the best one's first pages: the year
    // of a file is weaker evidence than the words of a page (a 2019 10-K reports 2018 as well).
    const company = lead.named ? documents.filter((d) => d.named).slice(0, 3) : [];
    const turns: [string, number][] =
      company.length > 0
        ? [
            [lead.file, LEAD_PAGES],
            ...company.slice(1).map((d): [string, number] => [d.file, SAME_COMPANY_PAGES]),
            [lead.file, limit],
            ...documents.filter((d) => !company.includes(d)).map((d): [string, number] => [d.file, PAGES_PER_DOCUMENT]),
          ]
        : documents.map((d): [string, number] => [d.file, PAGES_PER_DOCUMENT]);
    const out: CorpusSearchResult[] = [];
    const seen = new Set<string>();
    const ranked = new Map<string, CorpusSearchResult[]>();
    for (const [file, room] of turns) {
      if (out.length >= limit) break;
      let pages = ranked.get(file);
      if (!pages) ranked.set(file, (pages = pagesOf(file)));
      let taken = 0;
      for (const page of pages) {
        if (taken >= room || out.length >= limit) break;
        if (seen.has(page.uri)) continue;
        seen.add(page.uri);
        out.push(page);
        taken += 1;
      }
    }
    return out;
  }
}
