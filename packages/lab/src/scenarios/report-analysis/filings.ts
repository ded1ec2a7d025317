/**
 * Documents before passages: a search over a folder of filings that first ranks the documents (files) by whether
 * they are the one the question is about (the company it names, against the file name, the first page and how
 * often the document says it; the fiscal year; the form type) and only then the pages within the best of them.
 * Over a folder of twenty 10-Ks, "AmEx operating margin" must lead with AmEx's pages, however well another
 * company's page matches "operating margin".
 */
import { CorpusIndex, type CorpusSearchResult } from 'pagewise';
import { canonicalWords, searchQuery, understandQuestion, type QuestionQuery } from './query.js';

/** The file a document URI belongs to: a PDF page (`q3.pdf#12`) and a sheet (`book.xlsx#Costs`) to their file. */
export function fileOfUri(uri: string): string {
  const m = /^(.*\.(?:pdf|xlsx))#[^/]*$/i.exec(uri);
  return m ? m[1]! : uri;
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
  /** 0..1: the fiscal years named, in the file name or on the first page. */
  period: number;
  /** Whether the form type named is in the file name or on the first page. */
  form: boolean;
  /** 0..1: its best page's full-text score against the best page overall. */
  content: number;
  score: number;
}

/** Page hits considered when ranking documents. */
const HITS_CONSIDERED = 50;
/** Pages a document gets in the results when no document is the named entity (so several documents show). */
const PAGES_PER_DOCUMENT = 3;
/** Characters of the first page read for the file's identity (cover page, title). */
const FIRST_PAGE_CHARS = 4000;

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
  }

  override remove(uri: string): boolean {
    const profile = this.#files.get(fileOfUri(uri));
    if (profile) {
      profile.pages = profile.pages.filter((p) => p.uri !== uri);
      delete profile.first;
      delete profile.all;
      if (profile.pages.length === 0) this.#files.delete(fileOfUri(uri));
    }
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
      for (const e of query.entities) {
        if (occurrences(profile.name, e) > 0 || (e.length >= 4 && profile.name.replace(/ /g, '').includes(e)))
          entity += 1;
        else if (occurrences(first, e) > 0) entity += 0.8;
        else {
          profile.all ??= profile.pages
            .map((p) => p.body)
            .join('\n')
            .toLowerCase();
          entity += Math.min(0.6, Math.log10(1 + occurrences(profile.all, e)) / 3);
        }
      }
      entity = query.entities.length ? entity / query.entities.length : 0;
      let period = 0;
      for (const y of query.years) period += occurrences(profile.name, y) > 0 ? 1 : first.includes(y) ? 0.5 : 0;
      period = query.years.length ? period / query.years.length : 0;
      const formWord = query.formType?.toLowerCase();
      const form =
        formWord !== undefined &&
        (profile.name.includes(formWord.replace('-', '')) ||
          profile.name.includes(formWord.replace('-', ' ')) ||
          first.includes(formWord));
      const content = best.get(file) ?? 0;
      // The name decides; between a company's filings, the words of the question outweigh the year of the file (a
      // 2019 filing reports 2018 too), and the year outweighs the form.
      const score = 3 * entity + 0.5 * period + (form ? 0.25 : 0) + content;
      if (score > 0) matches.push({ file, entity, period, form, content, score });
    }
    const rankOf = (file: string) => {
      const i = order.indexOf(file);
      return i < 0 ? order.length : i;
    };
    return matches.sort((a, b) => b.score - a.score || rankOf(a.file) - rankOf(b.file) || (a.file < b.file ? -1 : 1));
  }

  /**
   * The `k` best pages for `query`: the pages of the best-matching document first (all `k` of them when it is the
   * entity the query names), each document's pages by their own match, then the next document's.
   */
  override search(query: string, k = 10): CorpusSearchResult[] {
    const q = understandQuestion(query);
    const limit = Math.max(1, Math.min(50, Math.trunc(k)));
    const hits = super.search(searchQuery(q), HITS_CONSIDERED);
    const documents = this.rankDocuments(q, hits);
    if (documents.length === 0) return [];
    const byUri = new Map(hits.map((h) => [h.uri, h]));
    const top = hits[0]?.score ?? 1;
    const named = documents[0]!.entity > 0;
    const out: CorpusSearchResult[] = [];
    for (const doc of documents) {
      if (out.length >= limit) break;
      const profile = this.#files.get(doc.file)!;
      const room = named && doc === documents[0] ? limit : PAGES_PER_DOCUMENT;
      const hitPages = profile.pages
        .filter((page) => byUri.has(page.uri))
        .map((page) => ({ page, hit: byUri.get(page.uri), score: byUri.get(page.uri)!.score / top + 1 }));
      // Pages outside the overall hits, only when the document needs more: scored by the share of terms they hold.
      const others =
        hitPages.length >= room
          ? []
          : profile.pages
              .filter((page) => !byUri.has(page.uri))
              .map((page) => {
                const words = canonicalWords(page.body);
                const held = q.terms.filter((t) => words.has(t)).length;
                return { page, hit: undefined, score: held / Math.max(1, q.terms.length) };
              })
              .filter((p) => p.score > 0);
      const pages = [...hitPages.sort((a, b) => b.score - a.score), ...others.sort((a, b) => b.score - a.score)];
      for (const p of pages.slice(0, Math.min(room, limit - out.length)))
        out.push(
          p.hit ?? {
            uri: p.page.uri,
            title: p.page.title,
            snippet: p.page.body.replace(/\s+/g, ' ').trim().slice(0, 200),
            score: p.score,
          },
        );
    }
    return out;
  }
}
