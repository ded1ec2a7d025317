/**
 * The benchmark's metrics: per episode from its ledger (peak, cumulative, dependency, cost), then per
 * strategy over its episodes. Pure functions, so a report rebuilt from saved runs gives the same numbers.
 *
 * Aggregation, per strategy and N: token counts, model calls, dependency and cost are means over
 * episodes of each episode's figure (peak = mean of the episodes' peaks, with the largest peak beside
 * it); success rate, evidence recall, EM and F1 are means over episodes; framework overhead is the median
 * over all agent steps; wall time is the total; window failures and errors are counts.
 */
import type { ModelPrice } from 'pagewise/cost';
import { summarizeLedger, type LedgerEntry } from 'pagewise';
import { billedPromptTokens, callCostUsd } from 'pagewise/cost';
import type { EpisodeOutcome } from './scenario.js';

/** The metrics of one strategy at one N, as written to the results JSON (schema 1). */
export interface StrategyResult {
  strategy: string;
  /** The scenario size N these runs used; null when the scenario has none. */
  n: number | null;
  /** Episodes run. */
  runs: number;
  /** Share of episodes whose answer matched the gold answer (the scenario's success rule). */
  successRate: number;
  /** Mean over episodes of the largest request of each episode, system prompt and tool schemas included. */
  peakPromptTokens: number;
  /** The largest request of any episode. */
  peakPromptTokensMax: number;
  /** As `peakPromptTokens`, without the system prompt (instruction, paged content) and tool schemas: the ACON paper's variant. */
  peakPromptTokensNoSystem: number;
  /** Mean over episodes of the sum of agent prompt tokens over calls. */
  cumulativePromptTokens: number;
  /** Mean over episodes of agent completion tokens. */
  completionTokens: number;
  /** Mean over episodes of compressor prompt plus completion tokens. */
  compressorTokens: number;
  /** Mean over episodes of model calls, compressor calls included. */
  modelCalls: number;
  /** Mean over episodes of ACON's dependency Σ (n_in + 2·n_out)·n_out / 2 over agent calls. */
  dependency: number;
  /** Mean evidence recall over the episodes that define it; null when none does. */
  evidenceRecall: number | null;
  /** Mean exact match over the episodes that define it (real models); null otherwise. */
  exactMatch: number | null;
  /** Mean token F1 over the episodes that define it (real models); null otherwise. */
  f1: number | null;
  /** Median framework milliseconds per agent step (model and tool time excluded). */
  overheadMsPerStep: number;
  /** Total wall time of the strategy's episodes in milliseconds. */
  wallMs: number;
  /** Episodes that failed because a request exceeded the context window. */
  windowFailures: number;
  /** Episodes that ended in an error (window failures included). */
  errors: number;
  /**
   * Prompt tokens read from the cache ÷ prompt tokens over the agent calls of all episodes that carry cache
   * figures; null when none does.
   */
  cacheHitRate: number | null;
  /** Mean estimated cost per episode in USD, with prompt caching; null when a call's model has no known price. */
  costUsd: number | null;
  /** Estimated cost of all the strategy's episodes in USD; null when unknown. */
  totalCostUsd: number | null;
  /**
   * Mean per episode of the cost floor in USD (see {@link ledgerFloorUsd}): every distinct page's tokens once at the
   * uncached price, every other prompt token at the cached price, output as billed. Null when an episode does not
   * count its pages (a scenario without pages) or a price is unknown.
   */
  floorCostUsd: number | null;
  /** Cost of all the episodes ÷ their floor, the same episodes; null when the floor is. */
  costToFloor: number | null;
}

/** Arithmetic mean; 0 for no values. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Median (mean of the two middle values for an even count); 0 for no values. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * The price of one call. A compressor may use another model, so each entry is priced by its own model
 * label; agent calls fall back to the benchmark's model spec, since a model instance is labelled by its
 * provider id (`openai.responses:gpt-4.1`), which the price table does not list.
 */
function priceOf(
  entry: LedgerEntry,
  prices: Readonly<Record<string, ModelPrice>>,
  modelSpec: string,
  priceAs: string | undefined,
): ModelPrice | undefined {
  if (entry.kind === 'agent' && priceAs !== undefined) return prices[priceAs];
  return prices[entry.model] ?? (entry.kind === 'agent' ? prices[modelSpec] : undefined);
}

/**
 * Estimated cost of a ledger in USD with prompt caching, every call included (see `callCostUsd`: the
 * provider's reported cache figures when given, else the prompt-cache model's). Agent calls are priced at
 * `priceAs` when given (an offline run priced as a provider would bill it). Undefined when some call's
 * model has no price.
 */
export function ledgerCostUsd(
  entries: readonly LedgerEntry[],
  prices: Readonly<Record<string, ModelPrice>>,
  modelSpec: string,
  priceAs?: string,
): number | undefined {
  let usd = 0;
  for (const entry of entries) {
    const price = priceOf(entry, prices, modelSpec, priceAs);
    if (!price) return undefined;
    usd += callCostUsd(entry, price);
  }
  return usd;
}

/**
 * The cost floor of a ledger in USD: what its calls would cost if every distinct page the episode's prompts held
 * (`pageTokens`, each page once) were paid once at the uncached input price and every other prompt token of the
 * agent calls at the cache-read price, with the output as billed; compressor calls count as billed. No layout
 * can cost less: a page is new to the provider at least once, and nothing is cheaper than a cache read. It is not
 * always reachable (the first call's prefix is never cached; Anthropic bills a cache write at 1.25x input), so
 * the floor is a lower bound, not a target a run is tuned to. The prompt total is the billed one
 * (`billedPromptTokens`), as in {@link ledgerCostUsd}; page tokens beyond it are capped at it. Undefined when a
 * call's model has no price or the ledger has no agent call.
 */
export function ledgerFloorUsd(
  entries: readonly LedgerEntry[],
  pageTokens: number,
  prices: Readonly<Record<string, ModelPrice>>,
  modelSpec: string,
  priceAs?: string,
): number | undefined {
  let usd = 0;
  let prompt = 0;
  let pagePrice: ModelPrice | undefined;
  for (const entry of entries) {
    const price = priceOf(entry, prices, modelSpec, priceAs);
    if (!price) return undefined;
    if (entry.kind !== 'agent' || entry.error) {
      usd += callCostUsd(entry, price);
      continue;
    }
    pagePrice ??= price;
    const billed = billedPromptTokens(entry);
    const total = billed.read + billed.write + billed.uncached;
    const output = entry.providerCompletionTokens ?? entry.completionTokens;
    prompt += total;
    usd += (total * (price.cacheReadPerMTok ?? price.inputPerMTok) + output * price.outputPerMTok) / 1_000_000;
  }
  if (!pagePrice) return undefined;
  const pages = Math.min(pageTokens, prompt);
  const read = pagePrice.cacheReadPerMTok ?? pagePrice.inputPerMTok;
  return usd + (pages * (pagePrice.inputPerMTok - read)) / 1_000_000;
}

/** Cache read tokens ÷ prompt tokens over the agent calls with cache figures of all episodes; null without any. */
function hitRate(episodes: readonly EpisodeOutcome[]): number | null {
  let read = 0;
  let prompt = 0;
  let calls = 0;
  for (const episode of episodes)
    for (const entry of episode.ledger) {
      if (entry.kind !== 'agent' || entry.error || !entry.cache) continue;
      const billed = billedPromptTokens(entry);
      read += billed.read;
      prompt += billed.read + billed.write + billed.uncached;
      calls += 1;
    }
  if (calls === 0) return null;
  return prompt > 0 ? read / prompt : 0;
}

/** Options of {@link summarizeStrategy}. */
export interface SummarizeOptions {
  /** The model spec the benchmark ran with, for prices of agent calls. */
  model: string;
  /** USD per million tokens by model label or spec. */
  prices: Readonly<Record<string, ModelPrice>>;
  /** The price entry agent calls are priced at instead of the model's (see `BenchOptions.priceAs`). */
  priceAs?: string;
}

const definedMean = (values: (number | undefined)[]): number | null => {
  const xs = values.filter((v): v is number => v !== undefined);
  return xs.length === 0 ? null : mean(xs);
};

/**
 * The metrics of one strategy at one N over its episodes (see the module comment for how each is
 * aggregated).
 *
 * @example
 * const row = summarizeStrategy('fifo', 4, outcomes, { model: 'offline', prices: DEFAULT_PRICES });
 */
export function summarizeStrategy(
  strategy: string,
  size: number | null,
  episodes: readonly EpisodeOutcome[],
  options: SummarizeOptions,
): StrategyResult {
  const summaries = episodes.map((e) => summarizeLedger(e.ledger));
  const costs = episodes.map((e) => ledgerCostUsd(e.ledger, options.prices, options.model, options.priceAs));
  const cacheHitRate = hitRate(episodes);
  const known = costs.every((c): c is number => c !== undefined);
  const floors = episodes.map((episode) =>
    episode.pageTokens === undefined
      ? undefined
      : ledgerFloorUsd(episode.ledger, episode.pageTokens, options.prices, options.model, options.priceAs),
  );
  const floorKnown = episodes.length > 0 && floors.every((f): f is number => f !== undefined);
  const totalFloor = floorKnown ? floors.reduce((a, b) => a + b, 0) : 0;
  const totalCost = known ? costs.reduce((a, b) => a + b, 0) : 0;
  const frameworkMs = episodes.flatMap((e) => e.ledger.filter((l) => l.kind === 'agent').map((l) => l.frameworkMs));
  return {
    strategy,
    n: size,
    runs: episodes.length,
    successRate: mean(episodes.map((e) => (e.success ? 1 : 0))),
    peakPromptTokens: mean(summaries.map((s) => s.peakPromptTokens)),
    peakPromptTokensMax: Math.max(0, ...summaries.map((s) => s.peakPromptTokens)),
    peakPromptTokensNoSystem: mean(summaries.map((s) => s.peakPromptTokensNoSystem)),
    cumulativePromptTokens: mean(summaries.map((s) => s.cumulativePromptTokens)),
    completionTokens: mean(summaries.map((s) => s.completionTokens)),
    compressorTokens: mean(summaries.map((s) => s.compressorTokens)),
    modelCalls: mean(summaries.map((s) => s.modelCalls)),
    dependency: mean(summaries.map((s) => s.dependency)),
    evidenceRecall: definedMean(episodes.map((e) => e.evidenceRecall)),
    exactMatch: definedMean(episodes.map((e) => e.exactMatch)),
    f1: definedMean(episodes.map((e) => e.f1)),
    overheadMsPerStep: median(frameworkMs),
    wallMs: episodes.reduce((sum, e) => sum + e.wallMs, 0),
    windowFailures: episodes.filter((e) => e.windowFailure).length,
    errors: episodes.filter((e) => e.error !== undefined).length,
    cacheHitRate,
    costUsd: known ? mean(costs) : null,
    totalCostUsd: known ? totalCost : null,
    floorCostUsd: floorKnown ? mean(floors) : null,
    costToFloor: floorKnown && known && totalFloor > 0 ? totalCost / totalFloor : null,
  };
}
