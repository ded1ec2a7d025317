/**
 * `analyze` on real published filings: the 20 SEC 10-Q PDFs of `sec-10-q` (Apple, Amazon, Intel, Microsoft,
 * NVIDIA; see /work/shared/data/README.md) with their 195 questions and reference answers. The dataset gives no
 * pages: gold pages are derived from each answer's figures within the documents its `Source Docs` names (method and
 * tests: bench/sec-10-q-gold.ts, test/sec-10-q-gold.test.ts). Questions are split by a hash of their text into a
 * tuning and a test split.
 *
 * Reported per split and folder, as bench/analyze-filings.ts does: cited-page hit@1 and @3 (the first, or one of the
 * first three, cited passages is on a gold page; questions with a gold page only), how often a named filing leads
 * (all questions), how often the answer holds a gold figure with its row label (questions with a gold page), the
 * one-line answers shown; on single-value questions (one filing named, and a reference answer that states exactly
 * one amount with a currency sign and a scale word, `singleAmount`) how many get an `Answer:` line and how many of
 * those state the reference amount (value and scale, sign aside, within the reference's rounding); and BM25 hit@1/@3/@5 over the same pages (the question's terms, `CorpusIndex`). Two
 * folders: the named filings only (one filing for a question about one filing, a company's four for a question about
 * all its filings), and all 20 filings in one folder.
 *
 * The filings are read in place, through the document cache in bench-out/sec-10-q/cache (after the first run,
 * reading costs hashing only); the named-filings folders are hard links (copies where linking fails) under
 * bench-out/sec-10-q/folders, which is gitignored. `--split tuning|test|both` (default both), `--questions <n>` per
 * split (default all, in file order), `--cache-dir <folder>`.
 *
 * SEC_DEBUG=1 prints each question whose first citation misses its gold pages; SEC_DEBUG=label prints, besides, each
 * question whose answer lacks every gold figure with its row label, with the gold figures, their labels and the answer.
 *
 * Run: node --conditions=@pagewise/source --import tsx bench/analyze-sec-10-q.ts [--questions 30]
 */
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CorpusIndex } from 'pagewise/sources';
import { queryTerms } from '../packages/lab/src/scenarios/report-analysis/query-terms.js';
import { DocumentCache, readDocumentFolder, type FolderDocument, sha256Hex } from '@pagewise/documents';
import { fileOfUri, folderCorpus, runReportAnalysis, type FolderCorpus } from '@pagewise/lab/scenarios/report-analysis';
import {
  answerLineAmount,
  goldPages,
  holdsFigureWithLabel,
  namedDocuments,
  sameAmount,
  secTenQDir,
  singleAmount,
  splitOf,
  type Amount,
  type GoldPages,
} from './sec-10-q-gold.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/** One row of `qna_data.csv`. */
export interface Question {
  question: string;
  sourceDocs: string;
  type: string;
  answer: string;
}

/** RFC 4180 CSV: quoted fields may hold commas, newlines and doubled quotes. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[index + 1] === '\n') index += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += char;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows.filter((cells) => cells.some((cell) => cell !== ''));
}

/** The questions of the `sec-10-q` folder `dataDir`, in file order. */
export function questionsOf(dataDir: string): Question[] {
  const [header, ...rows] = parseCsv(readFileSync(path.join(dataDir, 'qna_data.csv'), 'utf8').replace(/^\uFEFF/, ''));
  const column = (name: string) => header!.indexOf(name);
  return rows.map((cells) => ({
    question: cells[column('Question')]!,
    sourceDocs: cells[column('Source Docs')]!,
    type: cells[column('Question Type')]!,
    answer: cells[column('Answer')]!,
  }));
}

interface Tally {
  questions: number;
  withGold: number;
  hit1: number;
  hit3: number;
  leads: number;
  figureWithLabel: number;
  lines: number;
  /** Single-value questions (one filing named, one amount in the reference answer), lines on them, right ones. */
  single: number;
  singleLines: number;
  singleRight: number;
  /** BM25 hits at depths 1, 3 and 5. */
  bm25: number[];
  seconds: number;
}

const citations = (answer: string) => [...answer.matchAll(/^\d+\. \[([^\]\n]+)\]/gm)].map((m) => m[1]!);

/** A folder holding only `files` of `docs`: hard links where the file system allows, copies otherwise. */
function namedFolder(base: string, docs: string, files: readonly string[]): string {
  const folder = path.join(base, sha256Hex(files.join('\n')).slice(0, 12));
  mkdirSync(folder, { recursive: true });
  for (const file of files) {
    const target = path.join(folder, file);
    if (existsSync(target)) continue;
    try {
      linkSync(path.join(docs, file), target);
    } catch {
      copyFileSync(path.join(docs, file), target);
    }
  }
  return folder;
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { split: { type: 'string' }, questions: { type: 'string' }, 'cache-dir': { type: 'string' } },
  });
  const dataDir = secTenQDir();
  if (!dataDir) {
    console.log(
      '\n## analyze on sec-10-q: skipped, sec-10-q/qna_data.csv not found (set PAGEWISE_SHARED_DATA to the folder holding sec-10-q/).',
    );
    return;
  }
  const split = values.split ?? 'both';
  if (!['tuning', 'test', 'both'].includes(split))
    throw new Error(`--split must be tuning, test or both, not ${split}`);
  const limit = values.questions === undefined ? Infinity : Number(values.questions);
  if (!(limit === Infinity || (Number.isInteger(limit) && limit > 0)))
    throw new Error('--questions must be a positive integer');
  const out = path.join(ROOT, 'bench-out', 'sec-10-q');
  const cache = new DocumentCache({ dir: values['cache-dir'] ?? path.join(out, 'cache') });
  const docs = path.join(dataDir, 'docs');
  const files = readdirSync(docs).filter((name) => name.toLowerCase().endsWith('.pdf'));
  const allPages = (await readDocumentFolder(docs, { cache })).documents;
  const pagesOf = (named: readonly string[]): FolderDocument[] =>
    allPages.filter((page) => named.includes(fileOfUri(page.uri)));

  const questions = questionsOf(dataDir);
  const corpora = new Map<string, { corpus: FolderCorpus; bm25: CorpusIndex }>();
  const corpusOf = async (folder: string) => {
    let entry = corpora.get(folder);
    if (!entry) {
      const corpus = await folderCorpus(folder, { cache });
      const bm25 = new CorpusIndex();
      for (const doc of (await readDocumentFolder(folder, { cache })).documents) bm25.add(doc);
      entry = { corpus, bm25 };
      corpora.set(folder, entry);
    }
    return entry;
  };
  const pct = (n: number, d: number) => (d === 0 ? '–' : `${Math.round((100 * n) / d)}%`);
  console.log('\n## analyze on sec-10-q (20 published 10-Q filings, gold pages from the answers’ figures)\n');
  console.log(
    '| split | folder | questions | with a gold page | cited-page hit@1 | hit@3 | named filing leads | gold figure with its label | answer lines | single-value questions | answer lines on them | right (value and scale) | BM25 hit@1 | @3 | @5 | s per question |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const name of split === 'both' ? ['tuning', 'test'] : [split]) {
    const chosen = questions.filter((q) => splitOf(q.question) === name).slice(0, limit);
    const golds = new Map<Question, { named: string[]; gold: GoldPages; amount?: Amount }>();
    for (const question of chosen) {
      const named = namedDocuments(question.sourceDocs, files);
      const amount = named.length === 1 ? singleAmount(question.answer) : undefined;
      golds.set(question, { named, gold: goldPages(question.answer, pagesOf(named)), ...(amount ? { amount } : {}) });
    }
    const settings: [string, (named: readonly string[]) => string][] = [
      ['the named filings only', (named) => namedFolder(path.join(out, 'folders'), docs, named)],
      [`all ${files.length} filings in one folder`, () => docs],
    ];
    for (const [label, folderOf] of settings) {
      const tally: Tally = {
        questions: 0,
        withGold: 0,
        hit1: 0,
        hit3: 0,
        leads: 0,
        figureWithLabel: 0,
        lines: 0,
        single: 0,
        singleLines: 0,
        singleRight: 0,
        bm25: [0, 0, 0],
        seconds: 0,
      };
      for (const question of chosen) {
        const { named, gold, amount } = golds.get(question)!;
        const entry = await corpusOf(folderOf(named));
        const started = performance.now();
        const result = await runReportAnalysis({ corpus: entry.corpus, question: question.question });
        tally.seconds += (performance.now() - started) / 1000;
        const cited = citations(result.text);
        tally.questions += 1;
        if (cited[0] !== undefined && named.includes(fileOfUri(cited[0]))) tally.leads += 1;
        const line = /^Answer: .*$/m.exec(result.text)?.[0];
        if (line) tally.lines += 1;
        if (amount) {
          tally.single += 1;
          if (line) {
            tally.singleLines += 1;
            const stated = answerLineAmount(line);
            const right = stated !== undefined && sameAmount(stated, amount);
            if (right) tally.singleRight += 1;
            if (process.env.SEC_DEBUG)
              console.log(`LINE ${right ? 'right' : 'WRONG'} ${question.question} | ${line} | ${amount.value}`);
          } else if (process.env.SEC_DEBUG) console.log(`NOLINE ${question.question} | ${amount.value}`);
        } else if (line && process.env.SEC_DEBUG) console.log(`LINE (not single-value) ${question.question} | ${line}`);
        if (gold.pages.length === 0) continue;
        tally.withGold += 1;
        const isGold = (uri: string | undefined) => uri !== undefined && gold.pages.includes(uri);
        if (isGold(cited[0])) tally.hit1 += 1;
        else if (process.env.SEC_DEBUG)
          console.log(
            `MISS ${question.question} | gold ${gold.pages.join(', ')} | cited ${cited.slice(0, 3).join(', ')}`,
          );
        if (cited.slice(0, 3).some(isGold)) tally.hit3 += 1;
        if (gold.found.some((found) => holdsFigureWithLabel(result.text, found))) tally.figureWithLabel += 1;
        else if (process.env.SEC_DEBUG === 'label')
          console.log(
            `NOLABEL ${question.question}\n  gold ${gold.found.map((f) => `${f.uri} ${f.figure.forms[0]} [${f.label}]`).join('; ')}\n  ${result.text.replace(/\n/g, '\n  ')}`,
          );
        const hits = entry.bm25.search(queryTerms(question.question).join(' '), 5).map((hit) => hit.uri);
        for (const [index, depth] of [1, 3, 5].entries())
          if (hits.slice(0, depth).some(isGold)) tally.bm25[index] = tally.bm25[index]! + 1;
      }
      const totals = tally;
      console.log(
        `| ${name} | ${label} | ${totals.questions} | ${totals.withGold} | ${pct(totals.hit1, totals.withGold)} | ${pct(totals.hit3, totals.withGold)} | ${pct(totals.leads, totals.questions)} | ${pct(totals.figureWithLabel, totals.withGold)} | ${totals.lines} | ${totals.single} | ${totals.singleLines} (${pct(totals.singleLines, totals.single)}) | ${totals.singleRight} of ${totals.singleLines} | ${pct(totals.bm25[0]!, totals.withGold)} | ${pct(totals.bm25[1]!, totals.withGold)} | ${pct(totals.bm25[2]!, totals.withGold)} | ${(totals.seconds / Math.max(1, totals.questions)).toFixed(2)} |`,
      );
    }
  }
  console.log(`\ndocument cache: ${cache.hits} of ${cache.hits + cache.misses} files reused from ${cache.dir}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
