/**
 * Turns HTML into the plain text an agent should read: what a person sees in the page body, without
 * markup, scripts, navigation or images, and with table rows as ` | `-delimited lines (see html-table.ts).
 */
import { createRequire } from 'node:module';
import type { compile as Compile } from 'html-to-text';
import { delimitedTable } from './html-table.js';

// Loaded and compiled on first use: an agent that never reads HTML does not pay for the parser.
const requireCjs = createRequire(import.meta.url);
let converters: { body: (html: string) => string; title: (html: string) => string } | undefined;

/** The readable form of an HTML document. */
export interface ReadableText {
  /** The text of `<title>`, whitespace collapsed; empty when the page has none. */
  title: string;
  /** The body as plain text. */
  text: string;
}

// Compiled once: compiling the selector set is the costly part of html-to-text, not converting.
function compileConverters(compile: typeof Compile): NonNullable<typeof converters> {
  const body = compile({
    // Wrapping would only add line breaks that cost tokens and split phrases a search should match.
    wordwrap: false,
    formatters: { delimitedTable },
    selectors: [
      // The link text is kept; the address is dropped because it rarely helps reading and costs tokens.
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'nav', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
      { selector: 'noscript', format: 'skip' },
      { selector: 'template', format: 'skip' },
      { selector: 'svg', format: 'skip' },
      { selector: 'iframe', format: 'skip' },
      { selector: 'object', format: 'skip' },
      { selector: 'canvas', format: 'skip' },
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
      // Every table, not only the ones html-to-text would recognise as data tables, keeps its rows and cells.
      { selector: 'table', format: 'delimitedTable' },
    ],
  });

  const title = compile({
    wordwrap: false,
    baseElements: { selectors: ['title'], returnDomByDefault: false },
  });
  return { body, title };
}

/**
 * Converts an HTML document to readable text and extracts its title.
 *
 * @example
 * const { title, text } = htmlToReadableText('<title>Report</title><h1>Q3</h1><p>Revenue grew.</p>');
 * // title === 'Report', text === 'Q3\n\nRevenue grew.'
 */
export function htmlToReadableText(html: string): ReadableText {
  converters ??= compileConverters((requireCjs('html-to-text') as { compile: typeof Compile }).compile);
  return {
    title: converters.title(html).replace(/\s+/g, ' ').trim(),
    text: converters.body(html).trim(),
  };
}
