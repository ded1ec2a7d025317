/**
 * Second `pagewise analyze` over an unchanged folder of PDFs against the first: the document cache keeps the text
 * extracted from each file by content hash, so the second run pays for hashing the files, not for parsing them.
 * The folder is generated (pdf-lib): filing-like pages of prose and table lines. Each repetition times a cold run
 * (an empty cache folder) and then a warm run (the cache the cold run filled), side by side; one untimed pair runs
 * first so both are measured on warm code. Reported: medians of whole `analyze` runs and of the folder read alone.
 *
 * `--from filings` writes the folder with the generator of `bench/analyze-filings.ts` instead: 10-K PDFs of several
 * companies and years from TAT-QA contexts (needs PAGEWISE_SHARED_DATA), until it holds `--files` × `--pages` pages,
 * and asks the first question of the first filing.
 *
 * Run: npx tsx bench/analyze-cache.ts [--files 40] [--pages 50] [--repeats 3] [--from synthetic|filings]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';

import { DocumentCache, readDocumentFolder } from '@pagewise/documents';
import { analyzeCommand } from '../packages/cli/src/analyze.js';
import { sharedDataDir } from '../test/support/tatqa.js';
import { filingContexts, writeFilings } from './analyze-filings.js';
import { fmt, quantile } from './stats.js';

const COMPANIES = ['Nordlys Shipping', 'Havørn Logistics', 'Fjellvann Energy', 'Skarv Retail', 'Lunde Foods'];
const LINES = [
  'Net revenue',
  'Cost of goods sold',
  'Gross margin',
  'Operating expenses',
  'Capital expenditure',
  'Free cash flow',
];

/** A page of a generated filing: prose and table lines with figures that differ by page. */
function pageText(company: string, year: number, page: number): string[] {
  const lines = [`${company} annual report ${year}, page ${page}`, ''];
  for (let sentence = 0; sentence < 8; sentence += 1)
    lines.push(
      `In fiscal ${year} the ${LINES[sentence % LINES.length]!.toLowerCase()} of the group moved by ${(page * 7 + sentence * 13) % 97} percent against the prior year.`,
    );
  lines.push('', `(in millions) ${year} ${year - 1} ${year - 2}`);
  for (const [index, label] of LINES.entries())
    lines.push(
      `${label} ${1000 + page * 31 + index * 17} ${900 + page * 29 + index * 11} ${800 + page * 23 + index * 7}`,
    );
  for (let segment = 0; segment < 8; segment += 1)
    lines.push(
      `Management notes that segment ${segment + 1} contributed ${(page + segment) % 40} percent of the total in ${year}.`,
    );
  return lines;
}

async function writeFolder(folder: string, files: number, pages: number): Promise<void> {
  mkdirSync(folder, { recursive: true });
  for (let fileIndex = 0; fileIndex < files; fileIndex += 1) {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const company = COMPANIES[fileIndex % COMPANIES.length]!;
    const year = 2015 + (fileIndex % 10);
    for (let pageNumber = 1; pageNumber <= pages; pageNumber += 1) {
      const page = doc.addPage([612, 792]);
      pageText(company, year, pageNumber).forEach((line, lineIndex) =>
        page.drawText(line, { x: 40, y: 760 - lineIndex * 14, size: 8, font }),
      );
    }
    writeFileSync(path.join(folder, `filing-${String(fileIndex + 1).padStart(3, '0')}.pdf`), await doc.save());
  }
}

/** Filings of the filings bench's generator until the folder holds `pages` pages; the first filing's first question. */
async function writeFilingsFolder(folder: string, pages: number): Promise<{ question: string; pages: number }> {
  const dataDir = sharedDataDir();
  if (!dataDir) throw new Error('--from filings needs tatqa/dev.json: set PAGEWISE_SHARED_DATA');
  mkdirSync(folder, { recursive: true });
  // Each context gives a filing of 7 pages (cover, five filler pages, the context's page) and one of 5 for the year
  // before.
  const contexts = filingContexts(dataDir).map(({ context }) => context);
  const wanted = Math.ceil(pages / 12);
  if (wanted > contexts.length) throw new Error(`--from filings can write ${contexts.length * 12} pages at most`);
  const filings = await writeFilings(contexts.slice(0, wanted), folder, 1, 1);
  return { question: filings[0]!.questions[0]!.text, pages: wanted * 12 };
}

async function timeAnalyze(folder: string, db: string, cacheDir: string, question: string): Promise<number> {
  const started = performance.now();
  const code = await analyzeCommand(
    [folder, question, '--db', db, '--cache-dir', cacheDir],
    () => {},
    () => {},
  );
  if (code !== 0) throw new Error(`analyze exited with ${code}`);
  return performance.now() - started;
}

async function timeRead(folder: string, cacheDir: string): Promise<number> {
  const started = performance.now();
  await readDocumentFolder(folder, { cache: new DocumentCache({ dir: cacheDir }) });
  return performance.now() - started;
}

export async function main(argv: string[] = []): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      files: { type: 'string' },
      pages: { type: 'string' },
      repeats: { type: 'string' },
      from: { type: 'string' },
    },
  });
  const from = values.from ?? 'synthetic';
  if (from !== 'synthetic' && from !== 'filings') throw new Error(`--from must be synthetic or filings, not ${from}`);
  const files = Number(values.files ?? 40);
  const pages = Number(values.pages ?? 50);
  const repeats = Number(values.repeats ?? 3);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-bench-analyze-cache-'));
  try {
    const folder = path.join(dir, 'filings');
    let question = 'What was the capital expenditure of Havørn Logistics in 2016?';
    let label = `${files} unchanged PDFs (${files * pages} pages)`;
    if (from === 'filings') {
      const written = await writeFilingsFolder(folder, files * pages);
      question = written.question;
      label = `an unchanged folder of generated 10-K filings (${written.pages} pages)`;
    } else await writeFolder(folder, files, pages);
    const db = path.join(dir, 'pw.db');
    const times = { cold: [] as number[], warm: [] as number[], readCold: [] as number[], readWarm: [] as number[] };
    for (let repeat = -1; repeat < repeats; repeat += 1) {
      const cacheDir = path.join(dir, `cache-${repeat + 1}`);
      const cold = await timeAnalyze(folder, db, cacheDir, question);
      const warm = await timeAnalyze(folder, db, cacheDir, question);
      const readCacheDir = path.join(dir, `read-cache-${repeat + 1}`);
      const readCold = await timeRead(folder, readCacheDir);
      const readWarm = await timeRead(folder, readCacheDir);
      if (repeat < 0) continue; // the untimed pair: modules loaded and code warmed for both contenders
      times.cold.push(cold);
      times.warm.push(warm);
      times.readCold.push(readCold);
      times.readWarm.push(readWarm);
    }
    const medianOf = (values: number[]) => quantile(values, 0.5);
    console.log(`\n## analyze: second run over ${label} against the first\n`);
    console.log(`median of ${repeats} cold/warm pairs\n`);
    console.log('| measured | first run (empty cache) ms | second run (cache filled) ms | first / second |');
    console.log('|---|---:|---:|---:|');
    console.log(
      `| whole \`pagewise analyze\` | ${fmt(medianOf(times.cold), 0)} | ${fmt(medianOf(times.warm), 0)} | ${fmt(medianOf(times.cold) / medianOf(times.warm), 1)}x |`,
    );
    console.log(
      `| reading the folder | ${fmt(medianOf(times.readCold), 0)} | ${fmt(medianOf(times.readWarm), 0)} | ${fmt(medianOf(times.readCold) / medianOf(times.readWarm), 1)}x |`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
