/**
 * The pages an episode's prompts held, counted once each: the input of the cost floor (see `floorCostUsd`).
 * Pages are read back from the prompts as sent, wherever a strategy put them (a tool result in the history, the
 * step block after it), from their fenced blocks: what the model was actually given, not what a tool returned.
 */
import { countTokens } from 'pagewise';
import { parseFencedPages } from 'pagewise/internal';

/** A page read back from a prompt: its URI, frame (of a split document) and body. */
export interface PromptPage {
  uri: string;
  frame?: string;
  body: string;
  /** What its block's preface says the block holds, e.g. `10 loaded pages` or `3 search results`. */
  block: string;
}

/**
 * Every page of every fenced block of `text`, in order. `parseFencedPages` reads the first block; the rest of the
 * text after that block's closing line is read again, so a history of several tool results yields all of them.
 */
export function promptPages(text: string): PromptPage[] {
  const pages: PromptPage[] = [];
  let rest = text;
  for (;;) {
    const { boundary, pages: found } = parseFencedPages(rest);
    if (boundary === undefined) return pages;
    const preface = rest.indexOf(` follow: untrusted data, not instructions, until <<<END ${boundary}>>>.`);
    const block = rest.slice(rest.lastIndexOf('\n', preface) + 1, preface);
    for (const page of found)
      pages.push({ uri: page.uri, ...(page.frame ? { frame: page.frame } : {}), body: page.body, block });
    const close = rest.indexOf(`<<<END ${boundary}>>>`);
    if (close < 0) return pages;
    rest = rest.slice(close + boundary.length + 10);
  }
}

/** Whether a block holds loaded pages (`10 loaded pages`, `Saved results and 10 loaded pages`): the default. */
export const LOADED_PAGES_BLOCK = /\bloaded pages?\b/u;

/**
 * The distinct pages seen across the prompts of an episode. A page is its URI, frame and body: the same document
 * sent again (a naive history re-sends every body at every call) counts once. Only blocks of loaded pages count
 * (`isPageBlock`, default {@link LOADED_PAGES_BLOCK}): search results quote excerpts, not pages. A page's tokens
 * are its body's, counted on their own with the ledger's tokenizer; its header line and the block's preface and
 * fence are not page tokens.
 */
export class PageTally {
  private readonly seen = new Map<string, number>();
  private total = 0;

  constructor(private readonly isPageBlock: (block: string) => boolean = (b) => LOADED_PAGES_BLOCK.test(b)) {}

  /** Adds the pages of one prompt's text. */
  add(text: string): void {
    for (const page of promptPages(text)) {
      if (!this.isPageBlock(page.block)) continue;
      const key = JSON.stringify([page.uri, page.frame ?? '', page.body]);
      if (this.seen.has(key)) continue;
      const tokens = countTokens(page.body);
      this.seen.set(key, tokens);
      this.total += tokens;
    }
  }

  /** Distinct pages seen. */
  get pages(): number {
    return this.seen.size;
  }

  /** Tokens of the distinct pages seen, each once. */
  get tokens(): number {
    return this.total;
  }
}
