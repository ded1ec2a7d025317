/**
 * Finding where an invocation stopped: resuming reads only what the store holds, so a crash, an abort
 * or an error between steps leaves enough behind to finish the step without asking the model again.
 */
import type { Session, SessionEvent, ToolCallRecord } from '../session/types.js';

/** An invocation that stopped before its end, found in a session's events. */
export interface Interrupted {
  invocationId: string;
  task: string;
  agentName: string;
  /** Tool calls of the last model event that have no result yet. */
  pending: ToolCallRecord[];
  /** Text of that model event. */
  text: string;
  /** Id of that model event: the step the pending calls belong to (part of their idempotency keys). */
  stepId: string;
}

/**
 * Finds the last invocation of a session if it did not end (no final answer, no escalation): its
 * task, the agent that spoke last, and the tool calls still waiting for results.
 */
export function findInterrupted(session: Session): Interrupted | undefined {
  let start = -1;
  for (let index = session.events.length - 1; index >= 0; index--) {
    const event = session.events[index]!;
    if (event.kind === 'user' && event.author === 'user') {
      start = index;
      break;
    }
  }
  if (start < 0) return undefined;
  const first = session.events[start] as Extract<SessionEvent, { kind: 'user' }>;
  let agentName: string | undefined;
  let lastModel: Extract<SessionEvent, { kind: 'model' }> | undefined;
  const answered = new Set<string>();
  for (let index = start; index < session.events.length; index++) {
    const event = session.events[index]!;
    if (event.invocationId !== first.invocationId) continue;
    if (event.kind === 'escalate') return undefined;
    if (event.kind === 'model') {
      if (event.toolCalls.length === 0 && event.text.trim()) return undefined;
      lastModel = event;
      agentName = event.author;
      // Only results after this response answer its calls: a model may reuse call ids across steps.
      answered.clear();
    }
    if (event.kind === 'transfer') agentName = event.to;
    if (event.kind === 'tool-result') answered.add(event.toolCallId);
  }
  const pending = lastModel ? lastModel.toolCalls.filter((c) => !answered.has(c.toolCallId)) : [];
  return {
    invocationId: first.invocationId,
    task: first.text,
    agentName: agentName ?? '',
    pending,
    text: lastModel?.text ?? '',
    stepId: lastModel?.id ?? '',
  };
}
