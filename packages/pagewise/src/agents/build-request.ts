/**
 * Building the request of one model call: the agent's instruction, the session's history as items, the
 * tool definitions, then the context processors in order, each checked for keeping tool pairs intact.
 */
import { randomUUID } from 'node:crypto';
import { SystemError } from '../errors.js';
import { eventsToItems } from '../context/history.js';
import type { RequestHistory } from '../context/request-history.js';
import {
  findBrokenToolPair,
  touchesItems,
  type ContextItem,
  type ContextProcessor,
  type ContextRequest,
  type InstructionSection,
  type ProcessorContext,
  type ToolDefinition,
} from '../context/request.js';
import type { SessionStore } from '../session/store.js';
import type { Session } from '../session/types.js';
import type { InvocationTelemetry } from '../telemetry/types.js';
import type { Ledger } from '../tokens/ledger.js';
import type { Agent } from './agent.js';

/** What the request of one step is built from. */
export interface RequestScope {
  agent: Agent;
  session: Session;
  invocationId: string;
  task: string;
  tools: readonly ToolDefinition[];
  processors: readonly ContextProcessor[];
  services: ReadonlyMap<string, unknown>;
  store: SessionStore;
  signal: AbortSignal;
  ledger: Ledger;
  /** Spans for each processor, when the runner has telemetry. */
  telemetry?: InvocationTelemetry | undefined;
  /**
   * The session's history kept between steps: synced with the session's events, and its items handed
   * to the processors without a copy when none of them may change items. Without it the items are
   * converted from the events (and copied).
   */
  history?: RequestHistory | undefined;
  /** Told of each compaction a processor appends while the request is built (the ledger marks the call). */
  onCompaction?: (() => void) | undefined;
}

/** Builds the request for the next model call: instruction, history, tools, then the processors. */
export async function buildRequest(scope: RequestScope): Promise<ContextRequest> {
  const { agent, session, invocationId, store } = scope;
  const instruction: InstructionSection[] = [];
  const raw =
    typeof agent.instruction === 'string'
      ? agent.instruction
      : await agent.instruction({
          state: session.state,
          session,
          invocationId,
          agentName: agent.name,
          services: scope.services,
        });
  if (typeof raw === 'string') {
    if (raw) instruction.push({ part: 'instruction', text: raw, source: agent.name });
  } else instruction.push(...raw);
  let items: ContextItem[];
  if (scope.history) {
    scope.history.sync(session.events);
    // Processors that may change items get a copy, so the kept history stays as the events say.
    items = scope.processors.some(touchesItems) ? scope.history.items.slice() : scope.history.items;
  } else items = eventsToItems(session.events);
  const request: ContextRequest = { instruction, items, tools: [...scope.tools] };
  const ctx: ProcessorContext = {
    session,
    invocationId,
    agentName: agent.name,
    task: scope.task,
    services: scope.services,
    signal: scope.signal,
    ledger: scope.ledger,
    appendCompaction: async (compaction) => {
      await store.appendEvent(session, {
        id: randomUUID(),
        invocationId,
        author: agent.name,
        timestamp: Date.now(),
        kind: 'compaction',
        fromEventId: compaction.fromEventId,
        toEventId: compaction.toEventId,
        summary: compaction.summary,
        ...(compaction.guideline !== undefined ? { guideline: compaction.guideline } : {}),
      });
      scope.onCompaction?.();
    },
  };
  for (const processor of scope.processors) {
    const run = async () => processor.process(request, ctx);
    await (scope.telemetry ? scope.telemetry.processor(processor.name, 'context', run) : run());
    if (!touchesItems(processor)) continue;
    const broken = findBrokenToolPair(request.items);
    if (broken)
      throw new SystemError(
        'broken-tool-pair',
        `Context processor "${processor.name}" separated a tool call from its result: ${broken}. This is a bug in that processor.`,
      );
  }
  return request;
}
