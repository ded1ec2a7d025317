/**
 * A context processor for paging agents: turns that only moved pages (get_reports, page_in, page_out,
 * read_frame, save_result) carry nothing once they are done, because their effect lives in state and
 * shows in the instruction. Older such turns are dropped from the request, whole, so history stays flat
 * however many batches are read. In the turns kept, what the instruction shows is not repeated: the text of
 * a saved result becomes {@link SAVED_RESULT_ELIDED}, and the URI list of a call that loaded pages the
 * instruction's fenced block shows becomes {@link SHOWN_PAGES_ELIDED}. A kept turn left with nothing the
 * instruction does not show (every call elided, plain receipts, no text) is dropped too: the fenced block's
 * preface already says how many pages are loaded, and the saved results are listed. The events stay in the
 * session.
 */
import { groupTurns } from '../context/history.js';
import type { ContextItem, ContextProcessor, InstructionSection } from '../context/request.js';
import { fencedPageUris } from './fence.js';

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
  /**
   * In the paging turns kept, replace the URI list of a successful `get_reports` or `page_in` call by
   * {@link SHOWN_PAGES_ELIDED} when every page it names is in the instruction's fenced block of this
   * request: the block's page headers list them already. Default true.
   */
  elideShownPages?: boolean;
  /**
   * Keep a paging turn among the newest `keepLast` even when the instruction shows everything it says:
   * every call elided (saved result shown, every page loaded shown), receipts that only confirm
   * ("10 loaded.", "Saved; 10 pages released."), and no text. Default false: such a turn costs tokens at every
   * call and repeats the block's preface ("Saved results and 10 loaded pages follow"). Turn it on if a
   * model needs to see its own last paging call to continue.
   */
  keepShownTurns?: boolean;
}

/**
 * What the URI list of a page-loading call reads as in a compacted history when the instruction shows
 * every page it loaded. As a URI it names no page, so a model that copies it loads nothing.
 */
export const SHOWN_PAGES_ELIDED = '[loaded: the pages in your instruction]';

/**
 * What a `save_result` call's result reads as in a compacted history. `save_result` refuses it as a result,
 * so a model that copies it from its history cannot overwrite what it saved.
 */
export const SAVED_RESULT_ELIDED = '[saved: shown in your instruction]';

/** The receipt of a load of `count` whole pages: what the tool says when the instruction shows the rest. */
export function loadedReceipt(count: number): string {
  return `${count} loaded.`;
}

/** The receipt of `save_result`, with the pages it released. */
export function savedReceipt(released: number): string {
  return released ? `Saved; ${released} pages released.` : 'Saved.';
}

/** Whether a tool result is one of the receipts above, which only confirm what the instruction then shows. */
function isPlainReceipt(text: string): boolean {
  const count = Number(/\d+/u.exec(text)?.[0] ?? 0);
  return text === loadedReceipt(count) || text === savedReceipt(count);
}

/**
 * Whether a turn says nothing its instruction does not show: `elided` is `turn` after {@link elideShown},
 * and every call in it was elided, every result is a plain receipt, and the model wrote no text.
 */
function fullyShown(turn: readonly ContextItem[], elided: readonly ContextItem[]): boolean {
  return turn.every((item, index) => {
    if (item.type === 'tool-result') return !item.isError && isPlainReceipt(item.output);
    if (item.type !== 'assistant') return false;
    const copy = elided[index]!;
    return (
      item.text.trim() === '' &&
      copy.type === 'assistant' &&
      copy.toolCalls.every((call, j) => call !== item.toolCalls[j])
    );
  });
}

// One copy per original item, so a step reuses the copy (and its cached token count) of the step before.
const elidedCopies = new WeakMap<ContextItem, { key: string; copy: ContextItem }>();

// The argument holding the URI list of each page-loading tool.
const URI_LISTS: ReadonlyMap<string, string> = new Map([
  ['get_reports', 'urls'],
  ['page_in', 'uris'],
]);

/**
 * The turn with what the instruction shows elided from its successful calls: the `result` of `save_result`
 * (when `saved`) and the URI list of a page-loading call whose pages are all in `shown`. The items changed
 * are copies, one per original item and set of shown pages, so a step reuses the copy of the step before.
 */
function elideShown(
  turn: readonly ContextItem[],
  saved: boolean,
  shown: ReadonlySet<string>,
  key: string,
): ContextItem[] {
  const failed = new Set(turn.flatMap((x) => (x.type === 'tool-result' && x.isError ? [x.toolCallId] : [])));
  return turn.map((item) => {
    if (item.type !== 'assistant') return item;
    const known = elidedCopies.get(item);
    if (known?.key === key) return known.copy;
    let changed = false;
    const toolCalls = item.toolCalls.map((call) => {
      if (failed.has(call.toolCallId)) return call;
      const input = typeof call.input === 'string' ? parseObject(call.input) : call.input;
      if (typeof input !== 'object' || input === null) return call;
      const args = input as Record<string, unknown>;
      if (saved && call.toolName === 'save_result' && typeof args.result === 'string') {
        changed = true;
        return { ...call, input: { ...args, result: SAVED_RESULT_ELIDED } };
      }
      const listKey = URI_LISTS.get(call.toolName);
      const list = listKey === undefined ? undefined : args[listKey];
      if (
        listKey !== undefined &&
        Array.isArray(list) &&
        list.length > 0 &&
        list.every((u) => typeof u === 'string' && shown.has(u))
      ) {
        changed = true;
        return { ...call, input: { ...args, [listKey]: [SHOWN_PAGES_ELIDED] } };
      }
      return call;
    });
    if (!changed) return item;
    const copy = { ...item, toolCalls };
    elidedCopies.set(item, { key, copy });
    return copy;
  });
}

/** The URIs of the pages in the fenced blocks of the instruction. */
function shownPages(instruction: readonly InstructionSection[]): Set<string> {
  const uris = new Set<string>();
  for (const section of instruction)
    if (section.text.includes('<<<PAGE')) for (const uri of fencedPageUris(section.text)) uris.add(uri);
  return uris;
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
  const elidePages = options.elideShownPages ?? true;
  const keepShown = options.keepShownTurns ?? false;
  const tools = new Set(options.tools ?? DEFAULT_TOOLS);
  return {
    name: `compact-paging-turns(${keepLast})`,
    process(request) {
      const turns = groupTurns(request.items);
      const shown = elidePages ? shownPages(request.instruction) : new Set<string>();
      // The copies depend on what is elided: whether saved results are, and which pages are shown.
      const key = `${elide}\n${[...shown].join('\n')}`;
      let seen = 0;
      const kept = [];
      for (let index = turns.length - 1; index >= 0; index--) {
        const turn = turns[index]!;
        const head = turn[0]!;
        const paging =
          head.type === 'assistant' &&
          head.toolCalls.length > 0 &&
          head.toolCalls.every((c) => tools.has(c.toolName)) &&
          !turn.some((x) => x.type === 'tool-result' && x.isError);
        if (paging) {
          seen += 1;
          if (seen > keepLast) continue;
          const elided = elide || shown.size > 0 ? elideShown(turn, elide, shown, key) : turn;
          if (!keepShown && elided !== turn && fullyShown(turn, elided)) continue;
          kept.push(elided);
          continue;
        }
        kept.push(turn);
      }
      request.items = kept.reverse().flat();
    },
  };
}
