/**
 * Real filing pages for the compression suite: the pages of the 20 published 10-Q filings of `sec-10-q` that hold
 * a question's answer, as the document reader extracts them (long lines, footnote markers, multi-column headers,
 * numbers in parentheses), compressed for the question. Evidence is each of the answer's figures on the page **with
 * its row label**: a figure kept without the words that say what it is does not count.
 *
 * Gold pages and labels come from bench/sec-10-q-gold.ts (the pages of the named filings holding the most of the
 * reference answer's figures; a figure's label is the up to six words before it on its line, else the last words of
 * the nearest line above). A figure counts as kept when the output holds it and the label the same rule reads off
 * the output around it has every word of the page's label. Items are split as the analyze benchmark splits
 * questions (`splitOf`: a hash of the question's text), so tuning and test never share a question.
 *
 * Reading the PDFs is slow the first time (minutes); pages are read through the document cache the analyze
 * benchmark uses (bench-out/sec-10-q/cache, or `PAGEWISE_SEC_CACHE`), so later runs cost hashing only. The set is
 * left out of {@link suiteItems} unless asked for, so the suite's test stays fast.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { DocumentCache, readDocumentFolder } from '@pagewise/documents';
import { questionsOf } from '../analyze-sec-10-q.js';
import {
  goldPages,
  labelOf,
  labelWords,
  namedDocuments,
  pageHolds,
  secTenQDir,
  splitOf,
  type FoundFigure,
} from '../sec-10-q-gold.js';
import type { SuiteItem } from './suite.js';

/** The suite's name of the set. */
export const FILINGS_SET = 'SEC 10-Q filing pages: figure with its row label';

/** Whether `output` keeps `found` with its label: the figure, and every word of its label beside it there. */
export function keepsFigureWithLabel(output: string, found: FoundFigure): boolean {
  const label = labelOf(output, found.figure);
  if (label === undefined) return false;
  const words = new Set(labelWords(label));
  return labelWords(found.label).every((word) => words.has(word));
}

/** The file a page's uri names (`file:///…/2023 Q1 AAPL.pdf#page=3` → `2023 Q1 AAPL.pdf`). */
function fileOfPage(uri: string): string {
  const name = decodeURIComponent(uri.split('#')[0]!.split('/').pop() ?? '');
  return name;
}

/**
 * The filing-page items: one per question and gold page whose figures have labels. Empty, with the reason printed,
 * when the data is absent.
 */
export async function filingItems(options: { cacheDir?: string } = {}): Promise<SuiteItem[]> {
  const dataDir = secTenQDir();
  if (!dataDir) {
    console.log('filing pages: skipped, sec-10-q/qna_data.csv not found (set PAGEWISE_SHARED_DATA).');
    return [];
  }
  const root = path.resolve(import.meta.dirname, '..', '..');
  const cache = new DocumentCache({
    dir: options.cacheDir ?? process.env.PAGEWISE_SEC_CACHE ?? path.join(root, 'bench-out', 'sec-10-q', 'cache'),
  });
  const docs = path.join(dataDir, 'docs');
  const files = readdirSync(docs).filter((name) => name.toLowerCase().endsWith('.pdf'));
  const pages = (await readDocumentFolder(docs, { cache })).documents.map((page) => ({
    uri: page.uri,
    body: page.body,
    file: fileOfPage(page.uri),
  }));
  const items: SuiteItem[] = [];
  for (const [number, question] of questionsOf(dataDir).entries()) {
    const named = namedDocuments(question.sourceDocs, files);
    const gold = goldPages(
      question.answer,
      pages.filter((page) => named.includes(page.file)),
    );
    for (const uri of gold.pages) {
      const found = gold.found.filter((entry) => entry.uri === uri && labelWords(entry.label).length > 0);
      if (found.length === 0) continue;
      const body = pages.find((page) => page.uri === uri)!.body;
      items.push({
        set: FILINGS_SET,
        domain: 'filings',
        id: `sec-${number}-${fileOfPage(uri)}-${uri.split('#')[1] ?? ''}`,
        split: splitOf(question.question) === 'tuning' ? 'tune' : 'test',
        text: body,
        query: question.question,
        json: false,
        chat: false,
        evidenceCount: found.length,
        kept: (output) => found.filter((entry) => keepsFigureWithLabel(output, entry)).length,
        holds: (unit) => found.some((entry) => pageHolds(unit, entry.figure)),
      });
    }
  }
  return items;
}
