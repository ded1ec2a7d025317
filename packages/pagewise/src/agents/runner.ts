/**
 * The runner owns the agent loop: build the request through the context pipeline, measure it, call
 * the model, append its response, run its tool calls concurrently, append their results in call order
 * with their state deltas, and stop on a final answer, an escalation, or a limit. Every event is
 * persisted as it happens, so a crash loses at most the step in flight.
 *
 * The parts of a step live beside it: the request (build-request.ts), the model call and the reading of
 * its response (model-call.ts), tool execution (tool-execution.ts), storing the step (step-commit.ts)
 * and finding where an interrupted invocation stopped (resume.ts).
 */
import { randomUUID } from 'node:crypto';
import type { LanguageModelV3, LanguageModelV3FunctionTool, LanguageModelV3Prompt } from '@ai-sdk/provider';
import {
  AbortedError,
  ConfigurationError,
  ContextWindowExceededError,
  LimitExceededError,
  ModelBehaviorError,
  NotFoundError,
  PagewiseError,
  SystemError,
  redactSecrets,
} from '../errors.js';
import { eventsToItems, withTokenCounts } from '../context/history.js';
import { RequestHistory } from '../context/request-history.js';
import { InMemorySessionStore } from '../session/memory-store.js';
import { hintedRequest, withCacheHints } from '../models/cache-hints.js';
import { clearTemp } from '../session/state.js';
import type { SessionStore } from '../session/store.js';
import type { RunErrorEvent, Session, SessionEvent } from '../session/types.js';
import { summarizeLedger, type LedgerEntry } from '../tokens/ledger.js';
import type { InvocationTelemetry } from '../telemetry/types.js';
import { countTokens, encodingForModel, type EncodingName } from '../tokens/tokenizer.js';
import type { PromptCacheUsage } from '../tokens/prompt-cache.js';
import type { Agent } from './agent.js';
import { buildRequest } from './build-request.js';
import { AgentResources, assertUniqueNames } from './agent-resources.js';
import { DEFAULT_LIMITS, type RunLimits } from './limits.js';
import { callModel, parseResponse, type ModelResponse } from './model-call.js';
import { findInterrupted, type Interrupted } from './resume.js';
import type { ResumeInput, RunInput, RunnerOptions, RunResult, RunStreamPart, StopReason } from './run-types.js';
import { RunLedger } from './run-ledger.js';
import { OverlappedWork, PromptCacheTracker, ledgerCache } from './prompt-cache-tracker.js';
import { appendWithRetry, createSession, escalationOf } from './step-commit.js';
import type { CallOutcome, StepScope } from './tool-execution.js';
import { finishPendingCalls, runToolStep, transferTarget } from './tool-step.js';

export { DEFAULT_LIMITS, type RunLimits } from './limits.js';
export type { ResumeInput, RunInput, RunnerOptions, RunResult, RunStreamPart, StopReason } from './run-types.js';
export { MAX_ARGUMENT_DEPTH } from './model-call.js';
export { findInterrupted } from './resume.js';
export { SideEffectConflictError } from './step-commit.js';

/** What one invocation's steps share. */
interface Invocation {
  input: RunInput;
  streaming: boolean;
  signal: AbortSignal;
  invocationId: string;
  session: Session;
  ledger: RunLedger;
  /** Epoch ms at which `limits.maxWallTimeMs` runs out. */
  deadline: number;
  /** Empty model responses in a row. */
  emptyResponses: number;
  telemetry: InvocationTelemetry | undefined;
  /** The session's history as items, messages and token sums, kept up to date step by step. */
  history: RequestHistory;
  /** Appends events that depend on no state: after a conflict they are appended again, unchanged. */
  append(...events: SessionEvent[]): Promise<SessionEvent[]>;
  /** The id, invocation and time of a new event. */
  base(): { id: string; invocationId: string; timestamp: number };
  /** Compressor failures of the ledger not yet recorded in the session. */
  compressionErrors: LedgerEntry[];
}

/** Characters of an error message kept in a recorded error event. */
const ERROR_MESSAGE_CHARS = 4_000;

/** The error event of a failure (see {@link RunErrorEvent}), its message redacted of secrets. */
function errorEvent(
  base: { id: string; invocationId: string; timestamp: number },
  scope: RunErrorEvent['scope'],
  error: { code?: unknown; message?: unknown; fault?: unknown },
  author: string,
): RunErrorEvent {
  const message = typeof error.message === 'string' ? error.message : String(error);
  return {
    ...base,
    kind: 'error',
    author,
    scope,
    code: typeof error.code === 'string' ? error.code : 'unknown',
    message: redactSecrets(message).slice(0, ERROR_MESSAGE_CHARS),
    ...(typeof error.fault === 'string' ? { fault: error.fault } : {}),
  };
}

/**
 * How many sessions' request histories a runner keeps between invocations: a session's next invocation
 * starts from its kept history (when its events are the same objects, as the memory store gives them)
 * instead of converting, rendering and counting it again.
 */
const KEPT_HISTORIES = 64;

/** How a step ended: the invocation's result, or the agent of the next step. */
type StepEnd = { result: RunResult } | { agent: Agent };

const historyKey = (s: Session): string => JSON.stringify([s.appName, s.userId, s.sessionId]);

function* emit(events: readonly SessionEvent[]): Generator<RunStreamPart> {
  for (const event of events) yield { type: 'event', event };
}

/** A request as the provider is sent it: its prompt and its tools. */
type PromptRequest = { prompt: LanguageModelV3Prompt; tools: LanguageModelV3FunctionTool[] };

/** Runs agents over sessions. */
export class Runner {
  readonly agent: Agent;
  readonly appName: string;
  readonly store: SessionStore;
  readonly limits: RunLimits;
  private readonly options: RunnerOptions;
  private readonly services: ReadonlyMap<string, unknown>;
  private readonly resources: AgentResources;
  /** Histories of the latest sessions, least recently used first; an invocation takes its own out. */
  private readonly histories = new Map<string, RequestHistory>();
  private readonly promptCache: PromptCacheTracker;

  constructor(options: RunnerOptions) {
    const reuse: unknown = options.reusePrompt;
    if (reuse !== undefined && reuse !== true && reuse !== false && reuse !== 'auto')
      throw new ConfigurationError(
        'invalid-option',
        `Runner option reusePrompt must be true, false or "auto", got ${JSON.stringify(reuse)}.`,
      );
    this.options = options;
    this.agent = options.agent;
    this.appName = options.appName ?? 'pagewise';
    this.store = options.store ?? new InMemorySessionStore();
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.resources = new AgentResources(options);
    this.promptCache = new PromptCacheTracker(options.promptCache);
    this.services =
      options.services instanceof Map ? options.services : new Map(Object.entries(options.services ?? {}));
    assertUniqueNames(this.agent);
  }

  /** Runs one invocation to its end and returns the final result. */
  async run(input: RunInput): Promise<RunResult> {
    let result: RunResult | undefined;
    for await (const part of this.loop(input, false)) if (part.type === 'finish') result = part.result;
    return result!;
  }

  /** Runs one invocation, yielding events as they are appended and text deltas as the model streams. */
  stream(input: RunInput): AsyncIterable<RunStreamPart> {
    return this.loop(input, true);
  }

  /**
   * Continues an invocation that was interrupted (a crash, an abort, an error) from what the store holds:
   * tool calls of the last model response that have no result yet are executed (tools with
   * `sideEffects: true` get the same `idempotencyKey` as in the first attempt; calls whose results were
   * recorded are never repeated), then the loop goes on. Throws NotFoundError when the session has no
   * unfinished invocation.
   */
  async resume(input: ResumeInput): Promise<RunResult> {
    const session = await this.store.getSession({
      appName: this.appName,
      userId: input.userId,
      sessionId: input.sessionId,
    });
    if (!session) throw new NotFoundError('Session', input.sessionId, 'Start it with run().');
    const interrupted = findInterrupted(session);
    if (!interrupted)
      throw new NotFoundError(
        'Unfinished invocation in session',
        input.sessionId,
        'Its last invocation ended; start a new one with run().',
      );
    let result: RunResult | undefined;
    const runInput: RunInput = { ...input, message: interrupted.task };
    for await (const part of this.loop(runInput, false, { session, interrupted }))
      if (part.type === 'finish') result = part.result;
    return result!;
  }

  private async *loop(
    input: RunInput,
    streaming: boolean,
    resume?: { session: Session; interrupted: Interrupted },
  ): AsyncGenerator<RunStreamPart> {
    const started = Date.now();
    const invocationId = resume?.interrupted.invocationId ?? randomUUID();
    const ledger = new RunLedger(this.options.ledger, this.options.callLog);
    const key = { appName: this.appName, userId: input.userId, sessionId: input.sessionId ?? randomUUID() };
    const session = resume?.session ?? (await this.store.getSession(key)) ?? (await createSession(this.store, key));
    const first = resume
      ? (this.agent.find(resume.interrupted.agentName) ?? this.agent)
      : input.agentName
        ? this.agent.find(input.agentName)
        : this.agent;
    if (!first)
      throw new SystemError(
        'unknown-agent',
        `No agent named "${input.agentName}" in the tree of "${this.agent.name}".`,
      );
    let agent: Agent = first;
    const telemetry = this.options.telemetry?.startInvocation({
      ...key,
      agentName: agent.name,
      invocationId,
      ledger: ledger.ledger,
    });
    let failure: unknown;
    const inv: Invocation = {
      input,
      streaming,
      signal: input.signal ?? new AbortController().signal,
      invocationId,
      session,
      ledger,
      deadline: started + this.limits.maxWallTimeMs,
      emptyResponses: 0,
      telemetry,
      history: this.takeHistory(session),
      append: (...events) => appendWithRetry(this.store, session, this.limits.maxConflictRetries, () => events),
      base: () => ({ id: randomUUID(), invocationId, timestamp: Date.now() }),
      compressionErrors: [],
    };
    const stopWatching = ledger.ledger.subscribe((e) => void (e.error && inv.compressionErrors.push(e)));
    try {
      if (!resume) {
        const encoding = encodingForModel(this.resources.modelOf(agent).model.modelId);
        const user: SessionEvent = { ...inv.base(), kind: 'user', author: 'user', text: input.message };
        yield* emit(await inv.append(...withTokenCounts([user], encoding)));
      } else if (resume.interrupted.pending.length > 0) {
        // The interrupted step's model response is in the store: finish its calls, never repeating recorded ones.
        const end: StepEnd = yield* this.finishInterrupted(inv, agent, resume.interrupted);
        if ('result' in end) {
          yield { type: 'finish', result: end.result };
          return;
        }
        agent = end.agent;
      }
      for (let step = 0; ; step++) {
        // With a synchronous store and an in-process model every await of a step resolves at once, so without a
        // turn of the event loop here no signal handler (Ctrl-C) or timer could run before the invocation ends.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (inv.signal.aborted) throw new AbortedError();
        if (step >= this.limits.maxSteps) {
          throw new LimitExceededError(
            'maxSteps',
            this.limits.maxSteps,
            'limits.maxSteps',
            `agent "${agent.name}" made ${step} model calls without a final answer`,
          );
        }
        if (Date.now() - started > this.limits.maxWallTimeMs) {
          throw new LimitExceededError('maxWallTimeMs', this.limits.maxWallTimeMs, 'limits.maxWallTimeMs');
        }
        const end: StepEnd = yield* this.step(inv, agent);
        yield* emit(await this.recordCompressionErrors(inv));
        if ('result' in end) {
          yield { type: 'finish', result: end.result };
          return;
        }
        agent = end.agent;
      }
    } catch (error) {
      failure = error;
      await this.recordFailure(inv, agent, error);
      throw error;
    } finally {
      stopWatching();
      // The invocation is over: its temp: state (the working set among it) is paged out.
      clearTemp(session.state);
      ledger.close();
      telemetry?.end(failure);
      this.keepHistory(session, inv.history);
    }
  }

  /** Appends an error event for each compressor failure since the last step (the run went on without it). */
  private async recordCompressionErrors(inv: Invocation): Promise<SessionEvent[]> {
    if (inv.compressionErrors.length === 0) return [];
    const events = inv.compressionErrors.map((failure) =>
      errorEvent({ ...inv.base(), timestamp: failure.at }, 'compression', failure.error!, failure.agent),
    );
    inv.compressionErrors = [];
    return inv.append(...events);
  }

  /**
   * Records why the invocation ended on an error, after any compressor failures not yet recorded, so the
   * session shows the failure. Best effort: when the store itself failed, the error is only thrown.
   */
  private async recordFailure(inv: Invocation, agent: Agent, error: unknown): Promise<void> {
    try {
      await this.recordCompressionErrors(inv);
      const known = PagewiseError.isInstance(error) ? error : undefined;
      const described = known ?? (error instanceof Error ? { message: error.message } : { message: String(error) });
      await inv.append(errorEvent(inv.base(), 'run', described, agent.name));
    } catch {
      // The store failed too: the caller still gets the original error.
    }
  }

  /** The kept history of `session`, taken out so no concurrent invocation of it shares the object. */
  private takeHistory(session: Session): RequestHistory {
    const key = historyKey(session);
    const kept = this.histories.get(key);
    this.histories.delete(key);
    return kept ?? new RequestHistory();
  }

  private keepHistory(session: Session, history: RequestHistory): void {
    this.histories.set(historyKey(session), history);
    if (this.histories.size > KEPT_HISTORIES) this.histories.delete(this.histories.keys().next().value!);
  }

  /**
   * The prompt cache's figures for this step's request, modelled on the request as sent, hints included
   * (Anthropic caches only up to its breakpoints).
   */
  private modelPromptCache(
    inv: Invocation,
    model: LanguageModelV3,
    label: string,
    rendered: PromptRequest,
    sent: PromptRequest,
    encoding: EncodingName,
  ): OverlappedWork<PromptCacheUsage | undefined> {
    const sentAt = Date.now();
    const cacheKey = `${historyKey(inv.session)}\u0000${label}`;
    // Modelled on the request as sent, hints included (Anthropic caches only up to its breakpoints). A run
    // priced as another provider bills it (the offline model priced as Anthropic) is modelled on the request
    // that provider's model would have been sent, with that provider's hints.
    const rules = this.promptCache.rulesFor(model);
    const asBilled =
      rules && rules.provider !== model.provider.split('.')[0]
        ? hintedRequest(rules.provider, rendered, this.options.cacheHints)
        : sent;
    // The history vouches for the messages its render kept; hints that copy messages void that.
    const continuity = asBilled.prompt === rendered.prompt ? inv.history.continuity : undefined;
    // Modelled while the model works: nothing reads the figures before the response, and the request (the
    // kept history's prompt included) does not change until the step has taken them.
    return new OverlappedWork(() => this.promptCache.observe(model, cacheKey, asBilled, encoding, sentAt, continuity));
  }

  /** One step: build and measure the request, call the model, then store its answer or run its tool calls. */
  private async *step(inv: Invocation, agent: Agent): AsyncGenerator<RunStreamPart, StepEnd> {
    const stepStart = performance.now();
    const { session, invocationId, ledger } = inv;
    const { model, label, window, keepsNoPrompt } = this.resources.modelOf(agent);
    const { tools, defs } = this.resources.toolsOf(agent);
    let compactions = 0;
    const request = await buildRequest({
      agent,
      session,
      invocationId,
      task: inv.input.message,
      tools: defs,
      processors: agent.processors ?? this.options.processors ?? [],
      services: this.services,
      store: this.store,
      signal: inv.signal,
      ledger: ledger.ledger,
      telemetry: inv.telemetry,
      history: inv.history,
      onCompaction: () => {
        compactions += 1;
      },
    });
    const encoding = encodingForModel(model.modelId);
    const measured = inv.history.measure(request, encoding);
    if (window > 0 && measured.total > window) throw new ContextWindowExceededError(measured.total, window, label);
    const option = this.options.reusePrompt ?? 'auto';
    const reuse = option === 'auto' ? await keepsNoPrompt : option;
    const rendered = inv.history.render(request, reuse);
    // A hint is added to copies: the rendered messages (and a reused prompt array) are the kept history's.
    const {
      prompt,
      tools: toolList,
      providerOptions,
    } = withCacheHints(model.provider, rendered, session, this.options.cacheHints);
    const pendingCache = this.modelPromptCache(inv, model, label, rendered, { prompt, tools: toolList }, encoding);
    let response: ModelResponse;
    try {
      response = yield* callModel(
        model,
        {
          prompt,
          tools: toolList.length ? toolList : undefined,
          toolChoice: toolList.length ? { type: 'auto' } : undefined,
          ...(providerOptions ? { providerOptions } : {}),
        },
        {
          streaming: inv.streaming,
          signal: inv.signal,
          agentName: agent.name,
          ...(this.options.retry ? { retry: this.options.retry } : {}),
        },
      );
    } finally {
      // Settled whatever the call's outcome, before anything changes the kept history's prompt.
      pendingCache.settle();
    }
    const modelledCache = pendingCache.take();
    const { text, toolCalls, invalidArgs, dropped } = parseResponse(response.content, this.limits);
    const completionTokens = countTokens(text + toolCalls.map((c) => JSON.stringify(c.input)).join(''));
    const { input: providerPrompt, output: providerCompletion } = response.usage;
    const provider = {
      ...(providerPrompt !== undefined ? { providerPromptTokens: providerPrompt } : {}),
      ...(providerCompletion !== undefined ? { providerCompletionTokens: providerCompletion } : {}),
    };
    if (inv.telemetry?.modelContent) {
      // A reused prompt changes at the next step; telemetry may keep what it is given, so it gets it as sent.
      const sent = prompt === rendered.prompt && reuse ? prompt.slice() : prompt;
      inv.telemetry.modelContent({ prompt: sent, text, toolCalls, finishReason: response.finishReason });
    }
    const entry = ledger.record({
      kind: 'agent',
      agent: agent.name,
      model: label,
      invocationId,
      parts: measured.parts,
      promptTokens: measured.total,
      completionTokens,
      ...provider,
      ...ledgerCache(modelledCache, response.usage),
      ...(compactions > 0 ? { compactions } : {}),
      modelMs: response.ms,
      frameworkMs: 0,
      at: Date.now(),
    });
    // The model event is appended with the step's results (or alone, for a final answer), so no
    // concurrent writer's events can come between a tool call and its result.
    const modelEvent: SessionEvent = {
      ...inv.base(),
      kind: 'model',
      author: agent.name,
      text,
      toolCalls,
      usage: { promptTokens: measured.total, completionTokens, ...provider },
      ...(response.finishReason ? { finishReason: response.finishReason } : {}),
    };
    // Counted without keeping token ids: the cache model encodes what a step appends while the next call's
    // model works, so ids kept here would only move that work into the step (docs/performance.md).
    withTokenCounts([modelEvent], encoding);
    const answer = { text, toolCalls, finishReason: response.finishReason };
    await ledger.logCall(session, { invocationId, entry, request, eventId: modelEvent.id }, answer);
    const finish = (toolMs: number) => ledger.finishStep(entry.index, stepStart, response.ms, toolMs);

    if (toolCalls.length === 0 && dropped.count === 0) {
      if (text.trim()) {
        yield* emit(await inv.append(modelEvent));
        finish(0);
        return { result: this.result(inv, text, 'final', agent.name) };
      }
      inv.emptyResponses += 1;
      if (inv.emptyResponses >= 3) {
        throw new ModelBehaviorError(
          'empty-response',
          `The model "${label}" returned an empty response ${inv.emptyResponses} times in a row. Check the model and its instruction.`,
        );
      }
      const nudge: SessionEvent = {
        ...inv.base(),
        kind: 'user',
        author: 'pagewise',
        text: '[pagewise] Your last response was empty. Answer with text, or call one of the tools.',
      };
      yield* emit(await inv.append(modelEvent, ...withTokenCounts([nudge], encoding)));
      finish(0);
      return { agent };
    }
    inv.emptyResponses = 0;

    // A step that calls a tool with side effects records the model's response before running it, so an
    // interrupted run can resume without asking the model again and without repeating recorded calls.
    const writeAhead = toolCalls.some((c) => tools.get(c.toolName)?.sideEffects === true);
    if (writeAhead) yield* emit(await inv.append(modelEvent));
    const toolStart = performance.now();
    const { events, outcomes } = await runToolStep(
      this.stepScope(inv, agent, modelEvent.id, invalidArgs, request.items),
      {
        store: this.store,
        root: this.agent,
        base: inv.base,
        modelEvent: writeAhead ? undefined : modelEvent,
        response: { text, toolCalls, dropped },
        encoding,
      },
    );
    yield* emit(events);
    finish(performance.now() - toolStart);
    return this.endOfToolStep(inv, agent, outcomes, text);
  }

  /** Runs the calls an interrupted step left without results, and stores them as that step's end. */
  private async *finishInterrupted(
    inv: Invocation,
    agent: Agent,
    interrupted: Interrupted,
  ): AsyncGenerator<RunStreamPart, StepEnd> {
    const scope = this.stepScope(inv, agent, interrupted.stepId, new Map(), eventsToItems(inv.session.events));
    const { events, outcomes } = await finishPendingCalls(scope, {
      store: this.store,
      root: this.agent,
      base: inv.base,
      pending: interrupted.pending,
      text: interrupted.text,
      encoding: encodingForModel(this.resources.modelOf(agent).model.modelId),
    });
    yield* emit(events);
    return this.endOfToolStep(inv, agent, outcomes, interrupted.text);
  }

  private stepScope(
    inv: Invocation,
    agent: Agent,
    stepId: string,
    invalidArgs: ReadonlyMap<string, string>,
    recentItems: StepScope['recentItems'],
  ): StepScope {
    const { tools, names } = this.resources.toolsOf(agent);
    return {
      agent,
      session: inv.session,
      invocationId: inv.invocationId,
      stepId,
      task: inv.input.message,
      tools,
      toolNames: names,
      invalidArgs,
      recentItems,
      ledger: inv.ledger.ledger,
      signal: inv.signal,
      services: this.services,
      limits: this.limits,
      observationProcessors: agent.observationProcessors ?? this.options.observationProcessors ?? [],
      deadline: inv.deadline,
      telemetry: inv.telemetry,
    };
  }

  /** After a stored tool step: stop at the wall-time limit or on an escalation, else go on (maybe transferred). */
  private endOfToolStep(inv: Invocation, agent: Agent, outcomes: readonly CallOutcome[], text: string): StepEnd {
    // A tool abandoned at the invocation's deadline has its timeout recorded; the invocation ends here.
    if (outcomes.some((o) => o.timedOut === 'maxWallTimeMs'))
      throw new LimitExceededError('maxWallTimeMs', this.limits.maxWallTimeMs, 'limits.maxWallTimeMs');
    const escalation = escalationOf(outcomes);
    if (escalation !== undefined)
      return {
        result: this.result(inv, escalation || text, 'escalate', agent.name),
      };
    return { agent: transferTarget(this.agent, agent, outcomes) ?? agent };
  }

  private result(inv: Invocation, text: string, stopReason: StopReason, agentName: string): RunResult {
    const { session, invocationId, ledger } = inv;
    clearTemp(session.state);
    const summary = summarizeLedger(ledger.ledger.entries, ledger.ledger.compressions);
    return { text, stopReason, invocationId, agentName, session, ledger: { entries: ledger.ledger.entries, summary } };
  }
}
