/**
 * `pagewise/cost`: what a call costs with prompt caching. The per-provider prompt-cache rules and the model that
 * applies them to the exact requests sent, the price table with cached-read and cache-write prices, the cost of a
 * ledger entry in dollars, and the cache hints (Anthropic breakpoints, OpenAI's `prompt_cache_key`) the runner sets.
 */
export {
  billedPromptTokens,
  callCostUsd,
  prefixRewriteCostUsd,
  type BilledPromptTokens,
  type LedgerCache,
} from './tokens/ledger.js';
export {
  PROMPT_CACHE_RULES,
  promptCacheRulesFor,
  promptCacheRulesForSpec,
  type PromptCacheRules,
} from './tokens/cache-rules.js';
export { PromptCache, type CacheSegment, type PromptCacheUsage, type PromptContinuity } from './tokens/prompt-cache.js';
export { promptSegments } from './tokens/prompt-segments.js';
export { locatePromptToken, type LocatedPart, type PromptTokenLocation } from './tokens/prompt-locate.js';
export { DEFAULT_PRICES, PRICES_CHECKED, type ModelPrice } from './tokens/prices.js';
export {
  ANTHROPIC_BREAKPOINT,
  promptCacheKey,
  withCacheHints,
  type CacheSession,
  type CacheHintOptions,
} from './models/cache-hints.js';
