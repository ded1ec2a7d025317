/**
 * How a financial statement's page lays out what a row's numbers mean, as PDF text extraction gives it: the column
 * header spread over several lines above the rows ("Three Months Ended Six Months Ended" / "July 30, July 31, July
 * 30, July 31," / "2023 2022 2023 2022"), or one date per line ("December 31," / "2022" / "December 25," / "2021"),
 * or printed below the table; the section heading a row stands under ("Net income per share:"); the statement's
 * title; and the scale ("(In millions, except per share data)").
 */

/** A month as filings print it in a column date. */
export const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';

const DURATION =
  /\b(?:(?:three|six|nine|twelve|thirteen|twenty-six|thirty-nine|fifty-two)\s+(?:months|weeks)|quarters?|(?:fiscal\s+)?years?)\s+ended\b/gi;
const MONTH_DAY = new RegExp(`\\b${MONTH}\\s+\\d{1,2}\\b,?`, 'gi');
const YEAR_TOKEN = /(?<![\w,.])(?:19|20)\d\d(?![\w,.]\d)/g;
// What a header line says besides its periods: the scale and "(Unaudited)" in brackets, joining words, punctuation.
const HEADER_REST = /\((?:in|dollars|amounts|unaudited)\b[^)]*\)|\b(?:as\s+of|at|and|ended|ending|period)\b|[,:;|$]/gi;

interface HeaderParts {
  durations: string[];
  dates: string[];
  years: string[];
}

/** The periods of a column-header line; undefined for a line with anything else, or with nothing at all. */
function headerParts(line: string): HeaderParts | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  const durations = [...text.matchAll(DURATION)].map((m) => m[0].replace(/\s+/g, ' '));
  const dates = [...text.matchAll(MONTH_DAY)].map((m) => m[0].replace(/,$/, '').replace(/\s+/g, ' '));
  const years = [...text.matchAll(YEAR_TOKEN)].map((m) => m[0]);
  const rest = text.replace(DURATION, ' ').replace(MONTH_DAY, ' ').replace(YEAR_TOKEN, ' ').replace(HEADER_REST, ' ');
  if (rest.trim() !== '') return undefined;
  return { durations, dates, years };
}

const hasPeriod = (parts: HeaderParts | undefined) =>
  parts !== undefined && parts.durations.length + parts.dates.length + parts.years.length > 0;

/** The column labels of the header block that line `at` is part of (the contiguous header lines around it). */
function blockLabels(lines: readonly string[], at: number, full = false): string[] | undefined {
  let top = at;
  while (top > 0 && headerParts(lines[top - 1]!) !== undefined) top -= 1;
  let bottom = at;
  while (bottom + 1 < lines.length && headerParts(lines[bottom + 1]!) !== undefined) bottom += 1;
  const parts = lines.slice(top, bottom + 1).map((line) => headerParts(line)!);
  const years = parts.flatMap((p) => p.years);
  const durations = parts.flatMap((p) => p.durations);
  const dates = parts.flatMap((p) => p.dates);
  const columnCount = years.length;
  if (columnCount < 2) return undefined;
  // Years that tell the columns apart are the header, as a one-line header of dates gives them.
  if (!full && new Set(years).size === columnCount) return years;
  // Each duration heads an equal run of columns; dates are one a column, or one a duration.
  const spread = (items: readonly string[]) =>
    items.length > 0 && columnCount % items.length === 0
      ? (i: number) => items[Math.floor(i / (columnCount / items.length))]
      : () => '';
  const duration = spread(durations);
  const date = spread(dates);
  return years.map((year, column) => {
    const day = date(column);
    return [duration(column), day ? `${day}, ${year}` : year].filter(Boolean).join(' ');
  });
}

/** Whether a line is a column-header line of periods only ("June 29,", "Three Months Ended", "2024 2023"). */
export function isPeriodLine(line: string): boolean {
  return hasPeriod(headerParts(line));
}

/**
 * The column labels of the header block line `at` is part of, when that line is a header line of periods (years,
 * dates, durations): the years when they tell the columns apart, else each column's period as the block spells it
 * ("Three Months Ended July 30, 2023" beside "Six Months Ended July 30, 2023"). Undefined for any other line, or a
 * block with fewer than two years.
 */
export function blockHeader(lines: readonly string[], at: number): string[] | undefined {
  return hasPeriod(headerParts(lines[at]!)) ? blockLabels(lines, at) : undefined;
}

/**
 * The column labels of a header printed below the rows (as some filings' PDFs put it, at the foot of the page): the
 * first header block after row `at` that names a duration or a date, not bare years (those may head the next table).
 */
export function periodHeaderBelow(lines: readonly string[], at: number, full = false): string[] | undefined {
  for (let lineIndex = at + 1; lineIndex < lines.length; lineIndex += 1) {
    const parts = headerParts(lines[lineIndex]!);
    if (parts && parts.durations.length + parts.dates.length > 0) {
      const labels = blockLabels(lines, lineIndex, full);
      if (labels) return labels;
    }
  }
  return undefined;
}

/**
 * Each column's period as the header of row `at` spells it, duration and date with the year ("Nine Months Ended
 * July 1, 2023"), also where the years alone tell the columns apart; undefined when the header says no more than
 * its years, or there is no header of periods.
 */
export function periodsOf(lines: readonly string[], at: number): string[] | undefined {
  let labels: string[] | undefined;
  for (let lineIndex = at - 1; lineIndex >= Math.max(0, at - 80) && labels === undefined; lineIndex -= 1)
    if (isPeriodLine(lines[lineIndex]!)) labels = blockLabels(lines, lineIndex, true) ?? [];
  if (labels === undefined || labels.length === 0) labels = periodHeaderBelow(lines, at, true);
  return labels?.some((label) => /\p{L}/u.test(label)) ? labels : undefined;
}

/** A column label's period: its year and, when it says one, how many months it covers. */
export function columnPeriod(label: string): { year?: string; months?: number } {
  const years = label.match(/(?:19|20)\d\d/g);
  const match =
    /\b(three|six|nine|twelve|thirteen|twenty-six|thirty-nine|fifty-two)\s+(months|weeks)|\b(quarter|year)s?\s+ended/i.exec(
      label,
    );
  const counts: Record<string, number> = {
    three: 3,
    six: 6,
    nine: 9,
    twelve: 12,
    thirteen: 3,
    'twenty-six': 6,
    'thirty-nine': 9,
    'fifty-two': 12,
  };
  const months = match
    ? match[3]
      ? match[3].toLowerCase() === 'quarter'
        ? 3
        : 12
      : counts[match[1]!.toLowerCase()]
    : undefined;
  return { ...(years ? { year: years[years.length - 1]! } : {}), ...(months ? { months } : {}) };
}

/** Most words of a section heading written without a colon ("Operating Income", "Data Center and AI"). */
export const MAX_PLAIN_HEADING_WORDS = 6;

/** Whether `line` (trimmed) reads as a heading without a colon: a few words, capitalized, no number, no sentence's end. */
function isPlainHeading(line: string): boolean {
  return (
    /^\p{Lu}/u.test(line) &&
    !/\d/.test(line) &&
    !/[.,;:)]$/.test(line) &&
    line.split(/\s+/).length <= MAX_PLAIN_HEADING_WORDS
  );
}

/**
 * The section heading row `at` stands under: the nearest line above it, within its table, that holds no number and
 * ends with a colon ("Net income per share:"), without the colon; or a heading without a colon ("Revenue", "Operating
 * Income" in a segment note) on the line right above the rows under it. Undefined when a header or a blank line comes
 * first, or when the line right above the rows is no heading ("Operating income (loss)", a value of a row written one
 * cell a line): the rows are then not known to stand under a heading further up. A line a row's label wraps from
 * (the row goes on in lower case) belongs to that row. `labelAt` is where row `at`'s own label starts.
 */
export function sectionAbove(
  lines: readonly string[],
  at: number,
  isRow: (line: string) => boolean,
  labelAt = at,
): string | undefined {
  /** Whether line `below` starts a row with a new label: a row's line, not the lower-case rest of a wrapped label. */
  const startsRow = (below: number): boolean => {
    const row = lines[below === labelAt ? at : below]?.trim();
    const start = lines[below]?.trim() ?? '';
    return row !== undefined && isRow(row) && !/^\p{Ll}/u.test(start);
  };
  for (let lineIndex = labelAt - 1; lineIndex >= Math.max(0, at - 40); lineIndex -= 1) {
    const line = lines[lineIndex]!.trim();
    if (line === '' || hasPeriod(headerParts(line))) return undefined;
    if (isRow(line)) continue;
    if (/:$/.test(line) && !/\d/.test(line)) return line.replace(/:$/, '').trim();
    if (startsRow(lineIndex + 1)) return isPlainHeading(line) ? line : undefined;
  }
  return undefined;
}

const TITLE = /\b(?:balance\s+sheets?|statements?\s+of\s+[a-z ,()]+|(?:income|cash\s+flows?)\s+statements?)\b/i;

/** The statement title nearest above line `at` ("CONDENSED CONSOLIDATED STATEMENTS OF INCOME"), else the page's first. */
export function titleOf(lines: readonly string[], at: number): string | undefined {
  // A heading: short, capitalized, no sentence's end ("… in the consolidated statements of cash flows." is prose).
  const isTitle = (line: string) => {
    const text = line.trim();
    return (
      TITLE.test(text) &&
      text.length <= 120 &&
      /^\p{Lu}/u.test(text) &&
      !/[.,;]$/.test(text) &&
      !/\d{2}/.test(text.replace(/\s\d+$/, ''))
    );
  };
  for (let lineIndex = at; lineIndex >= 0; lineIndex -= 1)
    if (isTitle(lines[lineIndex]!)) return lines[lineIndex]!.trim();
  for (let lineIndex = at + 1; lineIndex < lines.length; lineIndex += 1)
    if (isTitle(lines[lineIndex]!)) return lines[lineIndex]!.trim();
  return undefined;
}
