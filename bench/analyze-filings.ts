/**
 * `analyze` on a folder of filings: which filing, and which page of it, answers a question that names a company.
 * Filing PDFs are generated at run time (in a temporary folder, never kept) from TAT-QA contexts: each context's
 * paragraphs and table become one page of a 10-K of a fictional company for the context's year, among filler pages
 * (cover, business, risk factors, a selected-data table of other years), beside a filler-only filing of the same
 * company for the year before. Each question is asked with its company named. Reported: cited-page hit@1 and @3
 * (the first, or any of the first three, cited passages is on the gold page), how often the named company's filing
 * leads, and a BM25 baseline over the same pages (the question's terms, `CorpusIndex`), with one filing per folder
 * and with every filing in one shared folder.
 *
 * Contexts are split by position: odd positions are the tuning set (looked at while building), even positions the
 * test set. `--split tuning|test|both` (default both), `--contexts <n>` per split (default 40), `--questions <n>` asked
 * per context (default 2, the first ones; TAT-QA contexts have about six).
 *
 * Also reported: how many answers carry a one-line answer (`Answer: …`, given when the value is unambiguous) and how
 * many of those state the gold answer's number (sign aside) citing the gold page, in the gold answer's scale (thousand,
 * million) when it has one.
 *
 * FILINGS_DEBUG=1 prints each question whose first citation misses its gold page, with the answer, and each wrong
 * answer line.
 *
 * Run: PAGEWISE_SHARED_DATA=../shared/data node --conditions=@pagewise/source --import tsx bench/analyze-filings.ts
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';
import { CorpusIndex } from 'pagewise/sources';
import { missingDataHint } from '../packages/lab/src/util/data-path.js';
import { queryTerms } from '../packages/lab/src/scenarios/report-analysis/query-terms.js';
import {
  createRng,
  fileOfUri,
  folderCorpus,
  runReportAnalysis,
  type FolderCorpus,
  type Rng,
} from '@pagewise/lab/scenarios/report-analysis';
import { readDocumentFolder } from '@pagewise/documents';
import { sharedDataDir } from '../test/support/tatqa.js';

interface Context {
  table: { table: string[][] };
  paragraphs: { order: number; text: string }[];
  questions: { question: string; answer: unknown; scale?: string }[];
}

/** One generated filing with a gold page, and the questions asked about it. */
export interface Filing {
  company: string;
  year: number;
  file: string;
  goldPage: number;
  questions: { text: string; answer: unknown; scale: string }[];
}

const STEMS = [
  'Aldervale',
  'Brightmoor',
  'Cobalt Ridge',
  'Dunmere',
  'Eastwind',
  'Fernhollow',
  'Glenbrook',
  'Harborline',
  'Ironleaf',
  'Juniper',
  'Kestrelmark',
  'Lumenfield',
  'Marrowgate',
  'Northvale',
  'Oakhurst',
  'Pinecrest',
  'Quillstone',
  'Redwater',
  'Silverfen',
  'Thornbury',
];
const SUFFIXES = ['Holdings', 'Systems', 'Industries', 'Group', 'Technologies', 'Corporation'];

const FILLER = [
  '{company} designs, manufactures and sells products and services to customers in more than forty countries. Our fiscal year ends on December 31. Net sales and operating income depend on demand in our end markets, pricing, and the cost of materials and labor.',
  'Risk factors. Our results of operations could be adversely affected by economic conditions, changes in interest rates, foreign currency exchange rates, supply chain disruption and cybersecurity incidents. {company} may not realize the expected benefits of acquisitions.',
  'Properties. {company} owns or leases manufacturing facilities, distribution centers and offices. We believe our facilities are suitable and adequate for our current operations. Capital expenditures for {prior} were mainly for capacity and maintenance.',
  'Legal proceedings. From time to time {company} is party to claims and litigation arising in the ordinary course of business. Management does not expect the outcome of pending matters to have a material effect on the financial position or cash flows.',
  "Market for the registrant's common equity. Our common stock is listed on the New York Stock Exchange. In {prior} the board of directors approved a share repurchase program; dividends declared per share increased compared with {older}.",
  'Management discussion and analysis. Revenue, gross margin, operating expenses, income taxes and net income are discussed below for {prior} compared with {older}. Employees numbered approximately {employees} at year end.',
];

/** Characters a standard PDF font can encode; others are replaced, as a filing's own fonts would hold them. */
function encodable(text: string): string {
  return text
    .replace(/[−‐‑‒]/g, '-')
    .replace(/[^\x20-\x7E\u00A0-\u00FF\u2013\u2014\u2018\u2019\u201C\u201D\u2022\u20AC]/g, '');
}

function wrap(text: string, width = 120): string[] {
  const words = encodable(text).split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

function fill(template: string, slots: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, k: string) => slots[k] ?? '');
}

function yearOf(context: Context): number | undefined {
  const years = context.table.table
    .slice(0, 3)
    .flat()
    .flatMap((cell) => [...cell.matchAll(/\b(?:19|20)\d\d\b/g)].map((m) => Number(m[0])));
  return years.length ? Math.max(...years) : undefined;
}

/** A table as PDF text extraction gives it: each row's label and cells on one line, separated by single spaces. */
function tableLines(table: string[][]): string[] {
  return table
    .map((row) =>
      row
        .map((cell) => cell.trim())
        .filter(Boolean)
        .join(' '),
    )
    .filter(Boolean)
    .flatMap((row) => wrap(row, 160));
}

function selectedData(rng: Rng, year: number): string[] {
  const cells = () => [year, year - 1, year - 2].map(() => rng.int(200, 90_000).toLocaleString('en-US'));
  return [
    'Selected financial data',
    `(in thousands) ${year} ${year - 1} ${year - 2}`,
    ...['Net sales', 'Operating income', 'Net income', 'Total assets', 'Long-term debt'].map(
      (label) => `${label} ${cells().join(' ')}`,
    ),
  ];
}

async function writePdf(file: string, pages: string[][]): Promise<void> {
  const doc = await PDFDocument.create();
  const font: PDFFont = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([612, 792]);
    lines.forEach((line, i) => page.drawText(line, { x: 36, y: 760 - i * 9, size: 7, font }));
  }
  writeFileSync(file, await doc.save());
}

function cover(company: string, year: number): string[] {
  return [
    'UNITED STATES SECURITIES AND EXCHANGE COMMISSION',
    'FORM 10-K',
    `ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) For the fiscal year ended December 31, ${year}`,
    company,
  ];
}

function fillerPages(rng: Rng, company: string, year: number, count: number): string[][] {
  const slots = {
    company,
    prior: String(year),
    older: String(year - 1),
    employees: rng.int(800, 60_000).toLocaleString('en-US'),
  };
  return rng
    .shuffle(FILLER)
    .slice(0, count)
    .map((filler, index) => [
      ...wrap(fill(filler, slots)),
      ...(index === 0 ? selectedData(rng, year) : []),
      '',
      ...wrap(fill(rng.pick(FILLER), slots)),
    ]);
}

/** A question naming the company: "the company" becomes its name, or the question is asked "For <company>, …". */
function askAbout(question: string, company: string): string {
  if (/\bthe company\b/i.test(question)) return question.replace(/\bthe company\b/i, company);
  return `For ${company}, ${question.charAt(0).toLowerCase()}${question.slice(1)}`;
}

/**
 * Writes each context's filing (the context on one page among filler pages) and a filler-only filing of the same
 * company for the year before into `dir`; returns the filings with their gold pages and questions.
 */
export async function writeFilings(
  contexts: readonly Context[],
  dir: string,
  seed: number,
  perContext: number,
): Promise<Filing[]> {
  const rng = createRng(seed);
  const filings: Filing[] = [];
  for (const [index, context] of contexts.entries()) {
    const year = yearOf(context)!;
    const company = `${STEMS[index % STEMS.length]} ${SUFFIXES[Math.floor(index / STEMS.length) % SUFFIXES.length]}`;
    const slug = company.toUpperCase().replace(/[^A-Z]+/g, '');
    const fillers = fillerPages(rng, company, year, 5);
    const goldAt = rng.int(1, fillers.length);
    const contextPage = [
      ...[...context.paragraphs].sort((a, b) => a.order - b.order).flatMap((p) => [...wrap(p.text), '']),
      ...tableLines(context.table.table),
    ];
    const pages = [cover(company, year), ...fillers.slice(0, goldAt), contextPage, ...fillers.slice(goldAt)];
    const file = `${slug}_${year}_10K.pdf`;
    await writePdf(path.join(dir, file), pages);
    // The same company's filing of the year before, filler only: the year must tell the two apart.
    await writePdf(path.join(dir, `${slug}_${year - 1}_10K.pdf`), [
      cover(company, year - 1),
      ...fillerPages(rng, company, year - 1, 4),
    ]);
    const questions = context.questions
      .slice(0, perContext)
      .map((q) => ({ text: askAbout(q.question, company), answer: q.answer, scale: q.scale ?? '' }));
    filings.push({ company, year, file, goldPage: goldAt + 2, questions });
  }
  return filings;
}

interface Tally {
  questions: number;
  hit1: number;
  hit3: number;
  leads: number;
  bm25Hit1: number;
  bm25Hit3: number;
  /** Answers with a one-line answer, and those whose value is the gold answer on the gold page. */
  lines: number;
  linesRight: number;
  seconds: number;
}

const citations = (answer: string) => [...answer.matchAll(/^\d+\. \[([^\]\n]+)\]/gm)].map((m) => m[1]!);

/** The number a cell or a gold answer states, sign and scale aside (`$(1,577)` → 1577); undefined for text. */
function numberOf(value: unknown): number | undefined {
  const text =
    Array.isArray(value) && value.length === 1
      ? String(value[0])
      : typeof value === 'number'
        ? String(value)
        : undefined;
  if (text === undefined || !/^[\s$€£¥(−-]*\d[\d,]*(?:\.\d+)?[\s%)]*$/.test(text)) return undefined;
  return Math.abs(Number(text.replace(/[^\d.]/g, '')));
}

/**
 * Whether a one-line answer (`Answer: … <value>[ unit] (<citation>)`) states the gold value on the gold page, in the
 * gold scale when the gold answer has one.
 */
function lineIsRight(line: string, gold: string, answer: unknown, scale: string): boolean {
  const match = /: (\S+)(?: (thousand|million|billion))? \(([^)]+)\)$/.exec(line);
  const expected = numberOf(answer);
  if (match === null || match[3] !== gold || expected === undefined || numberOf([match[1]]) !== expected) return false;
  return scale === '' || scale === 'percent' || match[2] === scale;
}

async function score(
  filings: readonly Filing[],
  folderOf: (f: Filing) => string,
  corpora: Map<string, { corpus: FolderCorpus; bm25: CorpusIndex }>,
): Promise<Tally> {
  const tally: Tally = {
    questions: 0,
    hit1: 0,
    hit3: 0,
    leads: 0,
    bm25Hit1: 0,
    bm25Hit3: 0,
    lines: 0,
    linesRight: 0,
    seconds: 0,
  };
  for (const filing of filings) {
    const folder = folderOf(filing);
    let entry = corpora.get(folder);
    if (!entry) {
      const bm25 = new CorpusIndex();
      for (const doc of (await readDocumentFolder(folder)).documents) bm25.add(doc);
      entry = { corpus: await folderCorpus(folder), bm25 };
      corpora.set(folder, entry);
    }
    const gold = `${filing.file}#${filing.goldPage}`;
    for (const { text: question, answer, scale } of filing.questions) {
      const started = performance.now();
      const result = await runReportAnalysis({ corpus: entry.corpus, question });
      tally.seconds += (performance.now() - started) / 1000;
      const cited = citations(result.text);
      tally.questions += 1;
      if (cited[0] === gold) tally.hit1 += 1;
      else if (process.env.FILINGS_DEBUG)
        console.log(`MISS ${question} | gold ${gold} | cited ${cited.join(', ')}\n${result.text.slice(0, 900)}\n`);
      if (cited.slice(0, 3).includes(gold)) tally.hit3 += 1;
      const line = /^Answer: .*$/m.exec(result.text)?.[0];
      if (line === undefined && process.env.FILINGS_DEBUG && numberOf(answer) !== undefined)
        console.log(`NO LINE ${question} | gold ${gold} ${JSON.stringify(answer)}\n${result.text.slice(0, 700)}\n`);
      if (line !== undefined) {
        tally.lines += 1;
        if (lineIsRight(line, gold, answer, scale)) tally.linesRight += 1;
        else if (process.env.FILINGS_DEBUG)
          console.log(`WRONG LINE ${question} | gold ${gold} ${JSON.stringify(answer)} | ${line}\n`);
      }
      if (cited[0] !== undefined && fileOfUri(cited[0]) === filing.file) tally.leads += 1;
      const hits = entry.bm25.search(queryTerms(question).join(' '), 3).map((h) => h.uri);
      if (hits[0] === gold) tally.bm25Hit1 += 1;
      if (hits.includes(gold)) tally.bm25Hit3 += 1;
    }
  }
  return tally;
}

/** The TAT-QA development contexts a filing can be generated from (a year in the table's header), with their positions. */
export function filingContexts(dataDir: string): { context: Context; i: number }[] {
  const all = JSON.parse(readFileSync(path.join(dataDir, 'tatqa', 'dev.json'), 'utf8')) as Context[];
  return all.map((context, i) => ({ context, i })).filter(({ context }) => yearOf(context) !== undefined);
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      split: { type: 'string' },
      contexts: { type: 'string' },
      questions: { type: 'string' },
      seed: { type: 'string' },
    },
  });
  const dataDir = sharedDataDir();
  if (!dataDir) {
    console.log(`\n## analyze on generated filings: skipped, tatqa/dev.json not found. ${missingDataHint('tatqa')}`);
    return;
  }
  const split = values.split ?? 'both';
  if (!['tuning', 'test', 'both'].includes(split))
    throw new Error(`--split must be tuning, test or both, not ${split}`);
  const perSplit = Number(values.contexts ?? 40);
  if (!Number.isInteger(perSplit) || perSplit < 1) throw new Error(`--contexts must be a positive integer`);
  const perContext = Number(values.questions ?? 2);
  if (!Number.isInteger(perContext) || perContext < 1) throw new Error(`--questions must be a positive integer`);
  const seed = Number(values.seed ?? 1);
  const usable = filingContexts(dataDir);
  const splits = (split === 'both' ? ['tuning', 'test'] : [split]).map((name) => ({
    name,
    contexts: usable
      .filter(({ i }) => i % 2 === (name === 'tuning' ? 1 : 0))
      .slice(0, perSplit)
      .map(({ context }) => context),
  }));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-filings-bench-'));
  const pct = (n: number, d: number) => `${Math.round((100 * n) / Math.max(1, d))}%`;
  try {
    console.log('\n## analyze on generated filings (TAT-QA contexts as 10-K pages, company named in the question)\n');
    console.log(
      '| split | condition | questions | cited-page hit@1 | hit@3 | named filing leads | BM25 hit@1 | BM25 hit@3 | answer line shown | answer line right | s per question |',
    );
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const { name, contexts } of splits) {
      const shared = path.join(dir, name, 'shared');
      mkdirSync(shared, { recursive: true });
      const filings = await writeFilings(contexts, shared, seed, perContext);
      // One folder per filing: the gold filing alone.
      for (const filing of filings) {
        const own = path.join(dir, name, 'single', filing.file.replace(/\.pdf$/, ''));
        mkdirSync(own, { recursive: true });
        writeFileSync(path.join(own, filing.file), readFileSync(path.join(shared, filing.file)));
      }
      const corpora = new Map<string, { corpus: FolderCorpus; bm25: CorpusIndex }>();
      const conditions: [string, (f: Filing) => string][] = [
        ['one filing per folder', (f) => path.join(dir, name, 'single', f.file.replace(/\.pdf$/, ''))],
        [`all ${filings.length * 2} filings in one folder`, () => shared],
      ];
      for (const [label, folderOf] of conditions) {
        const tally = await score(filings, folderOf, corpora);
        console.log(
          `| ${name} | ${label} | ${tally.questions} | ${pct(tally.hit1, tally.questions)} | ${pct(tally.hit3, tally.questions)} | ${pct(tally.leads, tally.questions)} | ${pct(tally.bm25Hit1, tally.questions)} | ${pct(tally.bm25Hit3, tally.questions)} | ${tally.lines} | ${tally.linesRight} of ${tally.lines} | ${(tally.seconds / Math.max(1, tally.questions)).toFixed(2)} |`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
