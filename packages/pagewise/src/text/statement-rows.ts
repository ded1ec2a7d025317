/**
 * Rows of a financial statement as a PDF's text extraction writes them. A row label too long for its column is
 * wrapped over several lines, and only the last one carries the numbers:
 *
 *     Research and
 *     development
 *     expenses $ 2,294 $ 1,945 $ 349 18 %
 *
 * Cut into lines, the numbers lose what they are ("expenses"), and the label's words no longer rank the row for a
 * question about research and development. Such a row is one unit: the line with the values, and the label lines
 * above it that it continues (it, or the line it continues, starts in lower case).
 */

import { endsWithAnyOf, hasDigit, hasLetter, startsLowercase } from './characters.js';
import { splitOnWhitespace } from './whitespace.js';

// A value cell as statements print it: an amount, a percentage, a dash for none, in parentheses when negative.
const VALUE_TOKEN = /^(?:\(?\$?\(?-?\d[\d,]*(?:\.\d+)?\)?%?\)?|[—–-]|\$|%|\)%?)$/u;
// The fewest numbers that make a line a statement row: a label and one number is a sentence's end as often.
const MIN_ROW_NUMBERS = 2;
// A wrapped label line: words only (letters, spaces, commas, hyphens, ampersands, apostrophes), short.
const LABEL_LINE = /^[\p{L}][\p{L} ,&'’-]*$/u;
const MAX_LABEL_LINE_CHARS = 40;
// How many lines above its values a wrapped label may start.
const MAX_LABEL_LINES = 3;

/** Whether `line` is a statement row's value line: words, then at least two numbers and nothing else. */
export function isValueLine(line: string): boolean {
  const tokens = splitOnWhitespace(line.trim());
  let numbers = 0;
  let at = tokens.length - 1;
  // A number among the value tokens (a lone `$`, `%` or dash is not one).
  for (; at >= 0 && VALUE_TOKEN.test(tokens[at]!); at -= 1) if (hasDigit(tokens[at]!)) numbers += 1;
  return numbers >= MIN_ROW_NUMBERS && at >= 0 && hasLetter(tokens.slice(0, at + 1).join(' '));
}

/**
 * For each of `lines`, the index of the first line of the unit it belongs to: its own index, or for a value line
 * and the wrapped label lines above it, the index of the label's first line.
 *
 * @example
 * statementRowStarts(['Operating Expenses', 'Research and', 'development', 'expenses $ 2,294 $ 1,945']);
 * // [0, 1, 1, 1]
 */
export function statementRowStarts(lines: readonly string[]): number[] {
  const starts = lines.map((_, index) => index);
  for (const [index, line] of lines.entries()) {
    if (!isValueLine(line)) continue;
    let first = index;
    while (
      index - first < MAX_LABEL_LINES &&
      first > 0 &&
      starts[first - 1] === first - 1 &&
      startsLowercase(lines[first]!.trim()) &&
      isLabelLine(lines[first - 1]!)
    )
      first -= 1;
    for (let at = first; at <= index; at += 1) starts[at] = first;
  }
  return starts;
}

function isLabelLine(line: string): boolean {
  const trimmed = line.trim();
  return trimmed.length <= MAX_LABEL_LINE_CHARS && LABEL_LINE.test(trimmed);
}

// Column headers as statements print them above their numbers: periods, years, dates, scales, "Change". One
// expression, compiled once, with an alternative per form (case-insensitive); a line is a header when any matches.
const COLUMN_HEADER_FORMS = [
  // A date anywhere in the line: "December 31", "Sept. 30".
  '\\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?\\s+\\d{1,2}\\b',
  // A period or a change column, at the start: "Three Months Ended", "52 weeks ended", "% Change", "As of".
  '^(?:(?:three|six|nine|twelve)\\s+months\\s+ended|(?:13|26|39|52)\\s+weeks\\s+ended|quarter\\s+ended|year\\s+ended|months\\s+ended|change|\\$\\s*change|%\\s*change|as\\s+of|total)\\b',
  // A scale, at the start: "(in millions)", "(Dollars in thousands)".
  '^\\(?\\s*(?:(?:\\$|dollars|amounts|shares)\\s+)?(?:in\\s+)(?:millions|thousands|billions)\\b',
];
const COLUMN_HEADER = new RegExp(COLUMN_HEADER_FORMS.join('|'), 'iu');
const MAX_HEADER_LINE_CHARS = 60;
// A table's run goes on across short lines (a segment name over its rows, a wrapped label); a longer line
// without values is prose, and ends it.
const MAX_RUN_LINE_CHARS = 40;

/** Whether `line` reads as a column header of a statement: a period, a date, a year, a scale or "Change". */
export function isColumnHeaderLine(line: string): boolean {
  const trimmed = line.trim();
  if (trimmed.length > MAX_HEADER_LINE_CHARS) return false;
  if (!hasLetter(trimmed)) return true;
  return COLUMN_HEADER.test(trimmed);
}

/** What the rows of one statement table say they are: the lines of its caption and of its column headers. */
export interface StatementContext {
  caption: number[];
  headers: number[];
}

/**
 * For each of `lines` that starts a statement row (see {@link statementRowStarts}), the caption and column header
 * lines of its table: above the table's first row, the header lines (periods, dates, scales), then the caption
 * (the first line above them that is neither, with the short title above it when the caption ends in a colon).
 * A table runs over value lines and short lines; a longer line without values ends it.
 */
export function statementContexts(lines: readonly string[], starts: readonly number[]): Map<number, StatementContext> {
  const contexts = new Map<number, StatementContext>();
  let current: StatementContext | undefined;
  for (const [index, line] of lines.entries()) {
    if (starts[index] !== index) continue;
    let last = index;
    while (starts[last + 1] === index) last += 1;
    if (isValueLine(lines[last]!)) {
      current ??= contextAbove(lines, index);
      contexts.set(index, current);
    } else if (isColumnHeaderLine(line) || line.trim().length > MAX_RUN_LINE_CHARS) {
      // New column headers start another table; a line of prose ends this one.
      current = undefined;
    }
  }
  return contexts;
}

function contextAbove(lines: readonly string[], first: number): StatementContext {
  const headers: number[] = [];
  let at = first - 1;
  for (; at >= 0 && isColumnHeaderLine(lines[at]!) && !isValueLine(lines[at]!); at -= 1) headers.unshift(at);
  const caption: number[] = [];
  const line = lines[at];
  if (line !== undefined && !isValueLine(line)) {
    caption.push(at);
    const above = lines[at - 1];
    if (line.trim().endsWith(':') && above !== undefined && isTitleLine(above)) caption.unshift(at - 1);
  }
  return { caption, headers };
}

// A title: short, no sentence end, no numbers of a row.
function isTitleLine(line: string): boolean {
  const trimmed = line.trim();
  return trimmed.length <= MAX_HEADER_LINE_CHARS && !endsWithAnyOf(trimmed, '.:;') && !isValueLine(trimmed);
}
