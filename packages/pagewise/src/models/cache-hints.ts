/**
 * Prompt-cache hints for the providers that take them, added to a rendered prompt just before the call:
 * Anthropic caches only up to the `cache_control` breakpoints a request sets, OpenAI routes the calls that
 * share a `prompt_cache_key` to the same cache. Google caches implicitly and takes nothing. The prompt
 * itself is laid out so its prefix stays the same from call to call (see `renderPrompt`); these hints only
 * tell the provider where that prefix ends and which calls belong together.
 */
import { createHash } from 'node:crypto';
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import { isStepBlock } from './step-block.js';

/** Which prompt-cache hints the runner sends. Both default to on. */
export interface CacheHintOptions {
  /**
   * Anthropic models: set `cache_control` breakpoints (ephemeral, 5 minutes) at the end of the stable prefix
   * (the system message, or the last tool when there is none) and at the end of the history, before the
   * step block. Two of the four breakpoints Anthropic allows. Default true.
   */
  breakpoints?: boolean;
  /**
   * OpenAI models (chat and Responses API): send a `prompt_cache_key` derived from the session, the same
   * for every call of a session and different between sessions, so a session's calls reach the same cache.
   * The key is a hash: no user or session id leaves the process. Default true.
   */
  cacheKey?: boolean;
}

/** The provider options of one Anthropic breakpoint. */
export const ANTHROPIC_BREAKPOINT = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/** The session a call belongs to, for the OpenAI cache key. */
export interface CacheSession {
  appName: string;
  userId: string;
  sessionId: string;
}

// The keys of the sessions seen lately: a runner asks for its session's key at every call.
const recentKeys = new Map<string, string>();
const RECENT_KEYS = 1000;

/** The `prompt_cache_key` of a session: a hash of its key, stable across processes. */
export function promptCacheKey(session: CacheSession): string {
  const id = `${session.appName}\u0000${session.userId}\u0000${session.sessionId}`;
  let key = recentKeys.get(id);
  if (key === undefined) {
    key = `pagewise-${createHash('sha256').update(id).digest('hex').slice(0, 40)}`;
    if (recentKeys.size >= RECENT_KEYS) recentKeys.delete(recentKeys.keys().next().value!);
    recentKeys.set(id, key);
  }
  return key;
}

/** The provider family of a model, from its `provider` string (`anthropic.messages`, `openai.responses`, ...). */
function family(provider: string): string {
  return provider.split('.')[0] ?? provider;
}

/**
 * Adds the hints `options` allow for a model of `provider` to a call's prompt, tools and provider options.
 * Never changes what it is given: a prompt or tool list that gets a breakpoint is a new array with new
 * objects where marked (the rendered messages are shared between calls), everything else is returned as is.
 */
export function withCacheHints(
  provider: string,
  call: { prompt: LanguageModelV3Prompt; tools: LanguageModelV3FunctionTool[] },
  session: CacheSession,
  options: CacheHintOptions = {},
): Pick<LanguageModelV3CallOptions, 'prompt' | 'tools' | 'providerOptions'> & {
  tools: LanguageModelV3FunctionTool[];
} {
  const kind = family(provider);
  if (kind === 'openai' && options.cacheKey !== false)
    return { ...call, providerOptions: { openai: { promptCacheKey: promptCacheKey(session) } } };
  if (kind === 'anthropic' && options.breakpoints !== false) return anthropicBreakpoints(call);
  return call;
}

/**
 * The prompt and tools a model of `provider` is sent with the hints `options` allow, without the provider
 * options (the OpenAI cache key): what a provider's cache sees of the call.
 */
export function hintedRequest(
  provider: string,
  call: { prompt: LanguageModelV3Prompt; tools: LanguageModelV3FunctionTool[] },
  options: CacheHintOptions = {},
): { prompt: LanguageModelV3Prompt; tools: LanguageModelV3FunctionTool[] } {
  return family(provider) === 'anthropic' && options.breakpoints !== false ? anthropicBreakpoints(call) : call;
}

function anthropicBreakpoints(call: { prompt: LanguageModelV3Prompt; tools: LanguageModelV3FunctionTool[] }): {
  prompt: LanguageModelV3Prompt;
  tools: LanguageModelV3FunctionTool[];
} {
  const prompt = call.prompt.slice();
  let tools = call.tools;
  // The end of the stable prefix: Anthropic reads tools, then system, then messages.
  const systemAt = prompt.findIndex((message) => message.role === 'system');
  if (systemAt >= 0) prompt[systemAt] = marked(prompt[systemAt]!);
  else if (tools.length > 0) {
    tools = tools.slice();
    const last = tools[tools.length - 1]!;
    tools[tools.length - 1] = { ...last, providerOptions: merge(last.providerOptions) };
  }
  // The end of the history: the last message that is neither the system message nor the step block.
  for (let index = prompt.length - 1; index >= 0; index--) {
    const message = prompt[index]!;
    if (message.role === 'system') break;
    if (isStepBlock(message)) continue;
    prompt[index] = marked(message);
    break;
  }
  return { prompt, tools };
}

function marked<M extends LanguageModelV3Message>(message: M): M {
  return { ...message, providerOptions: merge(message.providerOptions) };
}

function merge(own: SharedV3ProviderOptions | undefined): SharedV3ProviderOptions {
  return { ...own, anthropic: { ...own?.anthropic, ...ANTHROPIC_BREAKPOINT.anthropic } };
}
