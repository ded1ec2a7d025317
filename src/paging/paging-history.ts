/**
 * A context processor for paging agents: turns that only moved pages (get_reports, page_in, page_out,
 * read_frame, save_result) carry nothing once they are done, because their effect lives in state and
 * shows in the instruction. Older such turns are dropped from the request, whole, so history stays flat
 * however many batches are read. The events stay in the session.
 */
import { groupTurns } from '../context/history.js';
import type { ContextProcessor } from '../context/request.js';

/** Options of {@link compactPagingTurns}. */
export interface CompactPagingTurnsOptions {
  /** Paging turns to keep, newest first. Default 1. */
  keepLast?: number;
  /** Tools whose turns count as paging turns. */
  tools?: readonly string[];
}

const DEFAULT_TOOLS = ['get_reports', 'page_in', 'page_out', 'read_frame', 'save_result'];

/** Creates the processor. */
export function compactPagingTurns(options: CompactPagingTurnsOptions = {}): ContextProcessor {
  const keepLast = options.keepLast ?? 1;
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
        }
        kept.push(turn);
      }
      request.items = kept.reverse().flat();
    },
  };
}
