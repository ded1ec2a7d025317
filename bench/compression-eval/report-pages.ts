/**
 * The project's own report pages (packages/pagewise/src/compression/testdata/report-pages.json): the same fictional
 * reports in English and in Japanese, with questions and evidence. Recall is the share of evidence kept:
 * a sentence kept whole, or a table row's label and value on one kept line with the column header kept.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { splitSentences } from '../../packages/pagewise/src/text/sentences.js';

const FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../packages/pagewise/src/compression/testdata/report-pages.json',
);

const EvidenceSchema = z.union([
  z.object({ sentence: z.string() }),
  z.object({ row: z.string(), value: z.string(), header: z.string() }),
]);
const VersionSchema = z.object({
  text: z.string(),
  questions: z.array(z.object({ question: z.string(), evidence: z.array(EvidenceSchema) })),
});
const PagesSchema = z.object({
  pages: z.array(z.object({ id: z.string(), en: VersionSchema, ja: VersionSchema })),
});

/** One language version of a page. */
export type ReportPage = z.infer<typeof VersionSchema>;
/** One evidence item. */
export type ReportEvidence = z.infer<typeof EvidenceSchema>;

/** The pages, by language. */
export function loadReportPages(): { id: string; en: ReportPage; ja: ReportPage }[] {
  return PagesSchema.parse(JSON.parse(readFileSync(FILE, 'utf8'))).pages;
}

/** Whether `output` keeps an evidence item. */
export function keepsEvidence(output: string, evidence: ReportEvidence): boolean {
  if ('sentence' in evidence) return output.includes(evidence.sentence);
  const onOneLine = output
    .split('\n')
    .some((line) => line.includes(`| ${evidence.row} |`) && line.includes(`| ${evidence.value} |`));
  return onOneLine && output.includes(evidence.header);
}

/**
 * Prose lines of `output` that are not whole sentences of `input`: each sentence of a kept prose line
 * must be a sentence of the input (table rows and headings are lines, not sentences).
 */
export function cutSentences(input: string, output: string): string[] {
  const whole = new Set(
    input
      .split('\n')
      .filter((line) => !line.startsWith('|') && !line.startsWith('#'))
      .flatMap((line) => splitSentences(line)),
  );
  return output
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('|') && !line.startsWith('#'))
    .flatMap((line) => splitSentences(line))
    .filter((sentence) => !whole.has(sentence));
}
