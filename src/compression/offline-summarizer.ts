/**
 * The deterministic stand-in for a summarizing LLM, used by the prompting baseline when the model is
 * the offline one (which is rules, not an LLM, and cannot summarize). It keeps the first sentence of
 * each step, at most 200 characters, and follows no guideline: roughly what a generic "summarize the
 * conversation" prompt gives, and the floor any guideline-driven compressor has to beat.
 */
import type { CompressionInput, CompressorBackend } from './backend.js';
import { itemTranscript } from './transcript.js';

/** The most characters kept of each step. */
export const NAIVE_STEP_CHARS = 200;

/** The first sentence of `text` (whitespace collapsed), at most {@link NAIVE_STEP_CHARS} characters. */
export function firstSentence(text: string, maxChars: number = NAIVE_STEP_CHARS): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  const end = /[.!?](?=\s|$)/u.exec(flat);
  const sentence = end ? flat.slice(0, end.index + 1) : flat;
  // Cut at a code point, never inside a surrogate pair.
  return sentence.length <= maxChars ? sentence : `${Array.from(sentence).slice(0, maxChars).join('')}…`;
}

/**
 * Creates the naive summarizer: the previous summary as it is, then one line per step of the new
 * turns (user message, model text, tool call, tool result), each cut to its first sentence. The
 * guideline and `maxTokens` are ignored on purpose, as a generic prompt would ignore them.
 *
 * @example
 * historyCompressor({ compressor: naiveSummarizer(), guideline: GENERIC_SUMMARY_GUIDELINE });
 */
export function naiveSummarizer(): CompressorBackend {
  return {
    name: 'naive-first-sentence',
    compress: async (input: CompressionInput) => {
      if (input.target === 'observation') return firstSentence(input.observation);
      const lines = input.previousSummary.trim() ? [input.previousSummary.trim()] : [];
      for (const turn of input.turns) for (const item of turn) lines.push(`- ${firstSentence(itemTranscript(item))}`);
      return lines.join('\n');
    },
  };
}
