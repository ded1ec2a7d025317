/**
 * `folderCorpus` called twice from code on the same folder of real PDFs, in one process: the first call parses
 * every file, the second is answered by the process's extraction cache (nothing is written to disk). Reports the
 * wall time of each call, their ratio, and how many files each call parsed and reused; then the time of reading the
 * folder alone once more (`readDocumentFolder`, served by the same cache), which is what the second call spends on
 * the files; the rest is hashing the pages to find the search index kept for them.
 *
 * The folder is the 20 published 10-Q filings of `sec-10-q` (see /work/shared/data/README.md), read in place; the
 * benchmark says why and stops when they are absent.
 *
 * Run: node --conditions=@pagewise/source --import tsx bench/folder-corpus-cache.ts [--docs <folder>]
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readDocumentFolder } from '@pagewise/documents';
import { folderCorpus } from '@pagewise/lab/scenarios/report-analysis';
import { secTenQDir } from './sec-10-q-gold.js';

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { docs: { type: 'string' } } });
  const dataDir = secTenQDir();
  const docs = values.docs ?? (dataDir === undefined ? undefined : path.join(dataDir, 'docs'));
  if (docs === undefined || !existsSync(docs)) {
    console.log(
      'folder-corpus-cache: skipped, the sec-10-q filings are not here (set PAGEWISE_SHARED_DATA to the folder holding sec-10-q/, or pass --docs).',
    );
    return;
  }
  const pdfs = readdirSync(docs).filter((name) => name.toLowerCase().endsWith('.pdf')).length;
  const calls: { ms: number; extracted: number; reused: number; pages: number }[] = [];
  for (let call = 0; call < 2; call += 1) {
    const started = performance.now();
    const corpus = await folderCorpus(docs);
    calls.push({
      ms: performance.now() - started,
      extracted: corpus.extracted,
      reused: corpus.reused,
      pages: corpus.uris.length,
    });
  }
  const [first, second] = calls as [(typeof calls)[0], (typeof calls)[0]];
  console.log(`folderCorpus twice on ${pdfs} PDFs (${first.pages} pages) in ${docs}, one process`);
  console.log('| call | wall time | files parsed | files from the cache |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [index, call] of calls.entries())
    console.log(`| ${index + 1} | ${(call.ms / 1000).toFixed(2)} s | ${call.extracted} | ${call.reused} |`);
  console.log(`second call ${(first.ms / second.ms).toFixed(1)}× faster than the first`);
  const started = performance.now();
  const again = await readDocumentFolder(docs);
  const readMs = performance.now() - started;
  console.log(
    `reading the folder alone once more: ${readMs.toFixed(0)} ms (${again.extracted} parsed, ${again.reused} from the cache); the rest of the second call is hashing the pages to find the search index kept for them`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
