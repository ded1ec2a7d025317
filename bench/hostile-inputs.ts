/**
 * The hostile documents of the reliability probes, generated into a temporary folder (never committed), each read
 * in a fresh process as `pagewise analyze` reads it: wall time, the process's peak resident size, and the skip line
 * it got. Checks the bound the readers promise: no file of at most 5 MB takes more than its deadline plus 10%, or
 * more than 1 GB, and every hostile file is skipped with a reason naming the limit it passed.
 *
 *   npx tsx bench/hostile-inputs.ts [--only <name>] [--analyze]
 *
 * `--analyze` also runs the whole `pagewise analyze` command (offline model) on each file's folder; its time beyond
 * the same command on an ordinary one-file folder (start, indexing, answering) is what the file cost.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  docxBomb,
  manyEntriesDocx,
  manyPagesPdf,
  nestedStatesPdf,
  pdfStreamBomb,
  sparseXlsx,
} from '../test/support/hostile-files.js';
import { DEFAULT_READER_LIMITS } from '@pagewise/documents';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);
const MEMORY_BOUND_MB = 1024;
const SIZE_BOUND = 5 * 1024 * 1024;
const NOTES = '# Notes\n\nFreight revenue was 8,215 in 2024.\n';

/** The probes: each a file name and how to build it. */
const PROBES: { name: string; file: string; build: () => Promise<Buffer> }[] = [
  { name: 'xlsx A1 + XFD1048576', file: 'sparse.xlsx', build: () => sparseXlsx() },
  { name: 'docx XML inflating to 300 MiB', file: 'bomb.docx', build: () => docxBomb(300) },
  { name: 'docx 300 MiB, declaring 1 KB', file: 'lying.docx', build: () => docxBomb(300, 1024) },
  { name: 'docx of 20,000 entries', file: 'entries.docx', build: () => manyEntriesDocx(20_000) },
  { name: 'pdf stream inflating to 1 GiB', file: 'stream.pdf', build: () => pdfStreamBomb(1024) },
  { name: 'pdf of 200,000 nested q … Q', file: 'nested.pdf', build: () => nestedStatesPdf(200_000) },
  { name: 'pdf of 20,000 pages', file: 'pages.pdf', build: async () => manyPagesPdf(20_000) },
];

interface Figures {
  ms: number;
  peakRssMb: number;
  documents: number;
  skipped: string[];
}

/** Child mode: reads one folder as `analyze` does and prints its figures as JSON. */
async function measureOne(folder: string, analyze: boolean): Promise<void> {
  const started = performance.now();
  let documents = 0;
  let skipped: string[] = [];
  if (analyze) {
    const { main } = await import('../packages/cli/src/main.js');
    const lines: string[] = [];
    const db = path.join(path.dirname(folder), 'pw.db');
    await main(
      ['analyze', folder, 'freight revenue', '--db', db],
      () => undefined,
      (s) => lines.push(s),
    );
    skipped = lines.filter((l) => l.startsWith('skipped '));
  } else {
    const { readDocumentFolder } = await import('../packages/documents/src/documents.js');
    const result = await readDocumentFolder(folder);
    documents = result.documents.length;
    skipped = result.skipped.map((s) => `skipped ${s.path}: ${s.reason}`);
  }
  const figures: Figures = {
    ms: performance.now() - started,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    documents,
    skipped,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

function runChild(folder: string, analyze: boolean): Figures {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', SELF, '--one', folder, ...(analyze ? ['--analyze'] : [])],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const line = result.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as Figures;
  } catch {
    throw new Error(`the probe of ${folder} exited ${result.status}: ${result.stderr.slice(-2000)}`);
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { only: { type: 'string' }, one: { type: 'string' }, analyze: { type: 'boolean' } },
  });
  if (values.one) return measureOne(values.one, values.analyze ?? false);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-hostile-'));
  const deadlineMs = DEFAULT_READER_LIMITS.timeoutMs;
  try {
    console.log(
      `\n## Hostile inputs: one fresh process per file, default limits (deadline ${deadlineMs / 1000} s per file)\n`,
    );
    // What `analyze` takes on an ordinary one-file folder (start, index, answer): its time beyond that is the file's.
    const plain = path.join(dir, 'plain', 'docs');
    mkdirSync(plain, { recursive: true });
    writeFileSync(path.join(plain, 'notes.md'), NOTES);
    const baseline = values.analyze ? runChild(plain, true).ms : 0;
    if (values.analyze) console.log(`analyze on a one-file Markdown folder: ${(baseline / 1000).toFixed(1)} s\n`);
    console.log(
      '| probe | size | path | time s | beyond an ordinary file s | peak RSS MB | within bounds | skip line |',
    );
    console.log('|---|---:|---|---:|---:|---:|---|---|');
    let failures = 0;
    for (const probe of PROBES) {
      if (values.only && !probe.name.includes(values.only) && probe.file !== values.only) continue;
      const folder = path.join(dir, probe.file.replace(/\W/g, '-'), 'docs');
      mkdirSync(folder, { recursive: true });
      // Beside an ordinary file, as in a real folder: the command reads, indexes and answers as usual.
      writeFileSync(path.join(folder, 'notes.md'), NOTES);
      const file = path.join(folder, probe.file);
      writeFileSync(file, await probe.build());
      const size = statSync(file).size;
      for (const analyze of values.analyze ? [false, true] : [false]) {
        const child = runChild(folder, analyze);
        const skip = child.skipped.find((s) => s.includes(probe.file)) ?? '(not skipped)';
        const extra = analyze ? child.ms - baseline : child.ms;
        const ok = size > SIZE_BOUND || (extra <= deadlineMs * 1.1 && child.peakRssMb <= MEMORY_BOUND_MB);
        if (!ok || skip === '(not skipped)') failures += 1;
        console.log(
          `| ${probe.name} | ${(size / 1024).toFixed(1)} KB | ${analyze ? 'analyze' : 'reader'} | ${(child.ms / 1000).toFixed(1)} | ${(extra / 1000).toFixed(1)} | ${child.peakRssMb.toFixed(0)} | ${ok ? 'yes' : 'NO'} | ${skip.replace(/\|/g, '\\|')} |`,
        );
      }
    }
    console.log(
      failures === 0
        ? '\nEvery probe within bounds and skipped with its limit.'
        : `\n${failures} probe(s) out of bounds.`,
    );
    if (failures > 0) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
