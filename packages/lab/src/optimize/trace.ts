/**
 * What the optimizer keeps of an episode: its outcome and cost, the tool calls it made (to find
 * re-discovery and the variables a run used), and, per field, what its compressor calls kept and
 * lost. A trace is what progress files store, so an interrupted optimization resumes without
 * running the episode again; it is bounded (value lists, excerpts) to keep those files small.
 */
import { z } from 'zod';
import type { ErrorFault, LedgerEntry } from 'pagewise';
import { summarizeLedger, countTokens } from 'pagewise';
import type { CompressorCallRecord } from 'pagewise/store-kit';
import {
  containsWord,
  diffCompression,
  FieldStatsSchema,
  jsonLeaves,
  mergeFieldStats,
  splitJson,
  type FieldStats,
} from './field-diff.js';

/** How an episode ran: with the full context, or with the compressor under test. */
export type EpisodeMode = 'uncompressed' | 'compressed';

/** A tool call an episode made, arguments as canonical JSON. */
export interface ObservedToolCall {
  toolName: string;
  input: string;
}

/** What an evaluator reports of one episode, before analysis. */
export interface EpisodeResult {
  success: boolean;
  /** The final answer, or the error message. */
  answer: string;
  error?: string;
  /** Who was at fault for `error`, when known (`system`: a provider failure, not the guideline's). */
  errorFault?: ErrorFault;
  /** Every model call of the episode, compressor calls included. */
  ledger: readonly LedgerEntry[];
  /** Every successful tool call, in order. */
  toolCalls: readonly ObservedToolCall[];
  /** Every compressor call, in order (none when uncompressed). */
  compressions: readonly CompressorCallRecord[];
  /** The history text of the last model request (after compression): what the run ended with. */
  finalPrompt?: string;
}

/** A compressor call as shown to an optimizer LLM: input and output, cut to a few hundred tokens. */
export interface TraceExcerpt {
  toolName?: string;
  input: string;
  output: string;
  /** Fields (generalized paths) the call lost, most first. */
  lost: string[];
}

/** See the module comment. */
export interface EpisodeTrace {
  taskId: string;
  mode: EpisodeMode;
  /** The behaviour hash of the guideline, null when uncompressed. */
  guidelineHash: string | null;
  success: boolean;
  answer: string;
  error?: string;
  /** Largest agent request. */
  peakPromptTokens: number;
  /** Sum of agent prompt tokens. */
  cumulativePromptTokens: number;
  /** Prompt and completion tokens of compressor model calls (0 for the extractive backend). */
  compressorTokens: number;
  /** What the episode cost: cumulative agent prompt tokens plus compressor tokens. */
  costTokens: number;
  agentCalls: number;
  toolCalls: ObservedToolCall[];
  compressorCalls: number;
  /** Tokens of the compressors' inputs and outputs (observation, or history and previous summary). */
  compressedInputTokens: number;
  compressedOutputTokens: number;
  /** Per generalized path, what the compressor calls kept and lost. */
  fields: Record<string, FieldStats>;
  /** Output fields with values the inputs did not hold. */
  invented: number;
  excerpts: TraceExcerpt[];
  /**
   * Of the values that matter (the task's facts, the variables of the uncompressed run), those still
   * present in the last request, canonical; null when the evaluator did not report the request.
   */
  promptValues: string[] | null;
}

/** Schema of {@link EpisodeTrace}, for progress files read back. */
export const EpisodeTraceSchema = z.object({
  taskId: z.string(),
  mode: z.enum(['uncompressed', 'compressed']),
  guidelineHash: z.string().nullable(),
  success: z.boolean(),
  answer: z.string(),
  error: z.string().optional(),
  peakPromptTokens: z.number(),
  cumulativePromptTokens: z.number(),
  compressorTokens: z.number(),
  costTokens: z.number(),
  agentCalls: z.number(),
  toolCalls: z.array(z.object({ toolName: z.string(), input: z.string() })),
  compressorCalls: z.number(),
  compressedInputTokens: z.number(),
  compressedOutputTokens: z.number(),
  fields: z.record(z.string(), FieldStatsSchema),
  invented: z.number(),
  excerpts: z.array(
    z.object({ toolName: z.string().optional(), input: z.string(), output: z.string(), lost: z.array(z.string()) }),
  ),
  promptValues: z.array(z.string()).nullable(),
});

const MAX_ANSWER_CHARS = 1000;
const MAX_TOOL_CALLS = 200;
const MAX_ARGUMENT_CHARS = 300;
const MAX_EXCERPTS = 3;
const MAX_EXCERPT_CHARS = 1500;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** The text a compressor call compressed: the observation, or the previous summary and the new steps. */
export function compressedText(record: CompressorCallRecord): string {
  return record.target === 'observation'
    ? record.input.observation
    : [record.input.previousSummary, record.input.history].filter(Boolean).join('\n');
}

/**
 * The facts (canonical values) a text holds: as a JSON value at any path, or as a whole word of the
 * text (a summary written as prose or fact lines), amounts also in their two-decimal form.
 */
export function factsIn(text: string, facts: readonly string[]): string[] {
  if (facts.length === 0) return [];
  const leaves = new Set(splitJson(text).values.flatMap((v) => jsonLeaves(v).map((l) => l.value)));
  const lower = text.toLowerCase();
  return facts.filter((fact) => {
    if (leaves.has(fact)) return true;
    const forms = /^-?\d+(?:\.\d+)?$/u.test(fact) ? [fact, Number(fact).toFixed(2)] : [fact];
    return forms.some((form) => containsWord(lower, form));
  });
}

/**
 * Analyses an episode's result into a trace (see the module comment); `values` (canonical) are looked
 * for in the last request: the task's facts and the variables of its uncompressed run.
 */
export function buildTrace(
  job: { taskId: string; mode: EpisodeMode; guidelineHash: string | null },
  result: EpisodeResult,
  values: readonly string[] = [],
): EpisodeTrace {
  const summary = summarizeLedger(result.ledger);
  const fields: Record<string, FieldStats> = {};
  let invented = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  const diffs = result.compressions.map((record) => {
    const input = compressedText(record);
    const diff = diffCompression(input, record.output);
    mergeFieldStats(fields, diff.fields);
    invented += diff.invented;
    inputTokens += countTokens(input);
    outputTokens += countTokens(record.output);
    const lost = Object.entries(diff.fields)
      .filter(([, s]) => s.lost > 0)
      .sort((a, b) => b[1].lost - a[1].lost);
    return { record, input, lost, lostCount: lost.reduce((n, [, s]) => n + s.lost, 0) };
  });
  // The calls that lost the most are the ones an optimizer LLM should read.
  const excerpts = [...diffs]
    .sort((a, b) => b.lostCount - a.lostCount)
    .slice(0, MAX_EXCERPTS)
    .filter((d) => d.lostCount > 0)
    .map((diff) => ({
      ...(diff.record.input.toolName !== undefined ? { toolName: diff.record.input.toolName } : {}),
      input: cut(diff.input, MAX_EXCERPT_CHARS),
      output: cut(diff.record.output, MAX_EXCERPT_CHARS),
      lost: diff.lost.slice(0, 12).map(([path]) => path),
    }));
  return {
    taskId: job.taskId,
    mode: job.mode,
    guidelineHash: job.guidelineHash,
    success: result.success,
    answer: cut(result.answer, MAX_ANSWER_CHARS),
    ...(result.error !== undefined ? { error: cut(result.error, MAX_ANSWER_CHARS) } : {}),
    peakPromptTokens: summary.peakPromptTokens,
    cumulativePromptTokens: summary.cumulativePromptTokens,
    compressorTokens: summary.compressorTokens,
    costTokens: summary.cumulativePromptTokens + summary.compressorTokens,
    agentCalls: summary.modelCalls - summary.compressorCalls,
    toolCalls: result.toolCalls
      .slice(0, MAX_TOOL_CALLS)
      .map((c) => ({ toolName: c.toolName, input: cut(c.input, MAX_ARGUMENT_CHARS) })),
    compressorCalls: result.compressions.length,
    compressedInputTokens: inputTokens,
    compressedOutputTokens: outputTokens,
    fields,
    invented,
    excerpts,
    promptValues: result.finalPrompt === undefined ? null : factsIn(result.finalPrompt, values),
  };
}

/** Tool calls that repeat an earlier identical call of the same episode (same tool, same arguments). */
export function repeatedCalls(trace: Pick<EpisodeTrace, 'toolCalls'>): number {
  const seen = new Set<string>();
  let repeats = 0;
  for (const call of trace.toolCalls) {
    const key = `${call.toolName} ${call.input}`;
    if (seen.has(key)) repeats += 1;
    else seen.add(key);
  }
  return repeats;
}
