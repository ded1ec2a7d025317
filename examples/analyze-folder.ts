/**
 * Analyze a folder of documents offline: a small folder is written to a temporary directory (a markdown note and
 * a CSV table), then the report-analysis agents answer a question with cited passages. No API key needed; the
 * offline answer is extractive, not a model's reasoning.
 *
 * Run: npx tsx examples/analyze-folder.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { folderCorpus, runReportAnalysis } from '@pagewise/lab/scenarios/report-analysis';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-example-'));
try {
  writeFileSync(
    path.join(dir, 'notes.md'),
    '# Fleet notes\n\nThe fleet grew to 48 vessels in 2024 after two deliveries.\n',
  );
  writeFileSync(path.join(dir, 'fuel.csv'), 'Item,2024,2023\nDiesel litres,91000,87000\n');
  const corpus = await folderCorpus(dir);
  console.log(`read ${corpus.filesRead} files, skipped ${corpus.skipped.length}`);
  const result = await runReportAnalysis({ corpus, question: 'How many litres of diesel were used in 2024?' });
  console.log(result.text);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
