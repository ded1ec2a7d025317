/**
 * The plain context processors: full history (naive), FIFO (last N turns) and tool-result clearing.
 * Each keeps a tool call and its results together, by working on whole turns.
 */
import { groupTurns } from './history.js';
import type { ContextItem, ContextProcessor, ContextRequest, ProcessorContext } from './request.js';

/** The naive strategy: the full history as it is. A no-op, named for reports. */
export const naiveHistory: ContextProcessor = { name: 'naive', touches: [], process: () => {} };

/** Options of {@link fifoHistory}. */
export interface FifoOptions {
  /** Turns to keep (a turn is a user message, or a model response with its tool results). Default 5. */
  lastTurns?: number;
  /** Keep the user message that started the current invocation even when it is older. Default true. */
  keepTask?: boolean;
}

/** FIFO: keeps only the last N turns, like the `last_messages` truncation of hosted assistant APIs. */
export function fifoHistory(options: FifoOptions = {}): ContextProcessor {
  const lastTurns = options.lastTurns ?? 5;
  const keepTask = options.keepTask ?? true;
  if (!Number.isInteger(lastTurns) || lastTurns < 1)
    throw new RangeError(`fifoHistory: lastTurns must be an integer ≥ 1, got ${lastTurns}.`);
  return {
    name: `fifo(${lastTurns})`,
    touches: ['items'],
    process(request: ContextRequest, ctx: ProcessorContext) {
      const turns = groupTurns(request.items);
      if (turns.length <= lastTurns) return;
      const kept = turns.slice(turns.length - lastTurns);
      if (keepTask) {
        const taskTurn = findTaskTurn(turns, ctx.task);
        if (taskTurn && !kept.includes(taskTurn)) kept.unshift(taskTurn);
      }
      request.items = kept.flat();
    },
  };
}

function findTaskTurn(turns: ContextItem[][], task: string): ContextItem[] | undefined {
  for (let index = turns.length - 1; index >= 0; index--) {
    const first = turns[index]![0]!;
    if (first.type === 'user' && first.text === task) return turns[index];
  }
  return undefined;
}

/** Options of {@link clearToolResults}. */
export interface ClearToolResultsOptions {
  /** The most recent tool results to keep verbatim. Default 3. */
  keepLast?: number;
  /** Tools whose results are never cleared. */
  exclude?: string[];
  /** The text that replaces a cleared result. */
  placeholder?: string;
}

/**
 * Tool-result clearing: keeps the last K tool results and replaces older ones with a placeholder; the
 * calls stay, so the model knows what it did and may call again.
 */
export function clearToolResults(options: ClearToolResultsOptions = {}): ContextProcessor {
  const keepLast = options.keepLast ?? 3;
  const exclude = new Set(options.exclude ?? []);
  const placeholder = options.placeholder ?? '[result cleared to save context; call the tool again if you need it]';
  // One cleared copy per original item, so a result cleared at one step is the same object at the next,
  // and its count and rendering are reused rather than redone.
  const cleared = new WeakMap<ContextItem, ContextItem>();
  return {
    name: `clear-tool-results(${keepLast})`,
    touches: ['items'],
    process(request: ContextRequest) {
      let seen = 0;
      const items = request.items;
      for (let index = items.length - 1; index >= 0; index--) {
        const item = items[index]!;
        if (item.type !== 'tool-result' || exclude.has(item.toolName)) continue;
        seen += 1;
        if (seen <= keepLast || item.output === placeholder) continue;
        let copy = cleared.get(item);
        if (!copy) {
          copy = { ...item, output: placeholder };
          cleared.set(item, copy);
        }
        items[index] = copy;
      }
    },
  };
}
