/**
 * Offline `analyze` on real report text: TAT-QA contexts written out as pages (in a temporary folder), every
 * question whose gold answer appears verbatim in its page. Reports the share whose answer cites a passage holding
 * the gold value, with the passage reader against the earlier offline rules (one best sentence per chosen report,
 * no citations; scored on its whole answer text, which favours it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createOfflineModel } from 'pagewise';
import { missingDataHint } from '../packages/lab/src/util/data-path.js';
import {
  folderCorpus,
  reportOfflinePolicy,
  runReportAnalysis,
  type FolderCorpus,
} from '@pagewise/lab/scenarios/report-analysis';
import { scoreTatqa, sharedDataDir, writeTatqaFolders } from '../test/support/tatqa.js';

export async function main(): Promise<void> {
  const dataDir = sharedDataDir();
  if (!dataDir) {
    console.log(`\n## analyze on TAT-QA: skipped, tatqa/dev.json not found. ${missingDataHint('tatqa')}`);
    return;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-tatqa-bench-'));
  try {
    const questions = writeTatqaFolders(dataDir, dir);
    const corpora = new Map<string, FolderCorpus>();
    const corpusOf = async (folder: string) => {
      let corpus = corpora.get(folder);
      if (!corpus) corpora.set(folder, (corpus = await folderCorpus(folder)));
      return corpus;
    };
    const started = Date.now();
    const passages = await scoreTatqa(questions, async (item) => {
      return (await runReportAnalysis({ corpus: await corpusOf(item.folder), question: item.question })).text;
    });
    const seconds = (Date.now() - started) / 1000;
    const earlier = createOfflineModel({ policies: [reportOfflinePolicy] });
    const before = await scoreTatqa(
      questions,
      async (item) =>
        (await runReportAnalysis({ corpus: await corpusOf(item.folder), question: item.question, model: earlier }))
          .text,
      (text) => [text],
    );
    const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)}%`;
    console.log(`\n## analyze on TAT-QA pages (${questions.length} questions, folders of 10 reports)\n`);
    console.log('| offline rules | gold value in a cited passage | answer cites its report | seconds |');
    console.log('|---|---:|---:|---:|');
    console.log(`| earlier (whole answer text, no citations) | ${pct(before.hits, before.questions)} | - | - |`);
    console.log(
      `| passages and table rows, top 3 | ${pct(passages.hits, passages.questions)} | ${pct(passages.rightFile, passages.questions)} | ${seconds.toFixed(1)} |`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
