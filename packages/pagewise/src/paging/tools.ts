/**
 * The paging tools. Each returns a short receipt; page bodies never enter the history.
 */
import { z } from 'zod';
import { tool, type AnyTool } from '../agents/tool.js';
import type { JsonValue } from '../session/types.js';
import { setOwn } from '../util/own-field.js';
import { evaluate, extractNumbers } from './calculate.js';
import { SAVED_RESULT_ELIDED, SHOWN_PAGES_ELIDED, savedReceipt } from './paging-history.js';
import { RESULT_PREFIX, type PagingService } from './service.js';

const uriSchema = z.string().min(1).max(2048);

/**
 * Names of every paging tool, for processors that treat paging turns specially (recorded histories may hold
 * any of them). The tools offered to a model by default are {@link DEFAULT_PAGING_TOOLS}.
 */
export const PAGING_TOOL_NAMES = [
  'get_reports',
  'page_in',
  'page_out',
  'read_frame',
  'save_result',
  'list_results',
  'calculate',
] as const;

/**
 * The paging tools an adapter offers the model when it is not told which: every tool but `get_reports`.
 * `get_reports(urls)` is `page_in(uris)` in replace mode under the name the instruction-paging pattern uses;
 * offering both would give the model two tools for one action and spend a declaration on it in every request.
 * Name `get_reports` in the adapter's `tools` option to offer it (with `save_result`, as the pattern does).
 */
export const DEFAULT_PAGING_TOOLS: readonly (typeof PAGING_TOOL_NAMES)[number][] = PAGING_TOOL_NAMES.filter(
  (name) => name !== 'get_reports',
);

/** Options of {@link createPagingTools}. */
export interface PagingToolsOptions {
  /** Longest saved result in characters. Default 4,000. */
  maxResultChars?: number;
  /**
   * `save_result` releases the pages the model has seen, so they leave the instruction once their
   * result is saved (a page loaded in the same step stays). Default true; false keeps them until paged
   * out or replaced.
   */
  releaseOnSave?: boolean;
}

/** Saved results in state, by task id. */
export function savedResults(state: Readonly<Record<string, JsonValue>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(state))
    if (key.startsWith(RESULT_PREFIX) && typeof value === 'string') setOwn(out, key.slice(RESULT_PREFIX.length), value);
  return out;
}

/** The URIs, unless one is the placeholder a compacted history shows for a call's URI list. */
function notPlaceholder(uris: readonly string[]): string[] {
  if (uris.some((u) => u.trim() === SHOWN_PAGES_ELIDED))
    throw new RangeError(
      'a URI is the placeholder a compacted history shows for pages already in your instruction; name the pages by their URIs.',
    );
  return [...uris];
}

/**
 * Creates the paging tools bound to a service: `get_reports` (the name the instruction-paging pattern uses), `page_in`, `page_out`,
 * `read_frame`, `save_result`, `list_results` and `calculate`.
 */
export function createPagingTools(
  service: PagingService,
  options: PagingToolsOptions = {},
): Record<(typeof PAGING_TOOL_NAMES)[number], AnyTool> {
  const maxResultChars = options.maxResultChars ?? 4000;
  const releaseOnSave = options.releaseOnSave ?? true;
  const maxPages = service.maxPagesPerRead;
  return {
    // The two tools of the pattern go in every request: their declarations are kept to what the model
    // needs. Limits it cannot meet by accident (empty lists, overlong ids) are checked on execution.
    get_reports: tool({
      name: 'get_reports',
      description: `Load up to ${maxPages} reports by URL into your instruction, replacing the previous ones.`,
      inputSchema: z.object({ urls: z.array(z.string()).max(maxPages) }),
      execute: ({ urls }, ctx) => service.pageIn(notPlaceholder(urls), 'replace', ctx),
    }),
    page_in: tool({
      name: 'page_in',
      description: `Load up to ${maxPages} pages by URI into your instruction. mode "replace" (default) swaps out the current pages; "add" keeps them. Refused, changing nothing, if the working set would exceed its token budget.`,
      inputSchema: z.object({
        uris: z.array(uriSchema).min(1).max(maxPages),
        mode: z.enum(['replace', 'add']).optional(),
      }),
      execute: ({ uris, mode }, ctx) => service.pageIn(notPlaceholder(uris), mode ?? 'replace', ctx),
    }),
    page_out: tool({
      name: 'page_out',
      description: 'Remove pages from your instruction to free room.',
      inputSchema: z.object({ uris: z.array(uriSchema).min(1).max(100) }),
      execute: ({ uris }, ctx) => service.pageOut(uris, ctx),
    }),
    read_frame: tool({
      name: 'read_frame',
      description:
        'Load frame n (1-based) of a page too large to load whole; it replaces any other frame of that page.',
      inputSchema: z.object({ uri: uriSchema, n: z.number().int().min(1).max(100_000) }),
      execute: ({ uri, n }, ctx) => service.readFrame(uri, n, ctx),
    }),
    save_result: tool({
      name: 'save_result',
      description:
        'Save a result under a task id; it stays in your instruction' +
        (releaseOnSave ? ' and frees the pages read before.' : '.'),
      inputSchema: z.object({ task_id: z.string(), result: z.string() }),
      execute: async ({ task_id, result }, ctx) => {
        if (task_id.length < 1 || task_id.length > 200)
          throw new RangeError(`task_id must be 1 to 200 characters; it has ${task_id.length}.`);
        if (result.trim() === SAVED_RESULT_ELIDED)
          throw new RangeError(
            'the result is the placeholder a compacted history shows for an earlier saved result; write the result itself.',
          );
        if (result.length > maxResultChars)
          throw new RangeError(
            `the result has ${result.length} characters, over the limit of ${maxResultChars}; save a shorter one.`,
          );
        ctx.state.set(RESULT_PREFIX + task_id, result);
        const released = releaseOnSave ? await service.releaseSeen(ctx) : 0;
        return savedReceipt(released);
      },
    }),
    list_results: tool({
      name: 'list_results',
      description: 'List the saved results.',
      inputSchema: z.object({}),
      execute: (_args, ctx) => {
        const out: Record<string, string> = {};
        for (const key of ctx.state.keys(RESULT_PREFIX))
          setOwn(out, key.slice(RESULT_PREFIX.length), String(ctx.state.get(key)));
        return Object.keys(out).length ? JSON.stringify(out, null, 2) : 'No saved results.';
      },
    }),
    calculate: tool({
      name: 'calculate',
      description:
        'Evaluate arithmetic over the numbers of a stored page: $1, $2, ... are its numbers in order of appearance, $all is all of them; operators + - * / % ^ ( ) and sum, min, max, avg, count, round, abs.',
      inputSchema: z.object({ uri: uriSchema, expression: z.string().min(1).max(2000) }),
      execute: async ({ uri, expression }, ctx) => {
        await service.loadFenced(uri, ctx);
        const numbers = extractNumbers(await service.body(uri, ctx.sessionId));
        const value = evaluate(expression, numbers);
        return `${expression} = ${Number.isInteger(value) ? value : Number(value.toFixed(6))} (over ${numbers.length} numbers of ${uri})`;
      },
    }),
  };
}
