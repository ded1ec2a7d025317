/**
 * Loads the HotpotQA (distractor) questions of the multi-objective QA scenario from JSONL and normalizes
 * them: trimmed paragraph sentences, and supporting facts resolved to the sentences they point at.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConfigurationError } from 'pagewise';
import { findDataPath, missingDataHint } from '../../util/data-path.js';

/** The environment variable that points the loader at another HotpotQA JSONL file. */
export const HOTPOTQA_PATH_ENV = 'PAGEWISE_HOTPOTQA_PATH';

/** One context paragraph: a Wikipedia title and its sentences (trimmed, indices kept). */
export interface HotpotParagraph {
  title: string;
  sentences: string[];
}

/** One supporting fact: the sentence the answer depends on, resolved from its paragraph. */
export interface SupportingFact {
  title: string;
  sentenceIndex: number;
  sentence: string;
}

/** A normalized HotpotQA question with its 10 context paragraphs (2 gold + 8 distractors). */
export interface HotpotRecord {
  id: string;
  question: string;
  answer: string;
  /** `bridge` questions chain two paragraphs; `comparison` questions compare two entities. */
  type: 'bridge' | 'comparison';
  paragraphs: HotpotParagraph[];
  supporting: SupportingFact[];
}

// The AMOR redistribution stores supporting facts as `[title, [indices], [sentences], {retrieved doc}]`;
// the original HotpotQA release uses `[title, index]`. Both are accepted so either file can be used.
const RawRecordSchema = z.object({
  _id: z.string().min(1),
  question: z.string().min(1),
  answer: z.string(),
  type: z.enum(['bridge', 'comparison']),
  context: z.array(z.tuple([z.string(), z.array(z.string())])).min(1),
  supporting_facts: z
    .array(
      z.tuple(
        [z.string(), z.union([z.number().int().nonnegative(), z.array(z.number().int().nonnegative())])],
        z.unknown(),
      ),
    )
    .min(1),
});

/** Where {@link loadHotpot} reads from: `$PAGEWISE_HOTPOTQA_PATH`, else the fetched data (`pagewise data fetch hotpotqa`) or `../shared/data`. */
export function defaultHotpotPath(): string {
  const fromEnv = process.env[HOTPOTQA_PATH_ENV];
  return fromEnv ? path.resolve(fromEnv) : findDataPath('hotpotqa/dev.jsonl');
}

/**
 * Why HotpotQA is missing, and how to get it: the file looked for, the fetch command and the variables,
 * in the words every skip message uses.
 */
export function hotpotDataMissing(file: string = defaultHotpotPath()): string {
  return `no HotpotQA data at ${file}. ${missingDataHint('hotpotqa', HOTPOTQA_PATH_ENV)}`;
}

/** True when the HotpotQA file exists, so tests and benchmarks can skip with a reason instead of failing. */
export function hotpotAvailable(file: string = defaultHotpotPath()): boolean {
  return existsSync(file);
}

function normalize(raw: z.infer<typeof RawRecordSchema>, where: string): HotpotRecord {
  const paragraphs = raw.context.map(([title, sentences]) => ({ title, sentences: sentences.map((s) => s.trim()) }));
  const byTitle = new Map(paragraphs.map((p) => [p.title, p]));
  const supporting: SupportingFact[] = [];
  for (const [title, indices] of raw.supporting_facts) {
    const paragraph = byTitle.get(title);
    for (const sentenceIndex of Array.isArray(indices) ? indices : [indices]) {
      const sentence = paragraph?.sentences[sentenceIndex];
      if (sentence === undefined) {
        throw new ConfigurationError(
          'invalid-hotpotqa',
          `${where}: supporting fact [${JSON.stringify(title)}, ${sentenceIndex}] points at no sentence of the context. ` +
            'Fix or remove that record.',
        );
      }
      supporting.push({ title, sentenceIndex, sentence });
    }
  }
  return {
    id: raw._id,
    question: raw.question.trim(),
    answer: raw.answer.trim(),
    type: raw.type,
    paragraphs,
    supporting,
  };
}

/**
 * Reads and validates HotpotQA records from a JSONL file (one question a line).
 *
 * @param file defaults to {@link defaultHotpotPath}.
 * @throws ConfigurationError when the file is missing or a line does not parse, naming the file and line.
 * @example
 * if (hotpotAvailable()) {
 *   const records = await loadHotpot();
 * }
 */
export async function loadHotpot(file: string = defaultHotpotPath()): Promise<HotpotRecord[]> {
  if (!existsSync(file)) {
    throw new ConfigurationError(
      'hotpotqa-missing',
      `HotpotQA data not found at ${file}. ${missingDataHint('hotpotqa', HOTPOTQA_PATH_ENV)}`,
    );
  }
  const lines = (await readFile(file, 'utf8')).split('\n');
  const records: HotpotRecord[] = [];
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const where = `${file}:${index + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new ConfigurationError(
        'invalid-hotpotqa',
        `${where} is not valid JSON: ${(error as Error).message}`,
        error,
      );
    }
    const parsed = RawRecordSchema.safeParse(json);
    if (!parsed.success) {
      throw new ConfigurationError(
        'invalid-hotpotqa',
        `${where} is not a HotpotQA record: ${z.prettifyError(parsed.error)}`,
        parsed.error,
      );
    }
    records.push(normalize(parsed.data, where));
  });
  return records;
}
