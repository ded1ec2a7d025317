/** The options, inputs and outputs of the runner: its public surface, kept apart from its loop. */
import type { ObservationProcessor } from '../context/observation.js';
import type { ContextProcessor } from '../context/request.js';
import type { CacheHintOptions } from '../models/cache-hints.js';
import type { ModelSpec, ResolveModelOptions } from '../models/resolve.js';
import type { RetryOptions } from '../models/retry.js';
import type { SessionStore } from '../session/store.js';
import type { Session, SessionEvent } from '../session/types.js';
import type { RunTelemetry } from '../telemetry/types.js';
import type { PromptCacheRules } from '../tokens/cache-rules.js';
import type { Ledger, LedgerEntry, LedgerSummary } from '../tokens/ledger.js';
import type { Agent } from './agent.js';
import type { CallLog } from './call-log.js';
import type { RunLimits } from './limits.js';

/** Options of a `Runner`. */
export interface RunnerOptions {
  /** The root agent; invocations start with it. */
  agent: Agent;
  /** The app name sessions are stored under. Default `pagewise`. */
  appName?: string;
  /** Session storage. Default: in memory. */
  store?: SessionStore;
  /** The model of agents that name none. */
  model?: ModelSpec;
  /** How model spec strings are resolved (environment, offline policies). */
  modelOptions?: ResolveModelOptions;
  /** Context processors of agents that configure none. Default: none (the full history). */
  processors?: ContextProcessor[];
  /** Observation processors of agents that configure none. */
  observationProcessors?: ObservationProcessor[];
  /** Services tools and processors look up by key (page store, sources, ...). */
  services?: Map<string, unknown> | Record<string, unknown>;
  limits?: Partial<RunLimits>;
  /** Context window in tokens; 0 turns the check off. Default: the model's known window. */
  contextWindow?: number;
  retry?: RetryOptions;
  /** A ledger that receives every call of every run, besides the per-run ledger. */
  ledger?: Ledger;
  /** Receives every agent model call as sent (request, ledger entry, response), e.g. for `pagewise inspect`. */
  callLog?: CallLog;
  /** Receives spans of invocations, model calls, tool calls and processors (see `pagewiseTelemetry`). */
  telemetry?: RunTelemetry;
  /**
   * Hand the model one prompt array for all the steps on a session, changed in place from step to step,
   * instead of a new array at each step. That copy (one pointer per message) is the one cost of a step
   * that grows with the history; with long histories it and the garbage collection it drives make a step
   * slower than with short ones (docs/performance.md has the profile). Set `true` only when nothing keeps the
   * `prompt` it was handed after the model call returns: the AI SDK's providers turn it into their
   * request body and keep nothing, but a model that records its calls (as `MockLanguageModelV3` in
   * `ai/test` does), or middleware that stores the prompt, would see an earlier prompt change
   * (telemetry's `modelContent` is handed a copy of a reused prompt). A step whose processors changed the history still gets a new array. Default `'auto'`: reused
   * for models the runner made from a `provider:model` spec and for AI SDK provider objects passed in as
   * their factory made them (`openai('gpt-4.1')`, `anthropic(…)`, `google(…)`, `createOpenAICompatible(…)(…)`:
   * same class, nothing replaced on the object); a new array for any other model object (wrapped, subclassed,
   * patched, or your own) and for the offline model. docs/runtime.md has the table.
   */
  reusePrompt?: boolean | 'auto';
  /**
   * The prompt-cache rules each agent call's ledger entry is modelled with (`entry.cache`): by default the
   * rules of the model's provider (`openai`, `anthropic`, `google`; none for other providers and the offline
   * model), a rule set such as `promptCacheRulesFor('openai', 'gpt-4.1')` for every model (to price an
   * offline run as a provider would bill it), or `false` for none.
   */
  promptCache?: PromptCacheRules | false;
  /**
   * Prompt-cache hints for the providers that take them: `cache_control` breakpoints for Anthropic models
   * (at the end of the system message and at the end of the history), a `prompt_cache_key` per session for
   * OpenAI models. Both on by default; `{ breakpoints: false }` or `{ cacheKey: false }` turns one off.
   * Google caches implicitly and needs nothing.
   */
  cacheHints?: CacheHintOptions;
}

/** Input of one invocation. */
export interface RunInput {
  userId: string;
  /** An existing session to continue, or the id for a new one. A random id when omitted. */
  sessionId?: string;
  /** The user message. */
  message: string;
  signal?: AbortSignal;
  /** Start with this agent of the tree instead of the root. */
  agentName?: string;
}

/** Input of `Runner.resume`. */
export interface ResumeInput {
  userId: string;
  sessionId: string;
  signal?: AbortSignal;
}

/** Why an invocation ended. */
export type StopReason = 'final' | 'escalate';

/** The outcome of `Runner.run`. */
export interface RunResult {
  text: string;
  stopReason: StopReason;
  invocationId: string;
  /** The agent that produced the final answer. */
  agentName: string;
  session: Session;
  ledger: { entries: readonly LedgerEntry[]; summary: LedgerSummary };
}

/** A part of `Runner.stream`'s output. */
export type RunStreamPart =
  | { type: 'event'; event: SessionEvent }
  | { type: 'text-delta'; agentName: string; delta: string }
  | { type: 'finish'; result: RunResult };
