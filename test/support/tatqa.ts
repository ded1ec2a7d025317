/**
 * A real-text evaluation set for `analyze`: TAT-QA contexts (tables and paragraphs of real annual reports) written
 * out as text pages in a temporary folder, laid out as PDF text extraction lays tables out (a row's label, then
 * each value on its own line), with the questions whose gold answer appears verbatim in their page. The data is
 * read in place from the shared data folder and never copied into the repository.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface TatqaContext {
  table: { table: string[][] };
  paragraphs: { order: number; text: string }[];
  questions: { question: string; answer: unknown; answer_type: string }[];
}

/** One question of the set: asked over `folder`, answered from `file`. */
export interface TatqaQuestion {
  folder: string;
  file: string;
  question: string;
  /** Spans that all appear verbatim in the file. */
  gold: string[];
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The shared data folder: `PAGEWISE_SHARED_DATA`, else `../shared/data` or `../../shared/data` from the project. */
export function sharedDataDir(): string | undefined {
  const candidates = [
    process.env.PAGEWISE_SHARED_DATA,
    path.resolve(ROOT, '../shared/data'),
    path.resolve(ROOT, '../../shared/data'),
  ];
  return candidates.find((dir): dir is string => dir !== undefined && existsSync(path.join(dir, 'tatqa', 'dev.json')));
}

/** A context as a page: paragraphs, then the table with each cell on its own line after its row's label. */
export function renderContext(context: TatqaContext): string {
  const paragraphs = [...context.paragraphs].sort((a, b) => a.order - b.order).map((p) => p.text.trim());
  const table = context.table.table.flatMap((row) => row.map((cell) => cell.trim()).filter((cell) => cell !== ''));
  return `${paragraphs.join('\n\n')}\n\n${table.join('\n')}\n`;
}

const normalize = (text: string): string => text.replace(/\s+/g, ' ').trim().toLowerCase();

/** Whether `text` holds every gold span (spaces and case normalized). */
export function holdsGold(text: string, gold: readonly string[]): boolean {
  const haystack = normalize(text);
  return gold.every((span) => haystack.includes(normalize(span)));
}

/**
 * Writes the contexts as pages into `dir`, in folders of `groupSize` consecutive contexts (each question is asked
 * over its context's folder, where the other contexts are distractors), and returns the questions whose gold spans
 * all appear verbatim in their page.
 */
export function writeTatqaFolders(dataDir: string, dir: string, groupSize = 10): TatqaQuestion[] {
  const contexts = JSON.parse(readFileSync(path.join(dataDir, 'tatqa', 'dev.json'), 'utf8')) as TatqaContext[];
  const questions: TatqaQuestion[] = [];
  contexts.forEach((context, index) => {
    const folder = path.join(dir, `group-${String(Math.floor(index / groupSize)).padStart(2, '0')}`);
    mkdirSync(folder, { recursive: true });
    const file = `report-${String(index).padStart(3, '0')}.txt`;
    const page = renderContext(context);
    writeFileSync(path.join(folder, file), page);
    for (const question of context.questions) {
      if (question.answer_type !== 'span' && question.answer_type !== 'multi-span') continue;
      if (!Array.isArray(question.answer) || question.answer.length === 0) continue;
      const gold = question.answer.map(String).filter((span) => span.trim() !== '');
      if (gold.length === 0 || !holdsGold(page, gold)) continue;
      questions.push({ folder, file, question: question.question, gold });
    }
  });
  return questions;
}

/** The passages an extractive answer cites: `N. [citation] text` lines. */
export function citedPassages(answer: string): { citation: string; text: string }[] {
  return [...answer.matchAll(/^\d+\. \[([^\]\n]+)\] (.*)$/gm)].map((m) => ({ citation: m[1]!, text: m[2]! }));
}

/** Share of questions whose extractive answer cites a passage holding the gold value (all spans, across its passages). */
export interface TatqaScore {
  questions: number;
  hits: number;
  /** Questions whose answer cites the question's own page. */
  rightFile: number;
}

/**
 * Runs `analyze`'s agents offline over each question's folder and scores the cited passages. `answer` runs one
 * question (the caller picks the model and store), so before/after comparisons share this scoring.
 */
export async function scoreTatqa(
  questions: readonly TatqaQuestion[],
  answer: (question: TatqaQuestion) => Promise<string>,
  cited: (text: string) => string[] = (text) => citedPassages(text).map((p) => `[${p.citation}] ${p.text}`),
): Promise<TatqaScore> {
  let hits = 0;
  let rightFile = 0;
  for (const question of questions) {
    const passages = cited(await answer(question));
    if (holdsGold(passages.join(' '), question.gold)) hits += 1;
    if (passages.some((p) => p.startsWith(`[${question.file}`))) rightFile += 1;
  }
  return { questions: questions.length, hits, rightFile };
}
