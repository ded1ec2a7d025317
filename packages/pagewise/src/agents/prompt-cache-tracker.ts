/**
 * The runner's prompt-cache model: one `PromptCache` per rule set, fed every agent request as sent, keyed
 * by session and model, so each ledger entry says what the provider's cache read and wrote beside what
 * the provider reported.
 */
import type { LanguageModelV3, LanguageModelV3FunctionTool, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { promptCacheRulesFor, type PromptCacheRules } from '../tokens/cache-rules.js';
import type { LedgerCache } from '../tokens/ledger.js';
import { PromptCache, type PromptCacheUsage, type PromptContinuity } from '../tokens/prompt-cache.js';
import type { EncodingName } from '../tokens/tokenizer.js';
import type { ModelResponse } from './model-call.js';

/** Models the prompt cache of each model a runner calls. */
export class PromptCacheTracker {
  private readonly caches = new Map<string, PromptCache>();
  /** Each model's provider rules, looked up once per model object (a step asks more than once). */
  private readonly byModel = new WeakMap<LanguageModelV3, PromptCacheRules | null>();

  /** `rules`: the rules for every model, `false` for none, undefined for each model's provider's own. */
  constructor(private readonly rules: PromptCacheRules | false | undefined) {}

  /** The rules a request to `model` is modelled with; undefined when none apply. */
  rulesFor(model: LanguageModelV3): PromptCacheRules | undefined {
    if (this.rules === false) return undefined;
    if (this.rules) return this.rules;
    let rules = this.byModel.get(model);
    if (rules === undefined) {
      rules = promptCacheRulesFor(model.provider, model.modelId) ?? null;
      this.byModel.set(model, rules);
    }
    return rules ?? undefined;
  }

  /**
   * The cache figures of one request; undefined when no rules apply to the model. `continuity`: what the
   * prompt shares with its history's previous render, when it is that render's prompt unchanged.
   */
  observe(
    model: LanguageModelV3,
    key: string,
    request: { prompt: LanguageModelV3Prompt; tools: readonly LanguageModelV3FunctionTool[] },
    encoding: EncodingName,
    at: number,
    continuity?: PromptContinuity,
  ): PromptCacheUsage | undefined {
    const rules = this.rulesFor(model);
    if (!rules) return undefined;
    let cache = this.caches.get(rules.name);
    if (!cache) {
      cache = new PromptCache(rules);
      this.caches.set(rules.name, cache);
    }
    return cache.observePrompt(key, request.prompt, request.tools, at, encoding, continuity);
  }
}

/** The ledger's cache record of a call: the modelled figures and, when the provider gave them, its own. */
export function ledgerCache(
  modelled: PromptCacheUsage | undefined,
  usage: ModelResponse['usage'],
): { cache: LedgerCache } | Record<string, never> {
  if (!modelled) return {};
  const reported = {
    ...(usage.cacheRead !== undefined ? { readTokens: usage.cacheRead } : {}),
    ...(usage.cacheWrite !== undefined ? { writeTokens: usage.cacheWrite } : {}),
  };
  return { cache: { modelled, ...(Object.keys(reported).length > 0 ? { reported } : {}) } };
}

/**
 * Work a step needs only once the model has answered, run while the model works: scheduled with
 * `setImmediate` when the call starts, so it runs after the request has been handed to the provider's
 * client and while the response is awaited, and taken when the response is in. A model that answers before
 * the work has run (a scripted or local model) gets it run at {@link take}, as if it had not been deferred.
 * The prompt-cache model is such work: its figures go into the ledger entry made after the response.
 */
export class OverlappedWork<T> {
  private outcome: { value: T } | { error: unknown } | undefined;
  private readonly handle: NodeJS.Immediate;

  constructor(private readonly work: () => T) {
    this.handle = setImmediate(() => this.run());
  }

  /** Runs the work now if it has not run yet, keeping what it threw for {@link take}. */
  settle(): void {
    if (this.outcome) return;
    clearImmediate(this.handle);
    this.run();
  }

  /** The work's result, running it now if it has not run yet; rethrows what the work threw. */
  take(): T {
    this.settle();
    const outcome = this.outcome!;
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  private run(): void {
    if (this.outcome) return;
    // Caught here: an error thrown in the immediate would otherwise end the process.
    try {
      this.outcome = { value: this.work() };
    } catch (error) {
      this.outcome = { error };
    }
  }
}
