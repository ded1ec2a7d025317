/**
 * Picks a short title for a text document, shared by every source so that titles look alike whatever
 * the document came from.
 */

/** Titles longer than this are cut; a title is a label in a listing, not a summary. */
const MAX_TITLE_CHARS = 120;

// Kept free of nested or lazy quantifiers so a hostile multi-megabyte line cannot make it backtrack.
const ATX_HEADING = /^ {0,3}#{1,6}[ \t](.*)$/m;

/**
 * The first Markdown heading of `text`, else its first line that has a letter or digit (so a lone `{`
 * or `---` is skipped), else `fallback`. Whitespace is collapsed and the result capped at 120
 * characters.
 */
export function titleFromText(text: string, fallback: string): string {
  const heading = ATX_HEADING.exec(text)?.[1]
    ?.slice(0, 1000)
    .replace(/[ \t]#+[ \t]*$/, '');
  if (heading !== undefined && /[\p{L}\p{N}]/u.test(heading)) return clip(heading);
  // Only the start of the document is scanned: a title that appears after 2 KB is not a title.
  for (const line of text.slice(0, 2048).split(/\r?\n/)) {
    if (/[\p{L}\p{N}]/u.test(line)) return clip(line);
  }
  return clip(fallback);
}

function clip(text: string): string {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed.length <= MAX_TITLE_CHARS ? collapsed : `${collapsed.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…`;
}
