/**
 * Teacher labels for the learned scorer: the observation-compressor calls an LLM compressor (the teacher)
 * made in episodes that succeeded, the same calls `pagewise distill export` writes as fine-tuning JSONL,
 * read from the database they were recorded in. This is ACON's distillation in the form the extractive
 * compressor can take: instead of a small model learning to write what the teacher wrote, the scorer
 * learns which units of the input the teacher kept.
 *
 * A unit (sentence, row, line, JSON value) of a call's observation is labelled kept when every value it
 * holds (a number, an id, a code) appears in the teacher's output as a whole word, or, for a unit with no
 * such value, when most of its content words do: an LLM rewrites the words around a value but, as the
 * default guideline tells it, copies the value. Each call becomes one item of the domain `teacher`,
 * graded on the values the teacher kept (the teacher-agreement recall), split by a hash of the call id as
 * the suite's own sets are.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { SqliteCompressorCallStore } from '@pagewise/sqlite';
import { isIdentifierToken } from '../../packages/pagewise/src/text/identifiers.js';
import { isStopword } from '../../packages/pagewise/src/text/stopwords.js';
import { hashedSplit, type SuiteItem } from './suite.js';

/** Domain of teacher items (their set also names the database). */
export const TEACHER_DOMAIN = 'teacher';
/** Share of a unit's content words the teacher's output must hold for a unit with no value. */
export const WORD_COVERAGE = 0.6;

const TOKEN = /[#$€£]?[\p{L}\p{N}][\p{L}\p{N}_.,:/-]*/gu;
const NUMBER = /^[#$€£]?[-+]?\d[\d,]*(?:\.\d+)?%?$/u;
const DATE = /^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$/u;

/** The token as a value is compared: trailing punctuation and thousands separators dropped. */
function normalizeValue(token: string): string {
  return token.replace(/[.,:/-]+$/u, '').replace(/(?<=\d),(?=\d{3}\b)/gu, '');
}

/** The values of `text` (numbers, dates, ids, codes), normalized, in order of first appearance. */
export function valuesOf(text: string): string[] {
  const out = new Set<string>();
  for (const match of text.matchAll(TOKEN)) {
    const token = normalizeValue(match[0]);
    if (NUMBER.test(token) || DATE.test(token) || isIdentifierToken(token.replace(/^[$€£]/u, ''))) out.add(token);
  }
  return [...out];
}

/** The content words of `text`: lower-cased words of 3+ letters that are not stopwords. */
export function contentWords(text: string): string[] {
  const out = new Set<string>();
  for (const match of text.toLowerCase().matchAll(/\p{L}{3,}/gu)) if (!isStopword(match[0])) out.add(match[0]);
  return [...out];
}

/** Whether the teacher's `output` kept the unit `unitText` of its input (see the module comment). */
export function teacherKeeps(unitText: string, output: string): boolean {
  const values = valuesOf(unitText);
  if (values.length > 0) {
    const kept = new Set(valuesOf(output));
    return values.every((v) => kept.has(v));
  }
  const words = contentWords(unitText);
  if (words.length === 0) return false;
  const kept = new Set(contentWords(output));
  return words.filter((w) => kept.has(w)).length / words.length >= WORD_COVERAGE;
}

/** Options of {@link teacherItems}. */
export interface TeacherOptions {
  /** Only calls of episodes scored at least this. Default 1 (succeeded), as `distill export`. */
  minSuccess?: number;
}

/** What a call database held for the trainer: the items, and why the other calls were not used. */
export interface TeacherRead {
  items: SuiteItem[];
  /** Observation calls of episodes scored at least `minSuccess`. */
  calls: number;
  /** Of those, calls of a backend that is not an LLM (extractive): they teach nothing. */
  notLlm: number;
  /** LLM calls whose output kept no value of their input. */
  withoutValues: number;
  /** LLM calls that repeat an (input, output) pair already read. */
  repeats: number;
}

/**
 * The teacher items of a call database: one per observation call of an LLM backend in a successful
 * episode whose output kept at least one value of its input; identical (input, output) pairs once.
 */
export async function teacherItems(dbPath: string, options: TeacherOptions = {}): Promise<SuiteItem[]> {
  return (await readTeacher(dbPath, options)).items;
}

/** {@link teacherItems}, with the count of calls left out and why. */
export async function readTeacher(dbPath: string, options: TeacherOptions = {}): Promise<TeacherRead> {
  // Opening creates a database; a mistyped path must say so instead of training on nothing.
  if (!existsSync(dbPath))
    throw new Error(
      `--teacher: no call database at ${dbPath} (the --db of \`pagewise optimize\` or \`distill export\`).`,
    );
  const store = new SqliteCompressorCallStore({ path: dbPath });
  try {
    const records = await store.list({ target: 'observation', minSuccess: options.minSuccess ?? 1 });
    const seen = new Set<string>();
    const read: TeacherRead = { items: [], calls: records.length, notLlm: 0, withoutValues: 0, repeats: 0 };
    for (const record of records) {
      if (!record.backend.startsWith('llm')) {
        read.notLlm += 1;
        continue;
      }
      const { observation, task } = record.input;
      const key = `${observation}\u0000${record.output}`;
      if (seen.has(key)) {
        read.repeats += 1;
        continue;
      }
      seen.add(key);
      const inInput = new Set(valuesOf(observation));
      const evidence = valuesOf(record.output).filter((v) => inInput.has(v));
      if (evidence.length === 0) {
        read.withoutValues += 1;
        continue;
      }
      read.items.push({
        set: `${TEACHER_DOMAIN} (${path.basename(dbPath)})`,
        domain: TEACHER_DOMAIN,
        id: record.id,
        split: hashedSplit(record.id),
        text: observation,
        query: task,
        json: /^\s*[[{]/u.test(observation),
        chat: false,
        evidenceCount: evidence.length,
        kept: (output) => {
          const values = new Set(valuesOf(output));
          return evidence.filter((v) => values.has(v)).length;
        },
        holds: (unitText) => teacherKeeps(unitText, record.output),
      });
    }
    return read;
  } finally {
    await store.close();
  }
}

/** Why a teacher database adds nothing to the fit, as the trainer says it before stopping. */
export class TeacherUnusable extends Error {}

/**
 * What `--teacher` adds, checked before any training: throws {@link TeacherUnusable} when no call joins the fit
 * (no LLM call, no value kept, or every usable call in the test split), and returns the notes to print otherwise
 * (calls left out, no test split to measure agreement on).
 */
export function teacherNotes(dbPath: string, read: TeacherRead): string[] {
  const tune = read.items.filter((item) => item.split === 'tune').length;
  const test = read.items.length - tune;
  const leftOut = [
    read.notLlm > 0 ? `${read.notLlm} by a backend that is not an LLM (extractive calls teach nothing)` : '',
    read.withoutValues > 0 ? `${read.withoutValues} whose output kept no value of its input` : '',
    read.repeats > 0 ? `${read.repeats} repeating a call already read` : '',
  ].filter(Boolean);
  const held = `${dbPath} holds ${read.calls} observation call(s) of successful episodes${leftOut.length > 0 ? `; left out: ${leftOut.join(', ')}` : ''}.`;
  if (read.items.length === 0)
    throw new TeacherUnusable(
      `--teacher: nothing to add. ${held} Record the calls of an LLM compressor: \`pagewise optimize --compressor <provider:model> --db <file>\`.`,
    );
  if (tune === 0)
    throw new TeacherUnusable(
      `--teacher: nothing to add to the fit. ${held} All ${test} usable call(s) fall in the test split (split by a hash of the call id), which is only measured; record more calls.`,
    );
  return [
    `Teacher: ${tune} call(s) join the fit, ${test} measure the teacher agreement. ${held}`,
    ...(test === 0
      ? [
          `Teacher: no usable call falls in the test split, so the teacher-agreement recall is not measured; record more calls.`,
        ]
      : []),
  ];
}
