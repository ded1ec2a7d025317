/**
 * Whitespace a reader does not need, removed without touching a word: the lossless first step of
 * compression, which an LLM reads the same and pays fewer tokens for.
 */

// Spaces and tabs at a line's end: a trailing tab is kept when the line holds tabs (an empty last TSV cell).
const TRAILING_SPACES = / +$/u;
const TRAILING_BLANKS = /[ \t]+$/u;

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
  for (const raw of text.split(/\r?\n/u)) {
    const line = raw.replace(raw.includes('\t') ? TRAILING_SPACES : TRAILING_BLANKS, '');
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
