/**
 * Whitespace a reader does not need, removed without touching a word: the lossless first step of
 * compression, which an LLM reads the same and pays fewer tokens for.
 */

// Runs of white space: what `\s` matches, the characters `trim()` removes. Only `split` and `replace` run it,
// and neither reads nor leaves its `lastIndex`: the `g` flag keeps no state between callers.
const WHITESPACE_RUN = /\s+/gu;
const LINE_BREAK = /\r?\n/u;

/** The lines of `text`, `\r\n` read as `\n`. */
export function splitLines(text: string): string[] {
  return text.split(LINE_BREAK);
}

/** `text` cut at each run of white space; a leading or trailing run gives an empty first or last part. */
export function splitOnWhitespace(text: string): string[] {
  return text.split(WHITESPACE_RUN);
}

/** The runs of `text` that hold no white space, each with where it starts. */
export function wordRuns(text: string): { start: number; word: string }[] {
  const runs: { start: number; word: string }[] = [];
  let start = skipWhitespace(text, 0);
  while (start < text.length) {
    let end = start + 1;
    while (end < text.length && !isWhitespaceChar(text[end]!)) end += 1;
    runs.push({ start, word: text.slice(start, end) });
    start = skipWhitespace(text, end);
  }
  return runs;
}

/** `text` with each run of white space (newlines too) written as one space. */
export function singleSpaced(text: string): string {
  return text.replace(WHITESPACE_RUN, ' ');
}

/** Whether `char`, one UTF-16 code unit, is white space (`\s`); false for the empty string. */
export function isWhitespaceChar(char: string): boolean {
  return char !== '' && char.trim() === '';
}

/** The first index at or after `at` that is not white space in `text` (its length when only white space is left). */
export function skipWhitespace(text: string, at: number): number {
  let end = at;
  while (end < text.length && isWhitespaceChar(text[end]!)) end += 1;
  return end;
}

/** `line` without the run of `chars` at its end. */
function trimEndOf(line: string, chars: string): string {
  let end = line.length;
  while (end > 0 && chars.includes(line[end - 1]!)) end -= 1;
  return line.slice(0, end);
}

/**
 * `text` with trailing spaces cut from each line, `\r\n` read as `\n`, runs of blank lines written as one,
 * and blank lines at the ends dropped. Whitespace inside a line is kept: it can be structure (the
 * indentation of code, the columns of a fixed-width table or a TSV row, a markdown table's empty cells),
 * and a reader who reads columns by position would misread a collapsed row. Every line of the result is a
 * line of the input, whole but for the spaces after its last character.
 *
 * @example
 * collapseWhitespace('Total: 42  \r\n\r\n\r\n\r\nDone.\n'); // 'Total: 42\n\nDone.'
 */
export function collapseWhitespace(text: string): string {
  const lines: string[] = [];
  let blank = false;
  for (const raw of splitLines(text)) {
    // Spaces and tabs at a line's end: a trailing tab is kept when the line holds tabs (an empty last TSV cell).
    const line = trimEndOf(raw, raw.includes('\t') ? ' ' : ' \t');
    if (line.trim() === '') {
      blank = lines.length > 0;
      continue;
    }
    if (blank) lines.push('');
    blank = false;
    lines.push(line);
  }
  return lines.join('\n');
}
