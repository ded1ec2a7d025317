/**
 * Replay: each trace is run again through a strategy's processors, request by request, as the runner
 * would have built them (events → history items → context processors; tool results through the
 * observation processors before they enter history), without a model: the model's responses are the
 * trace's. Every request is measured with the project's tokenizer, and at every model call that used a
 * value from an earlier observation, the request is checked for that value.
 */
import type { Session, SessionEvent } from 'pagewise';
import type { ObservationContext, ToolObservation } from 'pagewise/context';
import { eventsToItems, itemText, measureRequest, ownValue, setOwn } from 'pagewise/internal';
import { Ledger, countTokens } from 'pagewise';
import { type ContextItem, type ContextRequest, type ProcessorContext } from 'pagewise/context';
import type { ReplayStrategy } from './strategies.js';
import type { ReplayTrace } from './trace.js';
import { holdsValue, usedLaterValues, type ValueUse } from './values.js';

/** One used-later value at one model call, as a strategy left it. */
export interface UseOutcome {
  /** Index into {@link TraceAnalysis.uses}. */
  use: number;
  /** Whether the request of the call still held the value. */
  present: boolean;
  /** When lost: what the request held of the observation instead (its compressed text, a placeholder, a summary). */
  keptInstead?: string;
}

/** A trace replayed under one strategy. */
export interface TraceReplay {
  traceId: string;
  strategy: string;
  /** Model calls replayed. */
  calls: number;
  /** Prompt tokens of the largest request. */
  peakTokens: number;
  /** Prompt tokens summed over the requests. */
  cumulativeTokens: number;
  /** Prompt tokens per request, in order. */
  requestTokens: number[];
  /** Tokens of each tool's results summed over the requests (`(summary)` for history summaries). */
  toolTokens: Record<string, number>;
  outcomes: UseOutcome[];
}

/** What a trace says was used, independent of any strategy. */
export interface TraceAnalysis {
  trace: ReplayTrace;
  uses: ValueUse[];
  /** Model call number (1-based) of each item index that is a model call. */
  callNumber: Map<number, number>;
}

/** Finds the used-later values of a trace. */
export function analyzeTrace(trace: ReplayTrace): TraceAnalysis {
  const callNumber = new Map<number, number>();
  let calls = 0;
  trace.items.forEach((item, index) => {
    if (item.type === 'assistant') callNumber.set(index, ++calls);
  });
  return { trace, uses: usedLaterValues(trace.items), callNumber };
}

const EXCERPT_CHARS = 240;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}

/** What the request holds of an observation: its tool result as processed, else a summary, else nothing. */
function keptOf(items: readonly ContextItem[], toolCallId: string): string {
  const result = items.find((item) => item.type === 'tool-result' && item.toolCallId === toolCallId);
  if (result && result.type === 'tool-result') return excerpt(result.output);
  const summary = items.find((item) => item.type === 'summary');
  if (summary) return `(in a summary) ${excerpt(summary.text)}`;
  return '(dropped from the history)';
}

let eventCounter = 0;

/** Replays one trace under one strategy. */
export async function replayTrace(analysis: TraceAnalysis, strategy: ReplayStrategy): Promise<TraceReplay> {
  const { trace, uses } = analysis;
  const { observation, history } = strategy.create();
  const session: Session = {
    appName: 'replay',
    userId: 'replay',
    sessionId: `${trace.id}#${strategy.name}`,
    state: {},
    events: [],
    version: 0,
    createdAt: 0,
    updatedAt: 0,
  };
  const ledger = new Ledger();
  const signal = new AbortController().signal;
  const services = new Map<string, unknown>();
  const instruction = trace.system ? [{ part: 'instruction' as const, text: trace.system }] : [];
  const usesAt = new Map<number, number[]>();
  uses.forEach((use, i) => usesAt.set(use.useIndex, [...(usesAt.get(use.useIndex) ?? []), i]));
  const base = { invocationId: 'inv-0', author: 'replay', timestamp: 0 };
  let invocation = 0;
  let task = '';
  let lastItems: ContextItem[] = [];
  const calls = new Map<string, unknown>();
  type Fields<E> = E extends SessionEvent ? Omit<E, 'id' | 'invocationId' | 'author' | 'timestamp'> : never;
  const append = (event: Fields<SessionEvent>): void => {
    session.events.push({
      ...base,
      invocationId: `inv-${invocation}`,
      id: `r${++eventCounter}`,
      ...event,
    } as SessionEvent);
    session.version += 1;
  };
  const result: TraceReplay = {
    traceId: trace.id,
    strategy: strategy.name,
    calls: 0,
    peakTokens: 0,
    cumulativeTokens: 0,
    requestTokens: [],
    toolTokens: {},
    outcomes: [],
  };

  for (const [index, item] of trace.items.entries()) {
    if (item.type === 'user') {
      invocation += 1;
      task = item.text;
      append({ kind: 'user', text: item.text });
    } else if (item.type === 'summary') {
      append({ kind: 'user', text: item.text });
    } else if (item.type === 'tool-result') {
      let obs: ToolObservation = {
        toolCallId: item.toolCallId,
        toolName: item.toolName,
        input: calls.get(item.toolCallId) ?? {},
        output: item.output,
        isError: item.isError,
      };
      const ctx: ObservationContext = {
        invocationId: `inv-${invocation}`,
        agentName: 'replay',
        sessionId: session.sessionId,
        task,
        recentItems: lastItems,
        services,
        ledger,
        signal,
      };
      for (const processor of observation) obs = await processor.process(obs, ctx);
      append({
        kind: 'tool-result',
        toolCallId: obs.toolCallId,
        toolName: obs.toolName,
        output: obs.output,
        isError: obs.isError,
      });
    } else {
      const request: ContextRequest = { instruction, items: eventsToItems(session.events), tools: [] };
      const ctx: ProcessorContext = {
        session,
        invocationId: `inv-${invocation}`,
        agentName: 'replay',
        task,
        services,
        signal,
        ledger,
        appendCompaction: async (compaction) => {
          append({ kind: 'compaction', ...compaction });
        },
      };
      for (const processor of history) await processor.process(request, ctx);
      const total = measureRequest(request).total;
      result.calls += 1;
      result.requestTokens.push(total);
      result.cumulativeTokens += total;
      result.peakTokens = Math.max(result.peakTokens, total);
      for (const it of request.items) {
        const key = it.type === 'tool-result' ? it.toolName : it.type === 'summary' ? '(summary)' : undefined;
        // A trace names its own tools: `constructor` must not find Object, nor `__proto__` set a prototype.
        if (key !== undefined)
          setOwn(result.toolTokens, key, (ownValue(result.toolTokens, key) ?? 0) + countTokens(itemText(it)));
      }
      const pending = usesAt.get(index);
      if (pending) {
        const seen = [trace.system, ...request.items.map(itemText)].join('\n').toLowerCase();
        for (const useIndex of pending) {
          const use = uses[useIndex]!;
          const present = holdsValue(seen, use.value);
          result.outcomes.push({
            use: useIndex,
            present,
            ...(present ? {} : { keptInstead: keptOf(request.items, use.toolCallId) }),
          });
        }
      }
      lastItems = request.items;
      for (const call of item.toolCalls) calls.set(call.toolCallId, call.input);
      append({ kind: 'model', text: item.text, toolCalls: item.toolCalls });
    }
  }
  return result;
}
