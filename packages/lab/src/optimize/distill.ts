/**
 * Distillation data: the recorded calls of a teacher compressor in successful episodes, as fine-tuning
 * JSONL for a small model. Two shapes: chat (`{"messages": [system, user, assistant]}`, the shape of
 * OpenAI-style chat fine-tuning and of most open trainers) and prompt/completion. The user message is
 * the guideline rendered with the call's input, exactly what `llmBackend` sends, so a model trained
 * on it can take the teacher's place behind `--compressor`. Identical (prompt, output) pairs are
 * written once.
 */
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { z } from 'zod';
import type { GuidelineTarget } from 'pagewise/compression';
import { ConfigurationError } from 'pagewise';
import { compressorSystemPrompt } from 'pagewise/compression';
import type { CompressorCallRecord, CompressorCallStore } from 'pagewise/store-kit';

/**
 * The system message of chat examples; serve the fine-tuned model with it as its system prompt
 * (`llmBackend({ model, system: compressorSystemPrompt })`).
 */
export function distillSystemPrompt(target: GuidelineTarget): string {
  return compressorSystemPrompt(target);
}

/** The shapes {@link exportDistillJsonl} writes. */
export type DistillFormat = 'chat' | 'completion';

/** One chat fine-tuning example. */
export const ChatExampleSchema = z
  .object({
    messages: z.tuple([
      z.object({ role: z.literal('system'), content: z.string().min(1) }).strict(),
      z.object({ role: z.literal('user'), content: z.string().min(1) }).strict(),
      z.object({ role: z.literal('assistant'), content: z.string().min(1) }).strict(),
    ]),
  })
  .strict();

/** One prompt/completion example. */
export const CompletionExampleSchema = z.object({ prompt: z.string().min(1), completion: z.string().min(1) }).strict();

/** A chat example. */
export type ChatExample = z.infer<typeof ChatExampleSchema>;
/** A prompt/completion example. */
export type CompletionExample = z.infer<typeof CompletionExampleSchema>;

/** The example of one recorded call in a format. */
export function distillExample(record: CompressorCallRecord, format: DistillFormat): ChatExample | CompletionExample {
  if (format === 'completion') return { prompt: record.prompt, completion: record.output };
  return {
    messages: [
      { role: 'system', content: distillSystemPrompt(record.target) },
      { role: 'user', content: record.prompt },
      { role: 'assistant', content: record.output },
    ],
  };
}

/** Options of {@link exportDistillJsonl}. */
export interface DistillExportOptions {
  store: CompressorCallStore;
  target: GuidelineTarget;
  /** The JSONL file to write (its folder is created). */
  out: string;
  /** Only calls of episodes scored at least this. Default 1 (succeeded). */
  minSuccess?: number;
  /** Only calls under this guideline id (and version). */
  guidelineId?: string;
  guidelineVersion?: number;
  /** Default `chat`. */
  format?: DistillFormat;
}

/** What {@link exportDistillJsonl} wrote. */
export interface DistillExportResult {
  file: string;
  /** Examples written. */
  written: number;
  /** Calls that matched the filter. */
  matched: number;
  /** Matching calls left out as duplicates of an example already written, or with an empty prompt or output. */
  duplicates: number;
  empty: number;
}

/**
 * Writes the successful episodes' calls of a target as fine-tuning JSONL, one example a line.
 *
 * @throws ConfigurationError when `minSuccess` is outside [0, 1].
 * @example
 * await exportDistillJsonl({ store, target: 'observation', out: 'distill/observation.jsonl' });
 */
export async function exportDistillJsonl(options: DistillExportOptions): Promise<DistillExportResult> {
  const minSuccess = options.minSuccess ?? 1;
  if (!Number.isFinite(minSuccess) || minSuccess < 0 || minSuccess > 1) {
    throw new ConfigurationError(
      'invalid-option',
      `--min-success must be a number from 0 to 1 (1: only episodes that succeeded), got ${minSuccess}.`,
    );
  }
  const format = options.format ?? 'chat';
  const records = await options.store.list({
    target: options.target,
    minSuccess,
    ...(options.guidelineId !== undefined ? { guidelineId: options.guidelineId } : {}),
    ...(options.guidelineVersion !== undefined ? { guidelineVersion: options.guidelineVersion } : {}),
  });
  await mkdir(path.dirname(path.resolve(options.out)), { recursive: true });
  const stream = createWriteStream(options.out);
  const seen = new Set<string>();
  let written = 0;
  let duplicates = 0;
  let empty = 0;
  try {
    for (const record of records) {
      if (record.prompt.trim() === '' || record.output.trim() === '') {
        empty += 1;
        continue;
      }
      const key = `${record.prompt}\u0000${record.output}`;
      if (seen.has(key)) {
        duplicates += 1;
        continue;
      }
      seen.add(key);
      if (!stream.write(`${JSON.stringify(distillExample(record, format))}\n`)) await once(stream, 'drain');
      written += 1;
    }
  } finally {
    stream.end();
    await once(stream, 'close');
  }
  return { file: options.out, written, matched: records.length, duplicates, empty };
}
