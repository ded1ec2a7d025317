/**
 * The prompting baseline: history summarization with one generic "summarize the conversation" prompt,
 * like the summarization middleware of general agent frameworks: same trigger and kept turns as C_hist,
 * but no guideline about what to keep. On a real model it asks that model; on the offline model (rules,
 * not an LLM) the extractive backend stands in under the generic prompt, that is with the default rules
 * and no scenario knowledge: the strongest generic summary the project's rules make (on retail it solved
 * 16 of 24 held-out tasks where the simpler query-aware summarizer of offline-summarizer.ts solved 4), so
 * the baseline is a serious competitor. Given a prompt-token budget, it summarizes whenever the request
 * would exceed it, into what room is left.
 */
import type { ContextProcessor } from '../context/request.js';
import type { ModelSpec } from '../models/resolve.js';
import { parseGuideline, type Guideline } from './guideline.js';
import { DEFAULT_HISTORY_THRESHOLD, historyCompressor } from './history.js';
import { llmBackend } from './llm-backend.js';
import { extractiveBackend } from './extractive-backend.js';
import { isOfflineModel } from './resolve-backend.js';

/** The one generic prompt of the prompting baseline: it says to summarize, not what to keep. */
export const GENERIC_SUMMARY_GUIDELINE: Guideline = Object.freeze(
  parseGuideline(
    `---
id: generic-summary
version: 1
target: history
description: One generic summarization prompt, with no guidance on what to keep (the prompting baseline).
---
Summarize the conversation so far so that it can be continued from your summary alone. Be concise: at most {{max_tokens}} tokens.

{{previous_summary}}

{{history}}
`,
    'pagewise:generic-summary',
  ),
);

/** Options of {@link promptingSummarizer}. */
export interface PromptingSummarizerOptions {
  /** The summarizing model. The offline model, or none, selects the extractive stand-in. */
  model?: ModelSpec;
  /** Summarize when the history is above this many tokens. Default 4,096, as C_hist. */
  thresholdTokens?: number;
  /** Turns kept verbatim at the end. Default 1, as C_hist. */
  keepLastTurns?: number;
  /** The summary budget named in the prompt. Default ⌊threshold / 2⌋. */
  maxSummaryTokens?: number;
  /** The batch between two summaries as a fraction of the threshold (see `batchRatio` of C_hist). Default as C_hist. */
  batchRatio?: number;
  /** Fence boundary generator (seed it for reproducible token counts). */
  boundary?: () => string;
  /**
   * A prompt-token budget for the whole request: when a request would exceed it, everything but the task
   * and the last kept turns is summarized into the room left (a fifth of it kept free for the next
   * steps), instead of at a fixed threshold. `thresholdTokens` and `maxSummaryTokens` are then unused.
   */
  budgetTokens?: number;
}

/**
 * Creates the prompting baseline processor. The summary is persisted as a compaction event, as C_hist
 * does, and later summaries fold new turns into it.
 *
 * @example
 * new Agent({ name: 'a', processors: [promptingSummarizer({ model: 'openai:gpt-4.1-mini' })] });
 */
export function promptingSummarizer(options: PromptingSummarizerOptions = {}): ContextProcessor {
  const model = options.model;
  const offline = model === undefined || isOfflineModel(model);
  const compressor = offline ? extractiveBackend({ keepHandles: false }) : llmBackend({ model });
  const label = offline ? 'extractive stand-in' : 'llm';
  const keepLastTurns = options.keepLastTurns ?? 1;
  const budget = options.budgetTokens;
  if (budget !== undefined) {
    if (!Number.isInteger(budget) || budget < 1)
      throw new RangeError(`promptingSummarizer: budgetTokens must be a positive integer, got ${budget}.`);
    return historyCompressor({
      compressor,
      guideline: GENERIC_SUMMARY_GUIDELINE,
      keepLastTurns,
      mode: 'accumulate',
      budgetTokens: budget,
      ...(options.boundary ? { boundary: options.boundary } : {}),
      name: `summarize(${label}, budget ${budget})`,
    });
  }
  const threshold = options.thresholdTokens ?? DEFAULT_HISTORY_THRESHOLD;
  return historyCompressor({
    compressor,
    guideline: GENERIC_SUMMARY_GUIDELINE,
    thresholdTokens: threshold,
    keepLastTurns,
    mode: 'accumulate',
    ...(options.maxSummaryTokens !== undefined ? { maxSummaryTokens: options.maxSummaryTokens } : {}),
    ...(options.batchRatio !== undefined ? { batchRatio: options.batchRatio } : {}),
    ...(options.boundary ? { boundary: options.boundary } : {}),
    name: `summarize(${label}, ${threshold})`,
  });
}
