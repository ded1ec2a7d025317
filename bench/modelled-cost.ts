/**
 * What the cache-pricing benches share: the dollars of one captured request from what the core prompt-cache model
 * says of it, and their whole-number command-line options.
 */
import type { LedgerEntry } from 'pagewise';
import { callCostUsd, type ModelPrice, type PromptCacheUsage } from 'pagewise/cost';

/** The dollars of call `index` as the cache model priced it: its prompt as `usage` says, `outputTokens` of output. */
export function modelledCallUsd(usage: PromptCacheUsage, outputTokens: number, index: number, price: ModelPrice) {
  const entry: LedgerEntry = {
    index,
    kind: 'agent',
    agent: 'bench',
    model: usage.rules,
    invocationId: 'bench',
    parts: { instruction: 0, paged: 0, history: 0, observation: 0, tools: 0 },
    promptTokens: usage.promptTokens,
    completionTokens: outputTokens,
    cache: { modelled: usage },
    modelMs: 0,
    frameworkMs: 0,
    at: 0,
  };
  return callCostUsd(entry, price);
}

/** The whole number ≥ 1 after `name` in `argv`, or `fallback` when `name` is absent. */
export function wholeNumberOption(argv: readonly string[], name: string, fallback: number): number {
  const at = argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${name} takes a whole number ≥ 1, got "${argv[at + 1]}".`);
  return value;
}
