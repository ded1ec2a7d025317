/**
 * The token ledger: one entry per model call (compressor calls included), with prompt tokens split by
 * part, completion tokens, provider-reported usage beside the local count, and timings. Summaries give
 * the figures strategies are compared by: peak, cumulative, calls, and what the prompt cache served.
 */
import type { PromptCacheUsage } from './prompt-cache.js';
import type { ModelPrice } from './prices.js';

/** The parts a prompt is split into for accounting. */
export const PROMPT_PARTS = ['instruction', 'paged', 'history', 'observation', 'tools'] as const;

/** One part of a prompt. */
export type PromptPart = (typeof PROMPT_PARTS)[number];

/** Prompt tokens by part. */
export type PartTokens = Record<PromptPart, number>;

/** Who made the call: the agent, or a compressor working for it. */
export type CallKind = 'agent' | 'compressor';

/** One model call. */
export interface LedgerEntry {
  /** Sequence number within the ledger, from 0. */
  index: number;
  kind: CallKind;
  /** The agent (or compressor name) that made the call. */
  agent: string;
  model: string;
  invocationId: string;
  /** Prompt tokens by part, counted locally before the call. */
  parts: PartTokens;
  /** Sum of `parts`. */
  promptTokens: number;
  /** Completion tokens, counted locally from the response. */
  completionTokens: number;
  /** Provider-reported usage, when the provider gives it. */
  providerPromptTokens?: number;
  providerCompletionTokens?: number;
  /** What the provider's prompt cache did with the request: modelled, and reported when the provider says. */
  cache?: LedgerCache;
  /**
   * History compactions written while this call's request was built (an agent call; absent when none): its
   * prompt was rewritten from the first new summary on, so the prompt cache could serve at most what came
   * before it (`cache.modelled.firstChangedToken`), and the rest of the prompt was billed uncached or as a
   * cache write. {@link prefixRewriteCostUsd} prices that part.
   */
  compactions?: number;
  /** Milliseconds spent in the model call. */
  modelMs: number;
  /** Milliseconds the framework spent on this step outside the model call and tool execution. */
  frameworkMs: number;
  /** Milliseconds since the epoch. */
  at: number;
  /**
   * Set on a compressor failure: the compression was not used and the processor fell back to what it
   * had (the raw observation, the previous summary). Not a call of its own: the tokens of a call that was
   * answered are in the compressor's own entry.
   */
  error?: LedgerError;
}

/** The prompt cache of one call (see {@link LedgerEntry.cache}). */
export interface LedgerCache {
  /** The prompt-cache model's figures for the request as sent (see `PromptCache`). */
  modelled: PromptCacheUsage;
  /**
   * What the provider reported (the AI SDK's `usage.inputTokens.cacheRead` and `cacheWrite`), when it did.
   * These are what is billed; the modelled figures stand in when they are absent.
   */
  reported?: { readTokens?: number; writeTokens?: number };
}

/** A compressor failure in the ledger (see {@link LedgerEntry.error}). */
export interface LedgerError {
  /** The pagewise error code (`provider-server-error`, `model-timeout`, `compression-rejected`, ...). */
  code: string;
  message: string;
  /** Who was at fault: `system` (a provider or network failure), `model` (a bad output), `configuration`. */
  fault: string;
  retryable: boolean;
  /** What was used instead. */
  fallback: 'raw-observation' | 'previous-history';
}

/**
 * One compression a processor applied (a tool result compressed, a history folded into a summary), by any backend.
 * Not a model call: an LLM backend's call is an entry of its own; the extractive backend makes none.
 */
export interface CompressionRecord {
  target: 'observation' | 'history';
  /** The backend's name (`extractive`, `llm(openai:gpt-4.1-nano)`, ...). */
  backend: string;
  /** The agent the compression worked for. */
  agent: string;
  invocationId: string;
  /** Tokens of what was compressed, and of what replaced it. */
  inputTokens: number;
  outputTokens: number;
  /** Milliseconds since the epoch. */
  at: number;
}

/** Aggregates of a ledger. */
export interface LedgerSummary {
  modelCalls: number;
  /** Model calls made by compressors (included in modelCalls); the extractive backend makes none, see `compressions`. */
  compressorCalls: number;
  /**
   * Compressions applied, by any backend, the extractive one included (a {@link CompressionRecord} each). Present
   * when the summary is of a {@link Ledger} (`ledger.summary`, a run's `result.ledger.summary`), which records
   * them; a summary of bare entries (`summarizeLedger(entries)`) has none to count.
   */
  compressions?: number;
  /** Compressions that failed and fell back (entries with an `error`; not counted as calls). */
  compressorErrors: number;
  /** Largest single agent request, system prompt and tool schemas included. */
  peakPromptTokens: number;
  /** Largest agent request without instruction, paged content and tool schemas (the ACON paper's variant). */
  peakPromptTokensNoSystem: number;
  /** Sum of agent prompt tokens over calls. */
  cumulativePromptTokens: number;
  completionTokens: number;
  /** Prompt plus completion tokens of compressor calls. */
  compressorTokens: number;
  /** ACON's dependency metric: Σ (n_in + 2·n_out)·n_out / 2 over agent calls. */
  dependency: number;
  /** Median framework milliseconds per agent step. */
  medianFrameworkMs: number;
  /** Agent prompt tokens read from the prompt cache (see {@link billedPromptTokens}). */
  cacheReadTokens: number;
  /** Agent prompt tokens written to the prompt cache. */
  cacheWriteTokens: number;
  /**
   * Cache read tokens ÷ prompt tokens over the agent calls that carry cache figures; null when none does
   * (a ledger recorded without a prompt-cache model).
   */
  cacheHitRate: number | null;
}

/** The prompt tokens of a call as billed: read from the cache, written to it (of which with the long TTL), uncached. */
export interface BilledPromptTokens {
  read: number;
  write: number;
  writeLong: number;
  uncached: number;
}

/**
 * The prompt tokens of a call split as a provider bills them. The provider's own figures when it reported
 * them (its prompt total, cache read and write), else the prompt-cache model's (whose total is the request
 * as it serialized it); without either, every prompt token is uncached.
 */
export function billedPromptTokens(entry: LedgerEntry): BilledPromptTokens {
  const cache = entry.cache;
  if (!cache) return { read: 0, write: 0, writeLong: 0, uncached: entry.providerPromptTokens ?? entry.promptTokens };
  const { modelled, reported } = cache;
  if (reported?.readTokens === undefined && reported?.writeTokens === undefined) {
    const { readTokens, writeTokens, writeLongTtlTokens, uncachedTokens } = modelled;
    return { read: readTokens, write: writeTokens, writeLong: writeLongTtlTokens, uncached: uncachedTokens };
  }
  const total = entry.providerPromptTokens ?? modelled.promptTokens;
  const read = reported.readTokens ?? 0;
  const write = reported.writeTokens ?? 0;
  return {
    read,
    write,
    writeLong: Math.min(modelled.writeLongTtlTokens, write),
    uncached: Math.max(0, total - read - write),
  };
}

/**
 * The cost of one call in USD at `price`: uncached prompt tokens at the input price, cache reads and writes
 * at theirs (each defaulting to the input price when the price has none), completion tokens at the output
 * price. Provider-reported token counts are used when given, as they are what is billed.
 *
 * @example
 * const usd = ledger.entries.reduce((sum, entry) => sum + callCostUsd(entry, DEFAULT_PRICES['openai:gpt-4.1']!), 0);
 */
export function callCostUsd(entry: LedgerEntry, price: ModelPrice): number {
  const tokens = billedPromptTokens(entry);
  const read = price.cacheReadPerMTok ?? price.inputPerMTok;
  const write = price.cacheWritePerMTok ?? price.inputPerMTok;
  const writeLong = price.cacheWrite1hPerMTok ?? write;
  const output = entry.providerCompletionTokens ?? entry.completionTokens;
  return (
    (tokens.uncached * price.inputPerMTok +
      tokens.read * read +
      (tokens.write - tokens.writeLong) * write +
      tokens.writeLong * writeLong +
      output * price.outputPerMTok) /
    1_000_000
  );
}

/**
 * What a call whose request was compacted ({@link LedgerEntry.compactions}) paid for its prompt past the cache,
 * in USD at `price`: its prompt tokens not read from the cache, at the input price or the cache-write price as
 * billed. That is the rewritten prompt from the first new summary on, with the step's new turn, which an
 * uncompacted call pays for too: an upper bound of what the rewrite cost. 0 for a call that was not compacted.
 *
 * @example
 * const rewrites = ledger.entries.reduce((sum, e) => sum + prefixRewriteCostUsd(e, DEFAULT_PRICES['openai:gpt-4.1']!), 0);
 */
export function prefixRewriteCostUsd(entry: LedgerEntry, price: ModelPrice): number {
  if (!entry.compactions) return 0;
  const tokens = billedPromptTokens(entry);
  const write = price.cacheWritePerMTok ?? price.inputPerMTok;
  const writeLong = price.cacheWrite1hPerMTok ?? write;
  return (
    (tokens.uncached * price.inputPerMTok + (tokens.write - tokens.writeLong) * write + tokens.writeLong * writeLong) /
    1_000_000
  );
}

/** Creates a zeroed {@link PartTokens}. */
export function emptyParts(): PartTokens {
  return { instruction: 0, paged: 0, history: 0, observation: 0, tools: 0 };
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Summarizes ledger entries, and counts `compressions` when they are given. */
export function summarizeLedger(
  entries: readonly LedgerEntry[],
  compressions?: readonly CompressionRecord[],
): LedgerSummary {
  let peak = 0;
  let peakNoSystem = 0;
  let cumulative = 0;
  let completion = 0;
  let compressorTokens = 0;
  let compressorCalls = 0;
  let compressorErrors = 0;
  let dependency = 0;
  let events = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let cachedCallsPrompt = 0;
  const framework: number[] = [];
  for (const entry of entries) {
    if (entry.error) {
      compressorErrors += 1;
      events += 1;
      continue;
    }
    if (entry.kind === 'compressor') {
      compressorCalls += 1;
      compressorTokens += entry.promptTokens + entry.completionTokens;
      continue;
    }
    peak = Math.max(peak, entry.promptTokens);
    peakNoSystem = Math.max(peakNoSystem, entry.parts.history + entry.parts.observation);
    cumulative += entry.promptTokens;
    completion += entry.completionTokens;
    dependency += ((entry.promptTokens + 2 * entry.completionTokens) * entry.completionTokens) / 2;
    framework.push(entry.frameworkMs);
    if (entry.cache) {
      const billed = billedPromptTokens(entry);
      cacheRead += billed.read;
      cacheWrite += billed.write;
      cachedCallsPrompt += billed.read + billed.write + billed.uncached;
    }
  }
  return {
    modelCalls: entries.length - events,
    compressorCalls,
    ...(compressions ? { compressions: compressions.length } : {}),
    compressorErrors,
    peakPromptTokens: peak,
    peakPromptTokensNoSystem: peakNoSystem,
    cumulativePromptTokens: cumulative,
    completionTokens: completion,
    compressorTokens,
    dependency,
    medianFrameworkMs: median(framework),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    cacheHitRate: cachedCallsPrompt > 0 ? cacheRead / cachedCallsPrompt : null,
  };
}

/**
 * `ledger.summary`, which may still be called as the method it was (`ledger.summary()`) for one release: the
 * summary's fields, and a call that returns them with a deprecation warning.
 */
export type LedgerSummaryProperty = LedgerSummary & {
  /** @deprecated Read `ledger.summary` as a property, as a run's `result.ledger.summary` is read. */
  (): LedgerSummary;
};

let warnedSummaryCall = false;

/** The summary as {@link LedgerSummaryProperty}: its fields, callable, serialized as the plain summary. */
function summaryProperty(summary: LedgerSummary): LedgerSummaryProperty {
  const call = (): LedgerSummary => {
    if (!warnedSummaryCall) {
      warnedSummaryCall = true;
      process.emitWarning('ledger.summary() is deprecated: read ledger.summary as a property.', {
        type: 'DeprecationWarning',
        code: 'PAGEWISE_LEDGER_SUMMARY_CALL',
      });
    }
    return { ...summary };
  };
  Object.defineProperty(call, 'toJSON', { value: () => ({ ...summary }), enumerable: false });
  return Object.assign(call, summary);
}

/** An append-only list of ledger entries and compressions; listeners see each as it is recorded. */
export class Ledger {
  private readonly list: LedgerEntry[] = [];
  private readonly compressionList: CompressionRecord[] = [];
  private readonly listeners = new Set<(entry: LedgerEntry) => void>();
  private readonly compressionListeners = new Set<(record: CompressionRecord) => void>();

  /** Records an entry and returns it with its index. */
  record(entry: Omit<LedgerEntry, 'index'>): LedgerEntry {
    const full: LedgerEntry = { ...entry, index: this.list.length };
    this.list.push(full);
    for (const listener of this.listeners) listener(full);
    return full;
  }

  /** Records a compression a processor applied (see {@link CompressionRecord}). */
  recordCompression(record: CompressionRecord): void {
    this.compressionList.push(record);
    for (const listener of this.compressionListeners) listener(record);
  }

  /** Updates the framework time of an entry once the step around it has finished. */
  setFrameworkMs(index: number, ms: number): void {
    const entry = this.list[index];
    if (entry) entry.frameworkMs = ms;
  }

  /** Calls `listener` for every entry recorded from now on; returns a function that stops it. */
  subscribe(listener: (entry: LedgerEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` for every compression recorded from now on; returns a function that stops it. */
  subscribeCompressions(listener: (record: CompressionRecord) => void): () => void {
    this.compressionListeners.add(listener);
    return () => this.compressionListeners.delete(listener);
  }

  get entries(): readonly LedgerEntry[] {
    return this.list;
  }

  /** The compressions recorded, in order. */
  get compressions(): readonly CompressionRecord[] {
    return this.compressionList;
  }

  /**
   * The aggregates of the entries and compressions so far, read as a property like a run's `result.ledger.summary`
   * (`compression.ledger.summary.compressions`). Calling it, as the method it was, still works for one release.
   */
  get summary(): LedgerSummaryProperty {
    return summaryProperty(summarizeLedger(this.list, this.compressionList));
  }
}
