/**
 * The tool half of a step: run the calls of one model response concurrently (those over the per-step
 * limit are refused), then store the model event, the results in call order, a summary of dropped calls
 * and the escalation or transfer the results asked for, as one atomic append.
 */
import { withTokenCounts } from '../context/history.js';
import type { SessionStore } from '../session/store.js';
import { stateSource, type StateSource } from '../session/tracked-state.js';
import type { SessionEvent, ToolCallRecord } from '../session/types.js';
import type { EncodingName } from '../tokens/tokenizer.js';
import type { Agent } from './agent.js';
import { droppedCallsMessage, type ParsedResponse } from './model-call.js';
import { appendWithRetry, escalationOf, reconcile, resultEvent, transferNameOf } from './step-commit.js';
import { executeCall, refusedOutcome, type CallOutcome, type StepScope } from './tool-execution.js';

/** New event fields: id, invocation, time. */
export type EventBase = () => { id: string; invocationId: string; timestamp: number };

/** The agent the outcomes transfer to, found in the tree of `root`; undefined when none or the same. */
export function transferTarget(root: Agent, from: Agent, outcomes: readonly CallOutcome[]): Agent | undefined {
  const name = transferNameOf(outcomes);
  return name && name !== from.name ? root.find(name) : undefined;
}

/** The escalation or transfer event a step's outcomes ask for (an escalation wins). */
export function controlEvents(
  base: EventBase,
  root: Agent,
  from: Agent,
  outcomes: readonly CallOutcome[],
  text: string,
): SessionEvent[] {
  const escalation = escalationOf(outcomes);
  if (escalation !== undefined) return [{ ...base(), kind: 'escalate', author: from.name, reason: escalation || text }];
  const next = transferTarget(root, from, outcomes);
  return next ? [{ ...base(), kind: 'transfer', author: from.name, from: from.name, to: next.name }] : [];
}

/** What storing a tool step needs besides the step's scope. */
export interface ToolStep {
  store: SessionStore;
  root: Agent;
  base: EventBase;
  /** The model event: appended with the results, or undefined when it was written ahead of the tools. */
  modelEvent: SessionEvent | undefined;
  response: Pick<ParsedResponse, 'text' | 'toolCalls' | 'dropped'>;
  /** The encoding the agent's model counts with: the step's events are stored with their counts in it. */
  encoding: EncodingName;
}

/** Runs a response's calls and stores the step; returns the stored events and the calls' outcomes. */
export async function runToolStep(
  scope: StepScope,
  step: ToolStep,
): Promise<{ events: SessionEvent[]; outcomes: CallOutcome[] }> {
  const { session, limits, agent } = scope;
  const { toolCalls, dropped, text } = step.response;
  const run = (call: ToolCallRecord, source: StateSource = stateSource(session.state)) =>
    executeCall(scope, call, source);
  const total = toolCalls.length + dropped.count;
  const outcomes = await Promise.all(
    toolCalls.map((call, index) =>
      index < limits.maxToolCallsPerStep ? run(call) : Promise.resolve(refusedOutcome(call, total, limits)),
    ),
  );
  // Each attempt first re-runs the calls whose reads went stale, so results hold against what is stored.
  const events = await appendWithRetry(step.store, session, limits.maxConflictRetries, async () => {
    await reconcile(session, toolCalls, outcomes, run);
    const out: SessionEvent[] = step.modelEvent ? [step.modelEvent] : [];
    for (const outcome of outcomes) out.push(resultEvent(outcome, step.base(), agent.name));
    if (dropped.count > 0)
      out.push({ ...step.base(), kind: 'user', author: 'pagewise', text: droppedCallsMessage(dropped, limits) });
    out.push(...controlEvents(step.base, step.root, agent, outcomes, text));
    return withTokenCounts(out, step.encoding);
  });
  return { events, outcomes };
}

/** Finishes the calls an interrupted step left without results, and stores them as that step's end. */
export async function finishPendingCalls(
  scope: StepScope,
  step: Omit<ToolStep, 'modelEvent' | 'response'> & { pending: readonly ToolCallRecord[]; text: string },
): Promise<{ events: SessionEvent[]; outcomes: CallOutcome[] }> {
  const { session, agent, limits } = scope;
  const outcomes = await Promise.all(step.pending.map((call) => executeCall(scope, call, stateSource(session.state))));
  const built = outcomes.map((o) => resultEvent(o, step.base(), agent.name));
  built.push(...controlEvents(step.base, step.root, agent, outcomes, step.text));
  withTokenCounts(built, step.encoding);
  const events = await appendWithRetry(step.store, session, limits.maxConflictRetries, () => built);
  return { events, outcomes };
}
