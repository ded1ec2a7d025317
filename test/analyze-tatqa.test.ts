/**
 * Offline `analyze` on real report text (TAT-QA contexts written out as pages at test time): the cited passages
 * must hold the gold value for at least 60% of the questions whose answer appears verbatim in a page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  folderCorpus,
  runReportAnalysis,
  type FolderCorpus,
} from '../packages/lab/src/scenarios/report-analysis/index.js';
import { missingDataHint } from '../packages/lab/src/util/data-path.js';
import { scoreTatqa, sharedDataDir, writeTatqaFolders } from './support/tatqa.js';

const dataDir = sharedDataDir();
if (!dataDir) console.log(`skipping the TAT-QA analyze test: tatqa/dev.json not found. ${missingDataHint('tatqa')}`);

describe.skipIf(!dataDir)('offline analyze on TAT-QA pages', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-tatqa-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('cites a passage holding the gold value for at least 60% of answerable questions', async () => {
    const all = writeTatqaFolders(dataDir!, dir);
    // Every eighth question keeps the test within seconds; the benchmark runs them all.
    const sample = all.filter((_, i) => i % 8 === 0);
    const corpora = new Map<string, FolderCorpus>();
    const score = await scoreTatqa(sample, async (item) => {
      let corpus = corpora.get(item.folder);
      if (!corpus) corpora.set(item.folder, (corpus = await folderCorpus(item.folder)));
      const result = await runReportAnalysis({ corpus, question: item.question });
      expect(result.text).toMatch(/not a model's reasoning/);
      return result.text;
    });
    console.log(`TAT-QA sample: ${score.hits}/${score.questions} questions with the gold value in a cited passage`);
    expect(score.questions).toBeGreaterThan(100);
    expect(score.hits / score.questions).toBeGreaterThanOrEqual(0.6);
    expect(score.rightFile / score.questions).toBeGreaterThanOrEqual(0.8);
  }, 120_000);
});
