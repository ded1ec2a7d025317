/**
 * List prices per model, with what caching changes: the price of a prompt token read from the cache and
 * of one written to it. Costs are computed from them by `callCostUsd`; the bench's and the demo's tables
 * name {@link PRICES_CHECKED}.
 */

/** USD per million tokens. A field left out costs as the input (a cache read or write at the full price). */
export interface ModelPrice {
  /** An uncached prompt token. */
  inputPerMTok: number;
  /** A completion token. */
  outputPerMTok: number;
  /** A prompt token read from the cache (OpenAI's "cached input", Anthropic's cache read). */
  cacheReadPerMTok?: number;
  /** A prompt token written to the cache with the short time to live (Anthropic: 5 minutes, 1.25× input). */
  cacheWritePerMTok?: number;
  /** A prompt token written with the long time to live (Anthropic: 1 hour, 2× input); default the short one's. */
  cacheWrite1hPerMTok?: number;
}

/**
 * The date the built-in prices were taken from the providers' published list prices. They are list prices
 * as known on that date, to be checked against the provider's pricing page before relying on a figure.
 */
export const PRICES_CHECKED = '2025-11-30';

const anthropic = (input: number, output: number): ModelPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  cacheReadPerMTok: input * 0.1,
  cacheWritePerMTok: input * 1.25,
  cacheWrite1hPerMTok: input * 2,
});

/**
 * Known list prices (USD per million tokens) by model spec, as of {@link PRICES_CHECKED}; override with the
 * `prices` options of the bench (`--prices`). Google's are those of prompts up to 200k tokens.
 */
export const DEFAULT_PRICES: Record<string, ModelPrice> = {
  'openai:gpt-4.1': { inputPerMTok: 2, cacheReadPerMTok: 0.5, outputPerMTok: 8 },
  'openai:gpt-4.1-mini': { inputPerMTok: 0.4, cacheReadPerMTok: 0.1, outputPerMTok: 1.6 },
  'openai:gpt-4.1-nano': { inputPerMTok: 0.1, cacheReadPerMTok: 0.025, outputPerMTok: 0.4 },
  'openai:gpt-4o': { inputPerMTok: 2.5, cacheReadPerMTok: 1.25, outputPerMTok: 10 },
  'openai:gpt-4o-mini': { inputPerMTok: 0.15, cacheReadPerMTok: 0.075, outputPerMTok: 0.6 },
  'openai:gpt-5': { inputPerMTok: 1.25, cacheReadPerMTok: 0.125, outputPerMTok: 10 },
  'openai:gpt-5-mini': { inputPerMTok: 0.25, cacheReadPerMTok: 0.025, outputPerMTok: 2 },
  'openai:gpt-5-nano': { inputPerMTok: 0.05, cacheReadPerMTok: 0.005, outputPerMTok: 0.4 },
  'anthropic:claude-sonnet-4-5': anthropic(3, 15),
  'anthropic:claude-haiku-4-5': anthropic(1, 5),
  'anthropic:claude-opus-4-5': anthropic(5, 25),
  'anthropic:claude-3-5-haiku-latest': anthropic(0.8, 4),
  'google:gemini-2.5-flash': { inputPerMTok: 0.3, cacheReadPerMTok: 0.03, outputPerMTok: 2.5 },
  'google:gemini-2.5-flash-lite': { inputPerMTok: 0.1, cacheReadPerMTok: 0.01, outputPerMTok: 0.4 },
  'google:gemini-2.5-pro': { inputPerMTok: 1.25, cacheReadPerMTok: 0.125, outputPerMTok: 10 },
  offline: { inputPerMTok: 0, outputPerMTok: 0 },
};
