/**
 * The `page_in` that follows a compressor's handles when the agent has no instruction paging: it returns the
 * raw results behind the handles as its own result, up to a token cap, so a compressed result is never a
 * dead end. With instruction paging, the paging tools' `page_in` (which loads pages into the instruction)
 * takes its place.
 */
import { z } from 'zod';
import { tool, type AnyTool } from '../agents/tool.js';
import { countTokens } from '../tokens/tokenizer.js';
import { headAtWordBoundary } from './token-budget.js';

/** Default cap of a `page_in` result, in tokens. */
export const DEFAULT_PAGE_IN_TOKENS = 16_000;

/** The raw text behind a handle, for a session, or undefined when there is none. */
export type RestoreHandle = (uri: string, sessionId: string) => Promise<string | undefined>;

/**
 * The text of a `page_in` of `uris`: each handle's raw result in turn, up to `maxTokens` in all; a URI that
 * is not a handle of a compressed result (`tool://…`) is refused in words.
 */
export async function pageInText(
  uris: readonly string[],
  restore: (uri: string) => Promise<string | undefined>,
  maxTokens: number,
): Promise<string> {
  const parts: string[] = [];
  let left = maxTokens;
  for (const uri of uris) {
    // Only the handles of compressed results: not any page the shared service may hold.
    const body = uri.startsWith('tool://') ? await restore(uri) : undefined;
    if (body === undefined) {
      parts.push(`${uri}: no such result (only the uris after "page_in uris" in a compressed result can be paged in).`);
      continue;
    }
    const tokens = countTokens(body);
    const shown = tokens <= left ? body : headAtWordBoundary(body, Math.max(0, left));
    left -= countTokens(shown);
    parts.push(
      shown === body
        ? `${uri}:\n${body}`
        : `${uri} (the first ${countTokens(shown)} of ${tokens} tokens; the rest is over the page_in limit of ${maxTokens}):\n${shown}`,
    );
  }
  return parts.join('\n\n');
}

/** Checks a `page_in` token cap. */
export function checkPageInTokens(owner: string, maxTokens: number): void {
  if (!Number.isInteger(maxTokens) || maxTokens < 1)
    throw new RangeError(`${owner}: maxPageInTokens must be an integer ≥ 1, got ${maxTokens}.`);
}

/** The `page_in` tool over `restore`, for the pagewise runner (the session is the calling one). */
export function handlePageInTool(restore: RestoreHandle, maxTokens: number = DEFAULT_PAGE_IN_TOKENS): AnyTool {
  return tool({
    name: 'page_in',
    description:
      'Return the full, uncompressed result behind the handles of compressed tool results (the uris after "page_in uris").',
    inputSchema: z.object({ uris: z.array(z.string().min(1).max(500)).min(1).max(10) }),
    execute: ({ uris }, ctx) => pageInText(uris, (uri) => restore(uri, ctx.sessionId), maxTokens),
  });
}
