/**
 * Where the third-party evaluation data lives and how to read it: TAT-QA dev (annual-report tables and
 * paragraphs) and HotpotQA dev. Read in place from the shared data folder, never copied.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The shared data folder: `PAGEWISE_SHARED_DATA`, else `../shared/data` beside the project. */
export function sharedDataDir(): string {
  return process.env.PAGEWISE_SHARED_DATA ?? path.resolve(repoRoot, '../shared/data');
}

/** The path of a file in the shared data folder, or a reason to skip when it is absent. */
export function sharedFile(relative: string): { path: string } | { skip: string } {
  const file = path.join(sharedDataDir(), relative);
  return existsSync(file)
    ? { path: file }
    : { skip: `${file} is absent (third-party data; set PAGEWISE_SHARED_DATA to the folder that holds it)` };
}

const TatQuestionSchema = z.object({
  uid: z.string(),
  question: z.string(),
  answer: z.union([z.array(z.string()), z.string(), z.number()]),
  answer_type: z.string(),
  answer_from: z.string(),
  derivation: z.string(),
  rel_paragraphs: z.array(z.string()),
});

const TatContextSchema = z.object({
  table: z.object({ uid: z.string(), table: z.array(z.array(z.string())) }),
  paragraphs: z.array(z.object({ order: z.number(), text: z.string() })),
  questions: z.array(TatQuestionSchema),
});

/** One TAT-QA question. */
export type TatQuestion = z.infer<typeof TatQuestionSchema>;
/** One TAT-QA context: a table, its paragraphs and the questions on them. */
export type TatContext = z.infer<typeof TatContextSchema>;

/** Reads TAT-QA's dev file, validating every context. */
export function loadTatQa(file: string): TatContext[] {
  const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const parsed = z.array(TatContextSchema).safeParse(raw);
  if (!parsed.success) throw new Error(`${file}: not TAT-QA: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

const HotpotSchema = z.object({
  _id: z.string(),
  question: z.string(),
  context: z.array(z.tuple([z.string(), z.array(z.string())])),
  supporting_facts: z.array(
    z.tuple([z.string(), z.array(z.number().int().nonnegative()), z.array(z.string())], z.unknown()),
  ),
});

/** One HotpotQA question with its ten paragraphs. */
export type HotpotQuestion = z.infer<typeof HotpotSchema>;

/** Reads a HotpotQA JSONL file, validating every line. */
export function loadHotpot(file: string): HotpotQuestion[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, lineIndex) => {
      const parsed = HotpotSchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${file}:${lineIndex + 1}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return parsed.data;
    });
}

/** The observation a retrieval tool returns: one `Title: sentence sentence ...` paragraph each. */
export function hotpotObservation(question: HotpotQuestion): string {
  return question.context
    .map(([title, sentences]) => `${title}: ${sentences.map((s) => s.trim()).join(' ')}`)
    .join('\n\n');
}

/** The supporting-fact sentences of a question, trimmed. */
export function hotpotEvidence(question: HotpotQuestion): string[] {
  return question.supporting_facts.flatMap(([, indices, sentences]) =>
    indices.map((i) => (sentences[i] ?? '').trim()).filter((s) => s !== ''),
  );
}

/**
 * The tuning split: the contexts (TAT-QA) or questions (HotpotQA) the compressor may be tuned on. The
 * reported figures use the rest only.
 */
export const TUNING_SPLIT = { tatqaContexts: 50, hotpotQuestions: 20 } as const;
