/**
 * A context processor for paging agents: turns that only moved pages (get_reports, page_in, page_out,
 * read_frame, save_result) carry nothing once they are done, because their effect lives in state and
 * shows in the instruction. Older such turns are dropped from the request, whole, so history stays flat
 * however many batches are read; in the turns kept, the text of a saved result (which the instruction
 * shows under the saved results) is replaced by {@link SAVED_RESULT_ELIDED}. The events stay in the session.
 */
import { groupTurns } from '../context/history.js';
import type { ContextItem, ContextProcessor } from '../context/request.js';

/** Options of {@link compactPagingTurns}. */
export interface CompactPagingTurnsOptions {
  /** Paging turns to keep, newest first. Default 1. */
  keepLast?: number;
  /** Tools whose turns count as paging turns. */
  tools?: readonly string[];
  /**
   * In the paging turns kept, replace the `result` argument of a successful `save_result` call by
   * {@link SAVED_RESULT_ELIDED}: the result is in the instruction already (saved results are shown there),
   * so the copy in the call only repeats it. Default true; turn it off when saved results are not shown.
   */
  elideSavedResults?: boolean;
}

/**
 * What a `save_result` call's result reads as in a compacted history. `save_result` refuses it as a result,
 * so a model that copies it from its history cannot overwrite what it saved.
 */
export const SAVED_RESULT_ELIDED = '[saved: shown under the saved results of your instruction]';

// One copy per original item, so a step reuses the copy (and its cached token count) of the step before.
const elidedCopies = new WeakMap<ContextItem, ContextItem>();

/** The turn with the `result` argument of its successful `save_result` calls elided; the items are copies. */
function elideSaved(turn: readonly ContextItem[]): ContextItem[] {
  const failed = new Set(turn.flatMap((x) => (x.type === 'tool-result' && x.isError ? [x.toolCallId] : [])));
  return turn.map((item) => {
    if (item.type !== 'assistant' || !item.toolCalls.some((c) => c.toolName === 'save_result')) return item;
    const known = elidedCopies.get(item);
    if (known) return known;
    const toolCalls = item.toolCalls.map((call) => {
      if (call.toolName !== 'save_result' || failed.has(call.toolCallId)) return call;
      const input = typeof call.input === 'string' ? parseObject(call.input) : call.input;
      if (typeof input !== 'object' || input === null || typeof (input as { result?: unknown }).result !== 'string')
        return call;
      return { ...call, input: { ...(input as object), result: SAVED_RESULT_ELIDED } };
    });
    const copy = { ...item, toolCalls };
    elidedCopies.set(item, copy);
    return copy;
  });
}

function parseObject(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const DEFAULT_TOOLS = ['get_reports', 'page_in', 'page_out', 'read_frame', 'save_result'];

/** Creates the processor. */
export function compactPagingTurns(options: CompactPagingTurnsOptions = {}): ContextProcessor {
  const keepLast = options.keepLast ?? 1;
  const elide = options.elideSavedResults ?? true;
  const tools = new Set(options.tools ?? DEFAULT_TOOLS);
  return {
    name: `compact-paging-turns(${keepLast})`,
    process(request) {
      const turns = groupTurns(request.items);
      let seen = 0;
      const kept = [];
      for (let i = turns.length - 1; i >= 0; i--) {
        const turn = turns[i]!;
        const head = turn[0]!;
        const paging =
          head.type === 'assistant' &&
          head.toolCalls.length > 0 &&
          head.toolCalls.every((c) => tools.has(c.toolName)) &&
          !turn.some((x) => x.type === 'tool-result' && x.isError);
        if (paging) {
          seen += 1;
          if (seen > keepLast) continue;
          kept.push(elide ? elideSaved(turn) : turn);
          continue;
        }
        kept.push(turn);
      }
      request.items = kept.reverse().flat();
    },
  };
}
