/**
 * Running one tool call of a step: validate its arguments, run the tool with tracked state under the
 * run's signal and deadlines, pass the result through the observation processors, and enforce the
 * result size. Every failure becomes an error result the model can read; only an abort stops the run.
 */
import { z } from 'zod';
import { AbortedError, redactSecrets } from '../errors.js';
import type { ObservationProcessor, ToolObservation } from '../context/observation.js';
import type { ContextItem, ToolDefinition } from '../context/request.js';
import { TrackedState, type StateSource } from '../session/tracked-state.js';
import type { Session, StateDelta, ToolCallRecord } from '../session/types.js';
import type { InvocationTelemetry } from '../telemetry/types.js';
import type { Ledger } from '../tokens/ledger.js';
import type { Agent } from './agent.js';
import type { RunLimits } from './limits.js';
import type { AnyTool, ToolContext } from './tool.js';

/** What the calls of one step share: who runs them, against what, under which limits. */
export interface StepScope {
  agent: Agent;
  session: Session;
  invocationId: string;
  /** Id of the model event whose calls these are; with the invocation it makes idempotency keys unique. */
  stepId: string;
  /** The text of the user message that started the invocation. */
  task: string;
  tools: ReadonlyMap<string, AnyTool>;
  /** The names of `tools`, for observation processors that point the model to a tool. */
  toolNames: ReadonlySet<string>;
  /** Why a call's arguments were refused before any tool ran, by call id. */
  invalidArgs: ReadonlyMap<string, string>;
  /** The history items of the request that produced the calls. */
  recentItems: readonly ContextItem[];
  ledger: Ledger;
  signal: AbortSignal;
  services: ReadonlyMap<string, unknown>;
  limits: RunLimits;
  observationProcessors: readonly ObservationProcessor[];
  /** Epoch milliseconds at which the invocation's wall time runs out. */
  deadline: number;
  /** Spans for each tool call and observation processor, when the runner has telemetry. */
  telemetry?: InvocationTelemetry | undefined;
}

/** The result of one call, before it becomes an event. */
export interface CallOutcome {
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
  /** Set when the tool was abandoned at a deadline: its own limit, or the invocation's wall time. */
  timedOut?: 'maxToolTimeMs' | 'maxWallTimeMs';
}

const toolDefs = new WeakMap<AnyTool, ToolDefinition>();

/** Sets `additionalProperties: false` on every object schema that leaves it unset, recursively. */
function closeObjects(schema: Record<string, unknown>): Record<string, unknown> {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const object = node as Record<string, unknown>;
    if (object.type === 'object' && object.additionalProperties === undefined) object.additionalProperties = false;
    for (const [key, value] of Object.entries(object))
      if (key !== 'const' && key !== 'default' && key !== 'enum' && key !== 'examples') visit(value);
  };
  visit(schema);
  return schema;
}

/** The definition of a tool as offered to the model, converted once per tool. */
export function definitionOf(tool: AnyTool): ToolDefinition {
  let definition = toolDefs.get(tool);
  if (!definition) {
    // The input side: what the model may send. A field with a default is optional to the model, where the
    // output side (what execute receives) lists it as required. Objects are closed unless the schema says
    // otherwise, as the AI SDK declares them (strict-mode providers require it).
    const schema = closeObjects(
      z.toJSONSchema(tool.inputSchema, { unrepresentable: 'any', io: 'input' }) as Record<string, unknown>,
    );
    delete schema.$schema;
    definition = { name: tool.name, description: tool.description, inputSchema: schema };
    toolDefs.set(tool, definition);
  }
  return definition;
}

/**
 * The idempotency key of one execution of a call: the session, the invocation, the step (the id of
 * the model event that made the call) and the call id. A resumed call gets the same key, since its
 * step is the stored model event; a model that reuses call ids across steps still gets distinct keys.
 */
export function idempotencyKeyOf(sessionId: string, invocationId: string, stepId: string, toolCallId: string): string {
  return `${sessionId}:${invocationId}:${stepId}:${toolCallId}`;
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
  return error instanceof Error ? error.message : String(error);
}

/** An error outcome for a call beyond `limits.maxToolCallsPerStep`. */
export function refusedOutcome(call: ToolCallRecord, calls: number, limits: RunLimits): CallOutcome {
  return {
    observation: {
      ...call,
      output: `Error: this response made ${calls} tool calls; at most ${limits.maxToolCallsPerStep} run per step (setting limits.maxToolCallsPerStep). Call the rest in your next response.`,
      isError: true,
    },
    delta: {},
    replayable: true,
  };
}

/** Runs one call of a step against `source` (the session state, plus earlier calls' writes on a re-run). */
export async function executeCall(scope: StepScope, call: ToolCallRecord, source: StateSource): Promise<CallOutcome> {
  const { limits, tools } = scope;
  const outcome: CallOutcome = { observation: { ...call, output: '', isError: false }, delta: {}, replayable: true };
  const fail = (message: string): CallOutcome => {
    outcome.observation = { ...call, output: `Error: ${message}`, isError: true };
    return outcome;
  };
  const tool = tools.get(call.toolName);
  if (!tool)
    return fail(`unknown tool "${call.toolName}". Available tools: ${[...tools.keys()].join(', ') || 'none'}.`);
  const invalid = scope.invalidArgs.get(call.toolCallId);
  if (invalid !== undefined) return fail(invalid);
  const argBytes = Buffer.byteLength(JSON.stringify(call.input ?? null));
  if (argBytes > limits.maxToolArgumentBytes) {
    return fail(
      `the arguments are ${argBytes} bytes, over the limit maxToolArgumentBytes of ${limits.maxToolArgumentBytes} (setting limits.maxToolArgumentBytes). Send shorter arguments.`,
    );
  }
  const parsed = tool.inputSchema.safeParse(call.input);
  if (!parsed.success)
    return fail(
      `invalid arguments for ${call.toolName}:\n${z.prettifyError(parsed.error)}\nFix the arguments and call again.`,
    );

  // Records what the tool reads, so a conflict can tell whether its result still holds.
  const state = new TrackedState(source);
  outcome.state = state;
  outcome.delta = state.delta;
  outcome.increments = state.increments;
  outcome.replayable = tool.sideEffects !== true;
  const run = await runWithDeadline(scope, tool, parsed.data, call, outcome, state);
  if (run.kind === 'aborted') throw new AbortedError();
  if (run.kind !== 'value') {
    // A failed or abandoned tool changes no state: its writes are dropped, and later ones reach nothing.
    state.discardWrites();
    outcome.state = undefined;
    outcome.delta = {};
    outcome.increments = undefined;
    outcome.transferTo = undefined;
    outcome.escalate = undefined;
    if (run.kind === 'error') return fail(`${call.toolName} failed: ${redactSecrets(describeError(run.error))}`);
    outcome.timedOut = run.limit;
    return fail(
      `${call.toolName} did not finish within ${run.ms} ms and was abandoned (setting limits.${run.limit}). Its effects, if any, are unknown.`,
    );
  }
  let obs: ToolObservation = { ...call, input: parsed.data, output: outputText(run.value), isError: false };
  const telemetry = scope.telemetry;
  for (const processor of scope.observationProcessors) {
    const input = obs;
    const run = async () =>
      processor.process(input, {
        invocationId: scope.invocationId,
        agentName: scope.agent.name,
        sessionId: scope.session.sessionId,
        task: scope.task,
        recentItems: scope.recentItems,
        services: scope.services,
        ledger: scope.ledger,
        signal: scope.signal,
        toolNames: scope.toolNames,
      });
    obs = await (telemetry ? telemetry.processor(processor.name, 'observation', run) : run());
  }
  const bytes = Buffer.byteLength(obs.output);
  if (bytes > limits.maxToolResultBytes) {
    obs = {
      ...obs,
      output: `Error: the result of ${call.toolName} is ${bytes} bytes, over the limit maxToolResultBytes of ${limits.maxToolResultBytes} (setting limits.maxToolResultBytes). Ask for less, or enable auto-paging so large results become pages.`,
      isError: true,
    };
  }
  outcome.observation = obs;
  return outcome;
}

type ToolRun =
  | { kind: 'value'; value: unknown }
  | { kind: 'error'; error: unknown }
  | { kind: 'aborted' }
  | { kind: 'timeout'; limit: 'maxToolTimeMs' | 'maxWallTimeMs'; ms: number };

/** setTimeout's largest delay; longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Whether `value` is a promise or other thenable: what `await` would wait for. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Runs the tool under its own signal, which fires when the run is aborted or a deadline passes. A tool
 * that ignores its signal is abandoned there: the step goes on without waiting for it, and whatever it
 * does later reaches neither the state nor the control actions of the step.
 *
 * A tool that returns without a promise (or throws) has finished before any timer or abort could have
 * been handled, so its result stands as it is; only a tool that returns a promise is raced against the
 * run's abort and its deadline, and only then are a timer and a listener set up. The tool's own signal
 * is made when the tool reads it, already aborted if the run was.
 */
async function runWithDeadline(
  scope: StepScope,
  tool: AnyTool,
  args: unknown,
  call: ToolCallRecord,
  outcome: CallOutcome,
  state: TrackedState,
): Promise<ToolRun> {
  const started = performance.now();
  const wallMs = scope.deadline - Date.now();
  const ownLimit = scope.limits.maxToolTimeMs < wallMs;
  const budget = Math.max(0, ownLimit ? scope.limits.maxToolTimeMs : wallMs);
  let live = true;
  let controller: AbortController | undefined;
  /** Set once the tool's signal must fire: the reason it fires with. */
  let abortedWith: { reason: unknown } | undefined;
  const abortTool = (reason: unknown): void => {
    abortedWith ??= { reason };
    controller?.abort(reason);
  };
  const ctx: ToolContext = {
    state,
    invocationId: scope.invocationId,
    sessionId: scope.session.sessionId,
    userId: scope.session.userId,
    appName: scope.session.appName,
    agentName: scope.agent.name,
    toolCallId: call.toolCallId,
    idempotencyKey: idempotencyKeyOf(scope.session.sessionId, scope.invocationId, scope.stepId, call.toolCallId),
    // Made on demand: most tools never look at their signal, and making one is a measurable part of a step.
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (!abortedWith && scope.signal.aborted) abortedWith = { reason: scope.signal.reason };
        if (abortedWith) controller.abort(abortedWith.reason);
      }
      return controller.signal;
    },
    services: scope.services,
    actions: {
      transferToAgent: (name) => {
        const targets = scope.agent.transferTargets().map((a) => a.name);
        if (!targets.includes(name))
          throw new Error(`cannot transfer to "${name}"; possible: ${targets.join(', ') || 'none'}.`);
        if (live) outcome.transferTo = name;
      },
      escalate: (reason) => {
        if (live) outcome.escalate = reason ?? '';
      },
    },
  };
  const failed = (error: unknown): ToolRun => (scope.signal.aborted ? { kind: 'aborted' } : { kind: 'error', error });
  const { telemetry } = scope;
  let pending: PromiseLike<unknown>;
  if (telemetry) {
    const execute = async () => tool.execute(args, ctx);
    pending = (async () => telemetry.tool(call, scope.agent.name, execute))();
  } else {
    let value: unknown;
    try {
      value = tool.execute(args, ctx);
    } catch (error) {
      live = false;
      return failed(error);
    }
    if (!isThenable(value)) {
      live = false;
      return { kind: 'value', value };
    }
    pending = value;
  }
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const abandoned = new Promise<ToolRun>((resolve) => {
    onAbort = () => {
      abortTool(scope.signal.reason);
      // A tool that finishes as the run is aborted (or aborts it itself) keeps its result: only one still
      // running once pending callbacks have run is abandoned.
      setImmediate(() => resolve({ kind: 'aborted' }));
    };
    if (scope.signal.aborted) onAbort();
    else scope.signal.addEventListener('abort', onAbort, { once: true });
    if (budget <= MAX_TIMER_MS) {
      // The budget counts from the call: the tool's synchronous part has run already.
      timer = setTimeout(
        () => {
          abortTool(new Error(`limits.${ownLimit ? 'maxToolTimeMs' : 'maxWallTimeMs'} passed`));
          resolve({ kind: 'timeout', limit: ownLimit ? 'maxToolTimeMs' : 'maxWallTimeMs', ms: Math.round(budget) });
        },
        Math.max(0, budget - (performance.now() - started)),
      );
    }
  });
  const execution = Promise.resolve(pending).then((value): ToolRun => ({ kind: 'value', value }), failed);
  try {
    return await Promise.race([execution, abandoned]);
  } finally {
    live = false;
    clearTimeout(timer);
    if (onAbort) scope.signal.removeEventListener('abort', onAbort);
  }
}
