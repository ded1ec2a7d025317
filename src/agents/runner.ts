/**
 * The runner owns the agent loop: build the request through the context pipeline, measure it, call
 * the model, append its response, run its tool calls concurrently, append their results in call order
 * with their state deltas, and stop on a final answer, an escalation, or a limit. Every event is
 * persisted as it happens, so a crash loses at most the step in flight.
 */
import { randomUUID } from 'node:crypto';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { z } from 'zod';
import {
  AbortedError,
  ContextWindowExceededError,
  LimitExceededError,
  ModelBehaviorError,
  NotFoundError,
  PagewiseError,
  SystemError,
  VersionConflictError,
  redactError,
} from '../errors.js';
import { eventsToItems } from '../context/history.js';
import type { ObservationProcessor, ToolObservation } from '../context/observation.js';
import {
  findBrokenToolPair,
  measureRequest,
  renderPrompt,
  type ContextProcessor,
  type ContextRequest,
  type InstructionSection,
  type ProcessorContext,
  type ToolDefinition,
} from '../context/request.js';
import {
  contextWindowFor,
  modelLabel,
  resolveModel,
  type ModelSpec,
  type ResolveModelOptions,
} from '../models/resolve.js';
import { withRetry, type RetryOptions } from '../models/retry.js';
import { refreshSession, sharedKeysOf } from '../session/append.js';
import { InMemorySessionStore } from '../session/memory-store.js';
import { clearTemp } from '../session/state.js';
import { canAppendLocked, type SessionStore } from '../session/store.js';
import { PendingWrites, stateSource, TrackedState, type StateSource } from '../session/tracked-state.js';
import type { Session, SessionEvent, SessionKey, StateDelta, ToolCallRecord } from '../session/types.js';
import type { CallLog } from './call-log.js';
import type { RunTelemetry } from '../telemetry/types.js';
import { Ledger, type LedgerEntry, type LedgerSummary } from '../tokens/ledger.js';
import { countTokens, encodingForModel } from '../tokens/tokenizer.js';
import type { Agent } from './agent.js';
import { TRANSFER_TOOL, transferTool } from './builtin-tools.js';
import type { AnyTool, ToolContext } from './tool.js';

/** Limits of one invocation. Each has a default and names its setting when hit. */
export interface RunLimits {
  /** Model calls per invocation. Default 50. */
  maxSteps: number;
  /** Tool calls honoured in one model response; the rest get an error result. Default 16. */
  maxToolCallsPerStep: number;
  /** Wall time of one invocation in ms. Default 30 minutes. */
  maxWallTimeMs: number;
  /** Bytes of one tool result after observation processors; larger results become an error result. Default 1 MiB. */
  maxToolResultBytes: number;
  /** Bytes of one tool call's argument text. Default 256 KiB. */
  maxToolArgumentBytes: number;
  /**
   * Times one append is retried after a version conflict (another writer got there first), each time
   * against a reloaded session after a random backoff that grows to 250 ms. Default 30; when exhausted
   * the VersionConflictError is thrown (retryable; nothing of the step was stored). Keys that many
   * sessions write at once are better updated with `ctx.state.increment`, which never conflicts.
   */
  maxConflictRetries: number;
}

/** Default {@link RunLimits}. */
export const DEFAULT_LIMITS: RunLimits = {
  maxSteps: 50,
  maxToolCallsPerStep: 16,
  maxWallTimeMs: 30 * 60_000,
  maxToolResultBytes: 1024 * 1024,
  maxToolArgumentBytes: 256 * 1024,
  maxConflictRetries: 30,
};

/** Options of a {@link Runner}. */
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

/** Input of {@link Runner.resume}. */
export interface ResumeInput {
  userId: string;
  sessionId: string;
  signal?: AbortSignal;
}

/** An invocation that stopped before its end, found in a session's events. */
interface Interrupted {
  invocationId: string;
  task: string;
  agentName: string;
  /** Tool calls of the last model event that have no result yet. */
  pending: ToolCallRecord[];
  /** Text of that model event. */
  text: string;
}

/**
 * Finds the last invocation of a session if it did not end (no final answer, no escalation): its
 * task, the agent that spoke last, and the tool calls still waiting for results.
 */
export function findInterrupted(session: Session): Interrupted | undefined {
  let start = -1;
  for (let i = session.events.length - 1; i >= 0; i--) {
    const e = session.events[i]!;
    if (e.kind === 'user' && e.author === 'user') {
      start = i;
      break;
    }
  }
  if (start < 0) return undefined;
  const first = session.events[start] as Extract<SessionEvent, { kind: 'user' }>;
  const events = session.events.slice(start).filter((e) => e.invocationId === first.invocationId);
  let agentName: string | undefined;
  let lastModel: Extract<SessionEvent, { kind: 'model' }> | undefined;
  const answered = new Set<string>();
  for (const e of events) {
    if (e.kind === 'escalate') return undefined;
    if (e.kind === 'model') {
      if (e.toolCalls.length === 0 && e.text.trim()) return undefined;
      lastModel = e;
      agentName = e.author;
    }
    if (e.kind === 'transfer') agentName = e.to;
    if (e.kind === 'tool-result') answered.add(e.toolCallId);
  }
  const pending = lastModel ? lastModel.toolCalls.filter((c) => !answered.has(c.toolCallId)) : [];
  return {
    invocationId: first.invocationId,
    task: first.text,
    agentName: agentName ?? '',
    pending,
    text: lastModel?.text ?? '',
  };
}

/** Why an invocation ended. */
export type StopReason = 'final' | 'escalate';

/** The outcome of {@link Runner.run}. */
export interface RunResult {
  text: string;
  stopReason: StopReason;
  invocationId: string;
  /** The agent that produced the final answer. */
  agentName: string;
  session: Session;
  ledger: { entries: readonly LedgerEntry[]; summary: LedgerSummary };
}

/** A part of {@link Runner.stream}'s output. */
export type RunStreamPart =
  | { type: 'event'; event: SessionEvent }
  | { type: 'text-delta'; agentName: string; delta: string }
  | { type: 'finish'; result: RunResult };

interface CallOutcome {
  observation: ToolObservation;
  delta: StateDelta;
  increments?: Record<string, number>;
  transferTo?: string;
  escalate?: string;
  /** The state access the tool ran with (what it read); absent when no tool ran. */
  state?: TrackedState;
  /** Whether the call may be run again: a tool without side effects. */
  replayable: boolean;
  /** The shared-key versions the result event is checked against on append. */
  reads?: Record<string, number>;
}

/**
 * A step could not be stored: a tool with side effects (`sideEffects: true`) read state that another
 * writer, or an earlier call of the same step, changed before its result was appended, and such a tool
 * is never run twice. Nothing of the step was stored, but the side effect did happen. Retryable by
 * running the invocation again, when repeating the side effect is acceptable.
 */
export class SideEffectConflictError extends VersionConflictError {
  constructor(
    sessionId: string,
    sessionVersion: number,
    /** The tool whose result could not be stored. */
    readonly toolName: string,
  ) {
    super(sessionId, sessionVersion, sessionVersion);
    this.message =
      `The result of "${toolName}" in session ${sessionId} could not be stored: the state it read changed before the append, and a tool with sideEffects: true is never re-run. ` +
      'Nothing of this step was stored, but its side effect happened. Run the invocation again if repeating it is acceptable; otherwise keep such tools from reading state that other calls or sessions write.';
  }
}

const isVersionConflict = (error: unknown): boolean =>
  PagewiseError.isInstance(error) && error.code === 'version-conflict';

/**
 * Optimistic attempts of an append before a store that can lock ({@link canAppendLocked}) is asked to
 * rebuild and append under its locks, so a writer that keeps losing to others still finishes.
 */
const OPTIMISTIC_ATTEMPTS = 3;

const toolDefs = new WeakMap<AnyTool, ToolDefinition>();

function definitionOf(t: AnyTool): ToolDefinition {
  let d = toolDefs.get(t);
  if (!d) {
    const schema = z.toJSONSchema(t.inputSchema, { unrepresentable: 'any' }) as Record<string, unknown>;
    delete schema.$schema;
    d = { name: t.name, description: t.description, inputSchema: schema };
    toolDefs.set(t, d);
  }
  return d;
}

function outputText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return 'OK';
  try {
    return JSON.stringify(value, null, 2);
  } catch (error) {
    return `Error: the tool returned a value that cannot be serialized (${(error as Error).message}).`;
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Runs agents over sessions. */
export class Runner {
  readonly agent: Agent;
  readonly appName: string;
  readonly store: SessionStore;
  readonly limits: RunLimits;
  private readonly options: RunnerOptions;
  private readonly services: ReadonlyMap<string, unknown>;
  private readonly models = new Map<Agent, { model: LanguageModelV3; label: string; window: number }>();
  private readonly agentTools = new WeakMap<Agent, { tools: Map<string, AnyTool>; defs: ToolDefinition[] }>();

  constructor(options: RunnerOptions) {
    this.options = options;
    this.agent = options.agent;
    this.appName = options.appName ?? 'pagewise';
    this.store = options.store ?? new InMemorySessionStore();
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.services =
      options.services instanceof Map ? options.services : new Map(Object.entries(options.services ?? {}));
    const seen = new Set<string>();
    for (const a of this.agent.walk()) {
      if (seen.has(a.name))
        throw new TypeError(`Two agents are named "${a.name}"; agent names must be unique in a tree.`);
      seen.add(a.name);
    }
  }

  private modelOf(agent: Agent): { model: LanguageModelV3; label: string; window: number } {
    let m = this.models.get(agent);
    if (!m) {
      const spec = agent.model ?? this.options.model;
      if (spec === undefined) {
        throw new SystemError(
          'no-model',
          `Agent "${agent.name}" has no model and the runner has no default: set \`model\` on the agent or the runner (e.g. "offline").`,
        );
      }
      const model = resolveModel(spec, this.options.modelOptions);
      const window = this.options.contextWindow ?? contextWindowFor(spec);
      m = { model, label: modelLabel(spec), window };
      this.models.set(agent, m);
    }
    return m;
  }

  private toolsOf(agent: Agent): { tools: Map<string, AnyTool>; defs: ToolDefinition[] } {
    let t = this.agentTools.get(agent);
    if (!t) {
      const list: AnyTool[] = [...agent.tools];
      const targets = agent.transferTargets();
      if (targets.length > 0 && !list.some((x) => x.name === TRANSFER_TOOL)) list.push(transferTool(targets));
      t = { tools: new Map(list.map((x) => [x.name, x])), defs: list.map(definitionOf) };
      this.agentTools.set(agent, t);
    }
    return t;
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
    const runInput: RunInput = {
      userId: input.userId,
      sessionId: input.sessionId,
      message: interrupted.task,
      ...(input.signal ? { signal: input.signal } : {}),
    };
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
    const signal = input.signal ?? new AbortController().signal;
    const invocationId = resume?.interrupted.invocationId ?? randomUUID();
    const ledger = new Ledger();
    // Calls that processors record (compressors) reach the shared ledger too, even if the run fails later.
    const shared = this.options.ledger;
    const stopForwarding = shared
      ? ledger.subscribe((e) => e.kind !== 'agent' && void shared.record(stripIndex(e)))
      : undefined;
    const key = { appName: this.appName, userId: input.userId, sessionId: input.sessionId ?? randomUUID() };
    const session = resume?.session ?? (await this.store.getSession(key)) ?? (await this.createSession(key));
    let agent = resume
      ? (this.agent.find(resume.interrupted.agentName) ?? this.agent)
      : input.agentName
        ? this.agent.find(input.agentName)
        : this.agent;
    if (!agent)
      throw new SystemError(
        'unknown-agent',
        `No agent named "${input.agentName}" in the tree of "${this.agent.name}".`,
      );

    // Events that depend on no state: after a conflict they are appended again, unchanged, on the reloaded session.
    const append = (...events: SessionEvent[]): Promise<SessionEvent[]> => this.appendWithRetry(session, () => events);
    const base = () => ({ id: randomUUID(), invocationId, timestamp: Date.now() });
    const telemetry = this.options.telemetry?.startInvocation({ ...key, agentName: agent.name, invocationId, ledger });
    let failure: unknown;

    try {
      if (!resume) {
        for (const event of await append({ ...base(), kind: 'user', author: 'user', text: input.message }))
          yield { type: 'event', event };
      } else if (resume.interrupted.pending.length > 0) {
        // The interrupted step's model response is in the store: finish its calls, never repeating recorded ones.
        const { tools } = this.toolsOf(agent);
        const pending = resume.interrupted.pending;
        const outcomes = await Promise.all(
          pending.map((call) =>
            this.executeCall(
              call,
              undefined,
              tools,
              agent!,
              session,
              invocationId,
              input.message,
              eventsToItems(session.events),
              ledger,
              signal,
              stateSource(session.state),
            ),
          ),
        );
        const from = agent;
        const escalation = outcomes.reduce<string | undefined>(
          (r, o) => (o.escalate !== undefined ? o.escalate : r),
          undefined,
        );
        const transferName = outcomes.reduce<string | undefined>((r, o) => o.transferTo || r, undefined);
        const next = transferName && transferName !== from.name ? this.agent.find(transferName) : undefined;
        const events: SessionEvent[] = outcomes.map((o) => this.resultEvent(o, base(), from.name));
        if (escalation !== undefined)
          events.push({
            ...base(),
            kind: 'escalate',
            author: from.name,
            reason: escalation || resume.interrupted.text,
          });
        else if (next) events.push({ ...base(), kind: 'transfer', author: from.name, from: from.name, to: next.name });
        for (const event of await append(...events)) yield { type: 'event', event };
        if (escalation !== undefined) {
          yield {
            type: 'finish',
            result: this.result(
              escalation || resume.interrupted.text,
              'escalate',
              invocationId,
              agent.name,
              session,
              ledger,
            ),
          };
          return;
        }
        agent = next ?? agent;
      }
      let emptyResponses = 0;
      for (let step = 0; ; step++) {
        if (signal.aborted) throw new AbortedError();
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
        const stepStart = performance.now();
        const { model, label, window } = this.modelOf(agent);
        const { tools, defs } = this.toolsOf(agent);
        const request = await this.buildRequest(agent, session, invocationId, input.message, defs, signal, ledger);
        const measured = measureRequest(request, encodingForModel(model.modelId));
        if (window > 0 && measured.total > window) throw new ContextWindowExceededError(measured.total, window, label);
        const { prompt, tools: toolList } = renderPrompt(request);
        const callOptions: LanguageModelV3CallOptions = {
          prompt,
          tools: toolList.length ? toolList : undefined,
          toolChoice: toolList.length ? { type: 'auto' } : undefined,
        };

        const modelStart = performance.now();
        const content: LanguageModelV3Content[] = [];
        let usage: { input?: number; output?: number } = {};
        let finishReason: string | undefined;
        if (streaming) {
          const deltas: string[] = [];
          const { stream } = await withRetry(
            (s) => model.doStream({ ...callOptions, abortSignal: s }),
            signal,
            this.options.retry,
          );
          let text = '';
          const parts = abortable(stream as unknown as AsyncIterable<LanguageModelV3StreamPart>, signal);
          for await (const part of parts) {
            if (part.type === 'text-delta') {
              text += part.delta;
              deltas.push(part.delta);
              yield { type: 'text-delta', agentName: agent.name, delta: part.delta };
            } else if (part.type === 'tool-call') content.push(part);
            else if (part.type === 'finish') {
              usage = { input: part.usage.inputTokens.total, output: part.usage.outputTokens.total };
              finishReason = part.finishReason.unified;
            } else if (part.type === 'error') throw redactError(part.error);
          }
          if (text) content.unshift({ type: 'text', text });
        } else {
          const result = await withRetry(
            (s) => model.doGenerate({ ...callOptions, abortSignal: s }),
            signal,
            this.options.retry,
          );
          content.push(...result.content);
          usage = { input: result.usage.inputTokens.total, output: result.usage.outputTokens.total };
          finishReason = result.finishReason.unified;
        }
        const modelMs = performance.now() - modelStart;

        const text = content.map((c) => (c.type === 'text' ? c.text : '')).join('');
        const toolCalls: ToolCallRecord[] = [];
        const invalidArgs = new Map<string, string>();
        for (const c of content) {
          if (c.type !== 'tool-call') continue;
          const bytes = Buffer.byteLength(c.input);
          if (bytes > this.limits.maxToolArgumentBytes) {
            // Oversized arguments are not kept in history: they would crowd out everything else.
            toolCalls.push({
              toolCallId: c.toolCallId,
              toolName: c.toolName,
              input: `[${bytes} bytes of arguments omitted]`,
            });
            invalidArgs.set(
              c.toolCallId,
              `the arguments are ${bytes} bytes, over the limit maxToolArgumentBytes of ${this.limits.maxToolArgumentBytes} (setting limits.maxToolArgumentBytes). Send shorter arguments.`,
            );
            continue;
          }
          const parsed = parseArgs(c.input);
          if (parsed.ok) toolCalls.push({ toolCallId: c.toolCallId, toolName: c.toolName, input: parsed.value });
          else {
            // Keep the raw text in the event, so the model sees what it wrote.
            toolCalls.push({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input.slice(0, 20_000) });
            invalidArgs.set(
              c.toolCallId,
              `the arguments of ${c.toolName} are not valid (${parsed.reason}). Send a JSON object that matches the tool's schema.`,
            );
          }
        }
        const completionTokens = countTokens(text + toolCalls.map((c) => JSON.stringify(c.input)).join(''));
        const entry = this.record(ledger, {
          kind: 'agent',
          agent: agent.name,
          model: label,
          invocationId,
          parts: measured.parts,
          promptTokens: measured.total,
          completionTokens,
          ...(usage.input !== undefined ? { providerPromptTokens: usage.input } : {}),
          ...(usage.output !== undefined ? { providerCompletionTokens: usage.output } : {}),
          modelMs,
          frameworkMs: 0,
          at: Date.now(),
        });
        // The model event is appended with the step's results (or alone, for a final answer), so no
        // concurrent writer's events can come between a tool call and its result.
        const modelEvent: SessionEvent = {
          ...base(),
          kind: 'model',
          author: agent.name,
          text,
          toolCalls,
          usage: {
            promptTokens: measured.total,
            completionTokens,
            ...(usage.input !== undefined ? { providerPromptTokens: usage.input } : {}),
            ...(usage.output !== undefined ? { providerCompletionTokens: usage.output } : {}),
          },
          ...(finishReason ? { finishReason } : {}),
        };
        const { appName, userId, sessionId } = session;
        const response = { text, toolCalls, ...(finishReason ? { finishReason } : {}) };
        await this.options.callLog?.recordCall({
          appName,
          userId,
          sessionId,
          invocationId,
          entry,
          request,
          response,
          eventId: modelEvent.id,
        });

        if (toolCalls.length === 0) {
          if (text.trim()) {
            for (const event of await append(modelEvent)) yield { type: 'event', event };
            this.finishStep(ledger, entry.index, stepStart, modelMs, 0);
            yield { type: 'finish', result: this.result(text, 'final', invocationId, agent.name, session, ledger) };
            return;
          }
          emptyResponses += 1;
          if (emptyResponses >= 3) {
            throw new ModelBehaviorError(
              'empty-response',
              `The model "${label}" returned an empty response ${emptyResponses} times in a row. Check the model and its instruction.`,
            );
          }
          const nudge: SessionEvent = {
            ...base(),
            kind: 'user',
            author: 'pagewise',
            text: '[pagewise] Your last response was empty. Answer with text, or call one of the tools.',
          };
          for (const event of await append(modelEvent, nudge)) yield { type: 'event', event };
          this.finishStep(ledger, entry.index, stepStart, modelMs, 0);
          continue;
        }
        emptyResponses = 0;

        // A step that calls a tool with side effects records the model's response before running it, so an
        // interrupted run can resume without asking the model again and without repeating recorded calls.
        const writeAhead = toolCalls.some((c) => tools.get(c.toolName)?.sideEffects === true);
        if (writeAhead) for (const event of await append(modelEvent)) yield { type: 'event', event };
        const toolStart = performance.now();
        const recentItems = request.items;
        const run = (call: ToolCallRecord, source: StateSource): Promise<CallOutcome> =>
          this.executeCall(
            call,
            invalidArgs.get(call.toolCallId),
            tools,
            agent!,
            session,
            invocationId,
            input.message,
            recentItems,
            ledger,
            signal,
            source,
          );
        const outcomes = await Promise.all(
          toolCalls.map((call, i) =>
            i < this.limits.maxToolCallsPerStep
              ? run(call, stateSource(session.state))
              : Promise.resolve<CallOutcome>({
                  observation: {
                    ...call,
                    output: `Error: this response made ${toolCalls.length} tool calls; at most ${this.limits.maxToolCallsPerStep} run per step (setting limits.maxToolCallsPerStep). Call the rest in your next response.`,
                    isError: true,
                  },
                  delta: {},
                  replayable: true,
                }),
          ),
        );
        const toolMs = performance.now() - toolStart;
        const from = agent;
        const escalateOf = (): string | undefined =>
          outcomes.reduce<string | undefined>((r, o) => (o.escalate !== undefined ? o.escalate : r), undefined);
        const transferOf = (): Agent | undefined => {
          const name = outcomes.reduce<string | undefined>((r, o) => o.transferTo || r, undefined);
          return name && name !== from.name ? this.agent.find(name) : undefined;
        };
        // The step is one atomic append: the model event, every result in call order, then the escalation
        // or transfer those results asked for. Each attempt first re-runs the calls whose reads are stale.
        const stepEvents = await this.appendWithRetry(session, async () => {
          await this.reconcile(session, toolCalls, outcomes, run);
          const events: SessionEvent[] = writeAhead ? [] : [modelEvent];
          for (const o of outcomes) events.push(this.resultEvent(o, base(), from.name));
          const escalation = escalateOf();
          const next = transferOf();
          if (escalation !== undefined)
            events.push({ ...base(), kind: 'escalate', author: from.name, reason: escalation || text });
          else if (next)
            events.push({ ...base(), kind: 'transfer', author: from.name, from: from.name, to: next.name });
          return events;
        });
        for (const event of stepEvents) yield { type: 'event', event };
        this.finishStep(ledger, entry.index, stepStart, modelMs, toolMs);
        const escalate = escalateOf();
        if (escalate !== undefined) {
          yield {
            type: 'finish',
            result: this.result(escalate || text, 'escalate', invocationId, agent.name, session, ledger),
          };
          return;
        }
        agent = transferOf() ?? agent;
      }
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      // The invocation is over: its temp: state (the working set among it) is paged out.
      clearTemp(session.state);
      stopForwarding?.();
      telemetry?.end(failure);
    }
  }

  /** The tool-result event of one call's outcome. */
  private resultEvent(
    o: CallOutcome,
    base: { id: string; invocationId: string; timestamp: number },
    author: string,
  ): SessionEvent {
    return {
      ...base,
      kind: 'tool-result',
      author,
      toolCallId: o.observation.toolCallId,
      toolName: o.observation.toolName,
      output: o.observation.output,
      isError: o.observation.isError,
      ...(Object.keys(o.delta).length ? { delta: o.delta } : {}),
      ...(o.increments && Object.keys(o.increments).length ? { increments: o.increments } : {}),
      ...(o.reads ? { reads: o.reads } : {}),
    };
  }

  /** Creates the session of a first invocation; when a concurrent worker created it first, uses theirs. */
  private async createSession(key: SessionKey): Promise<Session> {
    try {
      return await this.store.createSession(key);
    } catch (error) {
      const existing = await this.store.getSession(key);
      if (existing) return existing;
      throw error;
    }
  }

  /**
   * Appends the events `build` returns as one atomic unit. On a version conflict (another writer
   * appended to this session, or changed a shared key a tool read), reloads the session in place,
   * keeping this invocation's `temp:` keys, and calls `build` again, which must recompute whatever
   * depends on state; up to `limits.maxConflictRetries` times. The backoff is random ("full jitter")
   * and doubles per attempt up to 250 ms, so writers competing for one key spread out over time.
   *
   * Optimistic retries can starve a writer that keeps losing to fresh ones; after a few, a store that
   * can lock runs the reload, `build` and the append in one transaction holding the locks of the
   * session and of the shared keys the last attempt touched, which cannot be overtaken.
   */
  private async appendWithRetry(
    session: Session,
    build: () => SessionEvent[] | Promise<SessionEvent[]>,
  ): Promise<SessionEvent[]> {
    let events: SessionEvent[] = [];
    const store = this.store;
    const locking = canAppendLocked(store);
    for (let attempt = 0; ; attempt++) {
      const locked = locking && attempt >= OPTIMISTIC_ATTEMPTS;
      try {
        if (locked) {
          const touched = sharedKeysOf(events);
          return await store.appendEventsLocked(
            session,
            [...touched.user, ...touched.app],
            async () => (events = await build()),
          );
        }
        events = await build();
        return await store.appendEvents(session, events);
      } catch (error) {
        // A step that cannot be replayed is final; so is anything but a conflict, a deleted session, or the last retry.
        if (
          error instanceof SideEffectConflictError ||
          !isVersionConflict(error) ||
          attempt >= this.limits.maxConflictRetries
        )
          throw error;
        if ((error as VersionConflictError).actualVersion === -1) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(250, 4 * 2 ** attempt)));
        // A locked attempt loads the session itself, under its locks.
        if (locking && attempt + 1 >= OPTIMISTIC_ATTEMPTS) continue;
        const fresh = await store.getSession(session);
        if (!fresh) throw error;
        refreshSession(session, fresh);
      }
    }
  }

  /**
   * Makes a step's outcomes valid against the current session, as if the calls had run one after
   * another in call order. Call i is checked against the session state plus the writes of calls 0..i-1;
   * if anything it read differs there (another call of the step wrote it, or, after a conflict, another
   * writer did), it is run again against that state when its tool has no side effects, or the step is
   * refused with {@link SideEffectConflictError}. Then each outcome records the versions of the shared
   * keys it read, for the store to check.
   *
   * The rule that keeps re-running safe: only tools without `sideEffects` run twice, and the model is
   * never called again (its response stays as given; it sees other writers' events from the next step).
   */
  private async reconcile(
    session: Session,
    calls: readonly ToolCallRecord[],
    outcomes: CallOutcome[],
    run: (call: ToolCallRecord, source: StateSource) => Promise<CallOutcome>,
  ): Promise<void> {
    const pending = new PendingWrites();
    for (let i = 0; i < outcomes.length; i++) {
      const source = pending.over(session.state);
      let outcome = outcomes[i]!;
      if (outcome.state?.isStale(source)) {
        if (!outcome.replayable)
          throw new SideEffectConflictError(session.sessionId, session.version, outcome.observation.toolName);
        outcome = outcomes[i] = await run(calls[i]!, source);
      }
      const reads = outcome.state?.sharedReads(source, session.sharedVersions);
      if (reads) outcome.reads = reads;
      else delete outcome.reads;
      pending.add(outcome.delta, outcome.increments);
    }
  }

  private record(ledger: Ledger, entry: Omit<LedgerEntry, 'index'>): LedgerEntry {
    const e = ledger.record(entry);
    this.options.ledger?.record(entry);
    return e;
  }

  private finishStep(ledger: Ledger, index: number, stepStart: number, modelMs: number, toolMs: number): void {
    const ms = Math.max(0, performance.now() - stepStart - modelMs - toolMs);
    ledger.setFrameworkMs(index, ms);
    const shared = this.options.ledger;
    if (shared) shared.setFrameworkMs(shared.entries.length - 1, ms);
  }

  private result(
    text: string,
    stopReason: StopReason,
    invocationId: string,
    agentName: string,
    session: Session,
    ledger: Ledger,
  ): RunResult {
    clearTemp(session.state);
    return {
      text,
      stopReason,
      invocationId,
      agentName,
      session,
      ledger: { entries: ledger.entries, summary: ledger.summary() },
    };
  }

  /** Builds the request for the next model call: instruction, history, tools, then the processors. */
  private async buildRequest(
    agent: Agent,
    session: Session,
    invocationId: string,
    task: string,
    defs: ToolDefinition[],
    signal: AbortSignal,
    ledger: Ledger,
  ): Promise<ContextRequest> {
    const instruction: InstructionSection[] = [];
    const raw =
      typeof agent.instruction === 'string'
        ? agent.instruction
        : await agent.instruction({
            state: session.state,
            session,
            invocationId,
            agentName: agent.name,
            services: this.services,
          });
    if (typeof raw === 'string') {
      if (raw) instruction.push({ part: 'instruction', text: raw, source: agent.name });
    } else instruction.push(...raw);
    const request: ContextRequest = { instruction, items: eventsToItems(session.events), tools: [...defs] };
    const ctx: ProcessorContext = {
      session,
      invocationId,
      agentName: agent.name,
      task,
      services: this.services,
      signal,
      ledger,
      appendCompaction: async (c) => {
        await this.store.appendEvent(session, {
          id: randomUUID(),
          invocationId,
          author: agent.name,
          timestamp: Date.now(),
          kind: 'compaction',
          fromEventId: c.fromEventId,
          toEventId: c.toEventId,
          summary: c.summary,
          ...(c.guideline !== undefined ? { guideline: c.guideline } : {}),
        });
      },
    };
    const telemetry = this.options.telemetry?.current(invocationId);
    for (const p of agent.processors ?? this.options.processors ?? []) {
      const run = async () => p.process(request, ctx);
      await (telemetry ? telemetry.processor(p.name, 'context', run) : run());
      const broken = findBrokenToolPair(request.items);
      if (broken)
        throw new SystemError(
          'broken-tool-pair',
          `Context processor "${p.name}" separated a tool call from its result: ${broken}. This is a bug in that processor.`,
        );
    }
    return request;
  }

  private async executeCall(
    call: ToolCallRecord,
    invalidArgs: string | undefined,
    tools: Map<string, AnyTool>,
    agent: Agent,
    session: Session,
    invocationId: string,
    task: string,
    recentItems: ContextRequest['items'],
    ledger: Ledger,
    signal: AbortSignal,
    source: StateSource,
  ): Promise<CallOutcome> {
    const outcome: CallOutcome = { observation: { ...call, output: '', isError: false }, delta: {}, replayable: true };
    const fail = (message: string): CallOutcome => {
      outcome.observation = { ...call, output: `Error: ${message}`, isError: true };
      return outcome;
    };
    const telemetry = this.options.telemetry?.current(invocationId);
    const t = tools.get(call.toolName);
    if (!t) return fail(`unknown tool "${call.toolName}". Available tools: ${[...tools.keys()].join(', ') || 'none'}.`);
    if (invalidArgs !== undefined) return fail(invalidArgs);
    const argBytes = Buffer.byteLength(JSON.stringify(call.input ?? null));
    if (argBytes > this.limits.maxToolArgumentBytes) {
      return fail(
        `the arguments are ${argBytes} bytes, over the limit maxToolArgumentBytes of ${this.limits.maxToolArgumentBytes} (setting limits.maxToolArgumentBytes). Send shorter arguments.`,
      );
    }
    const parsed = t.inputSchema.safeParse(call.input);
    if (!parsed.success)
      return fail(
        `invalid arguments for ${call.toolName}:\n${z.prettifyError(parsed.error)}\nFix the arguments and call again.`,
      );

    // Records what the tool reads, so a conflict can tell whether its result still holds.
    const state = new TrackedState(source);
    outcome.state = state;
    outcome.delta = state.delta;
    outcome.increments = state.increments;
    outcome.replayable = t.sideEffects !== true;
    const ctx: ToolContext = {
      state,
      invocationId,
      sessionId: session.sessionId,
      userId: session.userId,
      appName: session.appName,
      agentName: agent.name,
      toolCallId: call.toolCallId,
      idempotencyKey: `${session.sessionId}:${call.toolCallId}`,
      signal,
      services: this.services,
      actions: {
        transferToAgent: (name) => {
          if (!agent.transferTargets().some((a) => a.name === name)) {
            throw new Error(
              `cannot transfer to "${name}"; possible: ${
                agent
                  .transferTargets()
                  .map((a) => a.name)
                  .join(', ') || 'none'
              }.`,
            );
          }
          outcome.transferTo = name;
        },
        escalate: (reason) => {
          outcome.escalate = reason ?? '';
        },
      },
    };
    try {
      const execute = async () => t.execute(parsed.data, ctx);
      const value = await (telemetry ? telemetry.tool(call, agent.name, execute) : execute());
      outcome.observation = { ...call, input: parsed.data, output: outputText(value), isError: false };
    } catch (error) {
      if (signal.aborted) throw new AbortedError();
      // A failed tool changes no state: its partial writes are dropped with it.
      state.discardWrites();
      outcome.transferTo = undefined;
      outcome.escalate = undefined;
      return fail(`${call.toolName} failed: ${describeError(error)}`);
    }
    let obs = outcome.observation;
    for (const p of agent.observationProcessors ?? this.options.observationProcessors ?? []) {
      const run = async () =>
        p.process(obs, {
          invocationId,
          agentName: agent.name,
          sessionId: session.sessionId,
          task,
          recentItems,
          services: this.services,
          ledger,
          signal,
        });
      obs = await (telemetry ? telemetry.processor(p.name, 'observation', run) : run());
    }
    const bytes = Buffer.byteLength(obs.output);
    if (bytes > this.limits.maxToolResultBytes) {
      return {
        ...outcome,
        observation: {
          ...obs,
          output: `Error: the result of ${call.toolName} is ${bytes} bytes, over the limit maxToolResultBytes of ${this.limits.maxToolResultBytes} (setting limits.maxToolResultBytes). Ask for less, or enable auto-paging so large results become pages.`,
          isError: true,
        },
      };
    }
    outcome.observation = obs;
    return outcome;
  }
}

/** Deepest nesting of arguments accepted; deeper JSON would overflow the stack of later serializers. */
export const MAX_ARGUMENT_DEPTH = 64;

/** Nesting depth of a JSON text, counted without recursion (brackets outside strings). */
function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92)
        i += 1; // backslash escapes the next character
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) max = Math.max(max, ++depth);
    else if (ch === 125 || ch === 93) depth -= 1;
  }
  return max;
}

function parseArgs(input: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (input.trim() === '') return { ok: true, value: {} };
  const depth = jsonDepth(input);
  if (depth > MAX_ARGUMENT_DEPTH)
    return { ok: false, reason: `nested ${depth} levels deep; at most ${MAX_ARGUMENT_DEPTH} are accepted` };
  try {
    return { ok: true, value: JSON.parse(input) as unknown };
  } catch (error) {
    return { ok: false, reason: `not JSON: ${(error as Error).message}` };
  }
}

function stripIndex(entry: LedgerEntry): Omit<LedgerEntry, 'index'> {
  const { index: _index, ...rest } = entry;
  return rest;
}

/** Iterates a model stream, ending with AbortedError (not the stream's own abort error) once `signal` fires. */
async function* abortable<T>(stream: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  try {
    for await (const part of stream) {
      if (signal.aborted) throw new AbortedError();
      yield part;
    }
  } catch (error) {
    if (signal.aborted) throw new AbortedError();
    throw redactError(error);
  }
}
