/**
 * Each provider's published prompt-cache rules, as data: which prefix of a request is read from the cache,
 * which is written to it, and for how long an entry lives. The prompt-cache model applies them; the prices
 * of cached and written tokens are in the price table. The figures are as the providers published them on
 * the date in each row's `checked`: re-check them before relying on a cost.
 */

/** How a provider decides what to cache. */
export type CacheMechanism =
  /**
   * The longest prefix seen before, counted in whole blocks of `blockTokens`, from `minTokens` on; nothing
   * is billed for the write (OpenAI, Google implicit caching).
   */
  | 'automatic-prefix'
  /**
   * Only prefixes that end at a `cache_control` breakpoint the caller set (at most `maxBreakpoints`), from
   * `minTokens` on; a write is billed at the write price of its time to live (Anthropic).
   */
  | 'breakpoints';

/** The cache rules of one provider's models. */
export interface PromptCacheRules {
  /** The rule set's name in ledgers and reports (`openai`, `anthropic-sonnet`, ...). */
  name: string;
  /** The provider family the rules belong to. */
  provider: 'openai' | 'anthropic' | 'google';
  mechanism: CacheMechanism;
  /** The shortest prefix that is cached, in tokens. */
  minTokens: number;
  /** Cached lengths are whole multiples of this many tokens (automatic prefix caching); 1 for any length. */
  blockTokens: number;
  /** Breakpoints a request may carry (breakpoint caching). */
  maxBreakpoints: number;
  /**
   * How many content blocks before a breakpoint are also checked for a hit (Anthropic: about 20), so a
   * breakpoint that moved forward still reads the prefix written at the previous one.
   */
  lookbackBlocks: number;
  /** An entry not used for this long is gone (ms); breakpoints may ask for {@link longTtlMs} instead. */
  ttlMs: number;
  /** The longer time to live a breakpoint can ask for (Anthropic's `ttl: '1h'`), in ms. */
  longTtlMs?: number;
  /** The date (YYYY-MM-DD) the rule was checked against the provider's documentation. */
  checked: string;
  /** Where the rule is published, and what in it is this model's own choice. */
  source: string;
}

const MINUTE = 60_000;

const OPENAI: PromptCacheRules = {
  name: 'openai',
  provider: 'openai',
  mechanism: 'automatic-prefix',
  minTokens: 1024,
  blockTokens: 128,
  maxBreakpoints: 0,
  lookbackBlocks: 0,
  // OpenAI: "cleared after 5-10 minutes of inactivity, up to an hour off-peak"; the low end is modelled.
  ttlMs: 5 * MINUTE,
  checked: '2025-11-30',
  source:
    'OpenAI prompt caching guide: prompts of 1,024 tokens or more, cached prefix in 128-token increments; the 5-minute lifetime is the low end of the published 5-10 minutes',
};

function anthropic(name: string, minTokens: number): PromptCacheRules {
  return {
    name,
    provider: 'anthropic',
    mechanism: 'breakpoints',
    minTokens,
    blockTokens: 1,
    maxBreakpoints: 4,
    lookbackBlocks: 20,
    ttlMs: 5 * MINUTE,
    longTtlMs: 60 * MINUTE,
    checked: '2025-11-30',
    source:
      'Anthropic prompt caching guide: up to 4 cache_control breakpoints, minimum cacheable length per model, lookback of about 20 blocks, 5-minute TTL refreshed on use or 1 hour',
  };
}

function google(name: string, minTokens: number): PromptCacheRules {
  return {
    name,
    provider: 'google',
    mechanism: 'automatic-prefix',
    minTokens,
    // Google publishes no granularity for implicit hits; counting in OpenAI's 128-token blocks is this
    // model's choice, as is the 5-minute lifetime ("send requests with a similar prefix in a short time").
    blockTokens: 128,
    maxBreakpoints: 0,
    lookbackBlocks: 0,
    ttlMs: 5 * MINUTE,
    checked: '2026-05-07',
    source:
      'Gemini API context caching guide: implicit caching on by default for Gemini 2.5 and newer, minimum 1,024 tokens (2.5 Flash) and 4,096 (2.5 Pro); block size and lifetime are not published',
  };
}

/**
 * The rules by model, first match wins: each row is a pattern over the model id (without provider) and the
 * rules for the models it matches. Read with {@link promptCacheRulesFor}.
 */
export const PROMPT_CACHE_RULES: readonly {
  provider: PromptCacheRules['provider'];
  model: RegExp;
  rules: PromptCacheRules;
}[] = [
  { provider: 'openai', model: /./, rules: OPENAI },
  { provider: 'anthropic', model: /opus-4-[5-9]|haiku-4/, rules: anthropic('anthropic-4096', 4096) },
  { provider: 'anthropic', model: /haiku/, rules: anthropic('anthropic-2048', 2048) },
  { provider: 'anthropic', model: /./, rules: anthropic('anthropic-1024', 1024) },
  { provider: 'google', model: /pro/, rules: google('google-pro', 4096) },
  { provider: 'google', model: /./, rules: google('google-flash', 1024) },
];

/**
 * The cache rules of a model, from its spec (`openai:gpt-4.1`, `anthropic:claude-sonnet-4-5`) or from an AI
 * SDK model's `provider` (`openai.responses`, `anthropic.messages`, `google.generative-ai`) and `modelId`.
 * Undefined for a provider with no published rule here (an OpenAI-compatible server, the offline model):
 * pass the rules to use explicitly.
 *
 * @example
 * promptCacheRulesFor('anthropic', 'claude-haiku-4-5')?.minTokens; // 4096
 */
export function promptCacheRulesFor(provider: string, modelId: string): PromptCacheRules | undefined {
  const family = providerFamily(provider);
  if (!family) return undefined;
  const id = modelId.toLowerCase();
  return PROMPT_CACHE_RULES.find((row) => row.provider === family && row.model.test(id))?.rules;
}

/** The rules of a model spec `provider:model`; undefined as in {@link promptCacheRulesFor}. */
export function promptCacheRulesForSpec(spec: string): PromptCacheRules | undefined {
  const colon = spec.indexOf(':');
  return colon < 0 ? undefined : promptCacheRulesFor(spec.slice(0, colon), spec.slice(colon + 1));
}

function providerFamily(provider: string): PromptCacheRules['provider'] | undefined {
  const name = provider.toLowerCase().split('.')[0];
  if (name === 'openai' || name === 'azure') return 'openai';
  if (name === 'anthropic') return 'anthropic';
  if (name === 'google' || name === 'vertex') return 'google';
  return undefined;
}
