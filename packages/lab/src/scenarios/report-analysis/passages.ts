/**
 * Extractive reading of any document for a free-form question: the sentences and table rows that match the
 * question's terms, each with where it was found. A table row is given with its values and its column header,
 * also when the values sit on the lines after the label (as text extracted from PDFs puts them), because a
 * number without its label and column is not an answer.
 */
import { queryTerms } from './query-terms.js';
import { wordTokens } from 'pagewise/internal';
import { fileOfUri } from './filings.js';
import { labelPrints, measureWords, questionMeasures, statementOf, type Measure } from './measures.js';
import { canonicalTerm, canonicalWords, understandQuestion } from './query.js';
import {
  MONTH,
  blockHeader,
  isPeriodLine,
  periodHeaderBelow,
  periodsOf,
  sectionAbove,
  titleOf,
} from './statement-layout.js';

/** A document as the reader sees it in its prompt. */
export interface PassageSource {
  /** The document's URI; `name#page` for one page of a paged document. */
  uri: string;
  body: string;
  /** `k/n` when the body is one frame of a longer document (line numbers then count from the frame). */
  frame?: string;
}

/** A table row as read: its label, its cells, the column each cell is under and the unit the table states. */
export interface TableRow {
  label: string;
  values: string[];
  /**
   * The column header of each value, when the header has one cell per value: a year, or a period as the header
   * spells it over its lines ("Three Months Ended July 30, 2023").
   */
  columns?: string[];
  /**
   * Each value's period as the header spells it over its lines ("Nine Months Ended July 1, 2023"), when it says more
   * than the years of {@link columns}.
   */
  periods?: string[];
  /** The scale the table is stated in (`thousand`, `million`, `billion`), as a line of its page says it. */
  unit?: string;
  /** The heading the row stands under ("Net income per share:" above "Diluted"), without its colon. */
  section?: string;
  /** The title of the statement the row is in ("CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS"), when its page has one. */
  title?: string;
}

/** One matching passage. */
export interface Passage {
  /** Where it is: `file.pdf#page` for a PDF page, otherwise `file:first-last` (lines; `book.xlsx#sheet:row`). */
  citation: string;
  /** The passage on one line; a table row as `label: v1 | v2 (columns: h1 | h2)`. */
  text: string;
  /**
   * Share of the question's term weight the passage holds (0..1), plus up to 0.1 for its word pairs in order, for a
   * table row up to 0.1 for the share of its label's words that the question holds, and up to 0.1 for how well its
   * page matches the question against the best page read; lowered for a document after the first and for a text
   * that more than one page read repeats.
   */
  score: number;
  /** The row, when the passage is a table row under a column header. */
  row?: TableRow;
  /**
   * The names the question gives (lower-case, as the question's entities) that the pages read of the passage's
   * document say, where its file name may not ("Apple" in `2023 Q1 AAPL.pdf`); set by {@link namesRead}.
   */
  names?: string[];
}

/**
 * Longest passage text kept, in characters. Passages are whole units (a sentence, a bullet item, a table row), so
 * only a single sentence longer than this is shortened, at its last clause boundary before it.
 */
const MAX_PASSAGE_CHARS = 1100;
/** The weight of a passage from any document but the first of the sources (the best-ranked one). */
const LATER_DOCUMENT_WEIGHT = 0.8;
/** What holding every word pair of the question in order adds to a passage's score (which its terms bring to 1). */
const PHRASE_WEIGHT = 0.1;
/**
 * What a table row whose label words are all words of the question adds (a share of it for a share of its words), so
 * "Sales" answers "what were the sales" before "Net sales" does.
 */
const LABEL_WEIGHT = 0.1;
/**
 * What a statement line of the first document adds: a row whose label prints a measure the question names
 * (measures.ts), on a page titled as the statement the measure is read from. The question asks for that line's
 * figures, which a sentence of the same page or of the discussion only mentions beside other words of the question
 * (its period, "compare", "change"). A summary table of other years that repeats the label is not the statement.
 * Only the first document's: the same line in another filing is another period's figure, and lifting it over the
 * first document's passages would put two filings' values side by side where one was asked for.
 */
const MEASURE_ROW_WEIGHT = 0.5;
/**
 * What a table row of the first document adds when the question says its label word for word, three words or more
 * ("effective tax rate" for the row "Effective tax rate"; two, "Operating income", is as often a selected-data table's
 * row that repeats the statement's as the row asked): the question names the row itself, whose figures a
 * sentence that repeats the question's other words (its period, "compare") only talks about. Only the first
 * document's, as {@link MEASURE_ROW_WEIGHT}.
 */
const QUOTED_ROW_WEIGHT = 0.2;
/**
 * The weight of a passage whose text is on more than one of the pages read: boilerplate a filing repeats (a heading, a
 * standard sentence) says the same wherever it is, so it tells no page apart; the page that says something once leads
 * it when both match alike.
 */
const REPEATED_WEIGHT = 0.7;
/**
 * What the page a passage is on adds for how well the page as a whole matches the question (its words' counts over
 * the question's weighted terms, against the best page read): of two passages that match alike, the one on the page
 * about the question leads, not a sentence a boilerplate page happens to share with it.
 */
const PAGE_WEIGHT = 0.1;
/**
 * Term-frequency saturation of that page match. A page's length is not held against it: the pages of a filing are
 * alike in length, and a short boilerplate page would otherwise outrank the page that discusses the question.
 */
const PAGE_K1 = 1.2;
/** Value lines read after a row label. */
const MAX_ROW_VALUES = 8;

// A cell that is a number as reports print them: currency, sign, parentheses, thousands separators, percent.
const VALUE_LINE = /^[\s$€£¥(−–-]*(?:\d[\d,.\s]*|—|-|–|n\/a|nm)[\s%)]*(?:million|billion|thousand)?$/i;
const YEAR = /^(?:fy\s*)?(?:19|20)\d\d$/i;

interface Candidate {
  text: string;
  /** A table row's label. */
  label?: string;
  row?: TableRow;
  firstLine: number;
  lastLine: number;
  words: Set<string>;
}

/** The words of a passage in the canonical form question terms have ("sales" and "sale", "FY2022" and "2022" alike). */
function wordSet(text: string): Set<string> {
  return canonicalWords(text);
}

function isValueLine(line: string): boolean {
  const trimmed = line.trim();
  return trimmed !== '' && trimmed.length <= 40 && VALUE_LINE.test(trimmed);
}

function clip(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  if (one.length <= MAX_PASSAGE_CHARS) return one;
  const head = one.slice(0, MAX_PASSAGE_CHARS - 1);
  const clause = Math.max(head.lastIndexOf('; '), head.lastIndexOf(', '));
  const cut = clause > MAX_PASSAGE_CHARS / 2 ? clause + 1 : head.lastIndexOf(' ');
  return `${head.slice(0, cut > 0 ? cut : head.length).trim()} …`;
}

// A bullet item starts a unit of its own: at a bullet sign anywhere, or at a dash, star or "(a)" opening a line.
const BULLET_SIGN = /\s*[•●▪◦■➢►]\s*/u;
const BULLET_LINE = /^\s*(?:[-*–]\s+|\(?[a-z0-9]{1,3}\)\s+)/i;

/** The units of a paragraph's lines: its bullet items, each split into sentences. */
function proseUnits(lines: readonly string[]): string[] {
  const items: string[] = [];
  for (const line of lines) {
    const parts = line.split(BULLET_SIGN);
    if (BULLET_LINE.test(line) || items.length === 0) items.push(parts.shift() ?? '');
    else items[items.length - 1] += ` ${parts.shift() ?? ''}`;
    items.push(...parts);
  }
  // A sentence ends at . ! ? before a space (so "1.5" and "U.S." inside a sentence stay whole) or at a CJK stop.
  return items.flatMap((item) => item.trim().split(/(?<=[.!?])\s+(?=[^a-z])|(?<=[。！？])/u));
}

/** Splits a markdown or delimited table line into cells; undefined when it is not one. */
function cellsOf(line: string): string[] | undefined {
  if (line.includes('|')) {
    const cells = line
      .split('|')
      .map((cell) => cell.trim())
      .filter((cell) => cell !== '' && !/^:?-{2,}:?$/.test(cell));
    return cells.length >= 2 ? cells : undefined;
  }
  if (line.includes('\t')) {
    const cells = line
      .split('\t')
      .map((cell) => cell.trim())
      .filter(Boolean);
    return cells.length >= 2 ? cells : undefined;
  }
  // Columns laid out with runs of spaces, as text extractors keep them.
  const cells = line
    .trim()
    .split(/\s{2,}/)
    .filter(Boolean);
  return cells.length >= 3 && cells.slice(1).every((cell) => isValueLine(cell)) ? cells : undefined;
}

// One cell of a row whose cells are separated by single spaces: a number as reports print it, or a dash for none.
const VALUE_TOKEN = /^(?:[$€£¥(−–-]*\d[\d,.]*%?\)?|[$€£¥]?\(?\d[\d,.]*\)?%?|—|–|-|n\/a|nm)$/i;
// Words a prose line ends with before a number ("rose 12% in 2019"): such a line is a sentence, not a row.
const PROSE_BEFORE_VALUES =
  /\b(?:in|of|to|from|by|was|were|is|are|at|on|for|and|than|about|approximately|totaled|totalled)$/i;

/**
 * A row whose cells are separated by single spaces, as PDF text extraction gives them: a label followed by numeric
 * cells (`Total revenue $ 1,234 (56) 7.5%`), or a line of years that heads the columns. Undefined for prose.
 */
function spacedRow(line: string): string[] | undefined {
  // A number followed by a full stop ends a sentence ("… into revenue in fiscal 2020."), not a row.
  if (/\d\.$/.test(line.trim())) return undefined;
  const tokens = line.trim().split(/\s+/);
  const values: string[] = [];
  let tokenIndex = tokens.length - 1;
  for (; tokenIndex >= 0; tokenIndex -= 1) {
    const token = tokens[tokenIndex]!;
    if (/^[$€£¥]$/.test(token) && values.length > 0) {
      values[0] = `${token}${values[0]}`;
      continue;
    }
    // A percent sign set apart from its number ("12.5 % 15.7 %", as PDF text extraction spaces it) is the number's.
    const before = tokens[tokenIndex - 1];
    if (token === '%' && before !== undefined && /\d\)?$/.test(before) && VALUE_TOKEN.test(`${before}%`)) {
      tokens[tokenIndex - 1] = `${before}%`;
      continue;
    }
    if (!VALUE_TOKEN.test(token)) break;
    values.unshift(token);
  }
  const label = tokens
    .slice(0, tokenIndex + 1)
    .join(' ')
    .replace(/[:\s]+$/, '');
  if (values.length === 0) return undefined;
  const years = values.every((v) => YEAR.test(v));
  if (label === '') return years && values.length >= 2 ? ['', ...values] : undefined;
  if (!/\p{L}/u.test(label) || label.length > 120 || PROSE_BEFORE_VALUES.test(label) || /[.!?]$/.test(label))
    return undefined;
  // One bare number after words is as often prose ("Note 7") as a row: a row has two columns or a formatted value.
  if (values.length === 1 && !/[$€£¥(,.%]/.test(values[0]!)) return undefined;
  return [label, ...values];
}

// A column date as filings head their columns: "June 1, 2019", "Dec. 28, 2018".
const COLUMN_DATE = new RegExp(`\\b${MONTH}\\s+\\d{1,2},?\\s+((?:19|20)\\d\\d)\\b`, 'gi');
// What a header of dates says besides them: the period ("Year Ended", "As of", "Fiscal years ended") and the unit.
const DATE_HEADER_REST =
  /^(?:[\s,:;]|\b(?:as|of|at|years?|ended|ending|fiscal|for|the|and|weeks?|months?|three|six|nine|twelve|restated)\b|\([^)]*\))*$/i;

/**
 * The years of a header line whose columns are dates ("April 26, 2019 April 27, 2018", "Year Ended December 31, 2018
 * Year Ended December 31, 2017"), one a column; undefined for any other line, prose with two dates among others.
 */
export function dateHeader(line: string): string[] | undefined {
  const years = [...line.matchAll(COLUMN_DATE)].map((m) => m[1]!);
  if (years.length < 2) return undefined;
  return DATE_HEADER_REST.test(line.replace(COLUMN_DATE, ' ')) ? years : undefined;
}

// A column label that names a period: a quarter or half ("Q1 2024", "2Q23", "H1 FY24"), a fiscal year ("FY 2024"),
// or a month of a year ("Jun 2024").
const PERIOD = new RegExp(
  `(?:\\b(?:q[1-4]|[1-4]q|h[12])\\s*(?:fy\\s*)?'?(?:(?:19|20)\\d\\d|\\d\\d)\\b|\\bfy\\s*'?(?:(?:19|20)\\d\\d|\\d\\d)\\b|\\b${MONTH}\\s+(?:19|20)\\d\\d\\b)`,
  'gi',
);

/**
 * The labels of a header line made only of period labels, one a column ("Q1 2024 Q2 2024 Q3 2024", as PDF text
 * extraction gives a header row of quarters); undefined for any other line.
 */
export function periodHeader(line: string): string[] | undefined {
  const labels = [...line.matchAll(PERIOD)].map((match) => match[0].replace(/\s+/g, ' '));
  if (labels.length < 2) return undefined;
  return line.replace(PERIOD, ' ').replace(/[|\s]/g, '') === '' ? labels : undefined;
}

/**
 * The nearest column header above line `at`: a block of period lines, a run of year lines, or a table line of years,
 * periods or labels; else a header of periods printed below it.
 */
function headerAbove(lines: readonly string[], at: number): string[] | undefined {
  for (let lineIndex = at - 1; lineIndex >= Math.max(0, at - 80); lineIndex -= 1) {
    const line = lines[lineIndex]!.trim();
    // A header of periods, on this line or spread over the lines around it.
    const block = blockHeader(lines, lineIndex);
    if (block) return block;
    const dates = dateHeader(line) ?? periodHeader(line);
    if (dates) return dates;
    const cells = cellsOf(line) ?? spacedRow(line);
    if (cells && cells.filter((cell) => YEAR.test(cell)).length >= 2) return cells.filter((c) => YEAR.test(c));
    if (YEAR.test(line)) {
      // A run of year lines, one column each, ends here; collect it upwards.
      const years = [line];
      let aboveIndex = lineIndex - 1;
      while (aboveIndex >= 0 && YEAR.test(lines[aboveIndex]!.trim())) years.unshift(lines[aboveIndex--]!.trim());
      if (years.length >= 2) return years;
    }
  }
  // A header printed below the table, at the foot of the page.
  return periodHeaderBelow(lines, at);
}

function rowText(label: string, values: readonly string[], header: readonly string[] | undefined): string {
  const cells = values.map((v) => v.replace(/\s+/g, ' ').trim());
  if (header && header.length === cells.length) {
    return `${label}: ${cells.map((v, i) => `${header[i]}: ${v}`).join(' | ')}`;
  }
  return `${label}: ${cells.join(' | ')}${header ? ` (columns: ${header.join(' | ')})` : ''}`;
}

const UNIT_PHRASE = /\b(?:in|of)\s+(?:[$€£¥]\s*|[a-z]{3}\s+|u\.?s\.?\s+dollars\s+)?(thousands|millions|billions)\b/i;
const UNIT_SIGN = /(?:[$€£¥]|\b[A-Z]{3})\s?(?:'000|000s)|(?:[$€£¥]|\b[A-Z]{3})\s?(m|bn)\b/;

/**
 * The scale a table states above row `at` ("(in millions)", "$'000", "€m"), nearest first; else the first its page
 * states below it (a header printed at the foot of the page).
 */
function unitAbove(lines: readonly string[], at: number): string | undefined {
  // Nearest above first; a statement page states its scale once under its title, however long the table.
  const order = [...Array(at + 1).keys()].map((k) => at - k);
  for (let lineIndex = at + 1; lineIndex < lines.length; lineIndex += 1) order.push(lineIndex);
  for (const lineIndex of order) {
    const line = lines[lineIndex]!;
    const phrase = UNIT_PHRASE.exec(line);
    if (phrase) return phrase[1]!.toLowerCase().replace(/s$/, '');
    const sign = UNIT_SIGN.exec(line);
    if (sign) return sign[1] === undefined ? 'thousand' : sign[1] === 'm' ? 'million' : 'billion';
  }
  return undefined;
}

/**
 * A row's values without a last percentage its header does not name: MD&A tables print each period's figure and then
 * the change between them ("13,666 13,332 3%" under "2023 2022"), and the header names the periods only.
 */
function withoutChangeColumn(values: readonly string[], header: readonly string[] | undefined): readonly string[] {
  const last = values[values.length - 1]?.trim() ?? '';
  return header && values.length === header.length + 1 && last.endsWith('%') && !header.some((h) => h.includes('%'))
    ? values.slice(0, -1)
    : values;
}

function tableRow(
  lines: readonly string[],
  at: number,
  label: string,
  values: readonly string[],
  header: readonly string[] | undefined,
  labelAt = at,
): TableRow {
  const cells = values.map((v) => v.replace(/\s+/g, ' ').trim());
  const unit = unitAbove(lines, at);
  const section = sectionAbove(lines, at, (line) => (cellsOf(line) ?? spacedRow(line)) !== undefined, labelAt);
  const title = titleOf(lines, at);
  const periods = periodsOf(lines, at);
  return {
    label,
    values: cells,
    ...(header && header.length === cells.length ? { columns: [...header] } : {}),
    // Periods the columns do not already spell (a header of distinct years keeps only its years as columns).
    ...(periods && periods.length === cells.length && periods.join('|') !== header?.join('|') ? { periods } : {}),
    ...(unit ? { unit } : {}),
    ...(section ? { section } : {}),
    ...(title ? { title } : {}),
  };
}

/** The cells of a `|` or tab delimited line in their columns (empty cells kept); undefined for other lines. */
function delimitedCells(line: string): string[] | undefined {
  const trimmed = line.trim();
  if (trimmed.includes('|'))
    return trimmed
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((cell) => cell.trim());
  if (trimmed.includes('\t')) return trimmed.split('\t').map((cell) => cell.trim());
  return undefined;
}

const isRule = (cell: string) => /^:?-{2,}:?$/.test(cell);

/**
 * Delimited tables whose first line names the columns in words (`Vessel | Capacity | Home port`, as CSV files,
 * sheets and markdown tables have them): for every line of such a table, its header cells; the header line itself
 * maps to an empty list. Tables headed by years are left to {@link headerAbove}.
 */
function wordHeaders(lines: readonly string[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  let lineIndex = 0;
  while (lineIndex < lines.length) {
    const header = delimitedCells(lines[lineIndex]!);
    const named = header?.filter((cell) => cell !== '') ?? [];
    const isHeader =
      header !== undefined &&
      named.length >= 2 &&
      !named.some((cell) => isRule(cell) || isValueLine(cell) || YEAR.test(cell));
    if (!isHeader) {
      lineIndex += 1;
      continue;
    }
    let rowIndex = lineIndex + 1;
    const rows: number[] = [];
    for (; rowIndex < lines.length; rowIndex += 1) {
      const cells = delimitedCells(lines[rowIndex]!);
      if (!cells || cells.every((cell) => cell === '')) break;
      rows.push(rowIndex);
    }
    if (rows.some((row) => !delimitedCells(lines[row]!)!.every((cell) => cell === '' || isRule(cell)))) {
      out.set(lineIndex, []);
      for (const row of rows) out.set(row, header);
    }
    lineIndex = Math.max(rowIndex, lineIndex + 1);
  }
  return out;
}

/**
 * A row under a header of words: `label: Column: value | Column: value`, each value beside its column's name. A
 * header one cell shorter than a row that starts with its label names the value columns (its label column has no
 * header cell, as an HTML table with an empty corner cell is written).
 */
function namedRowText(cells: readonly string[], header: readonly string[]): string {
  const labelAt = cells.findIndex((cell) => cell !== '');
  const offset = header.length === cells.length ? 0 : labelAt === 0 && header.length === cells.length - 1 ? 1 : -1;
  const pairs: string[] = [];
  for (let cellIndex = labelAt + 1; cellIndex < cells.length; cellIndex += 1) {
    const value = cells[cellIndex]!;
    if (value === '') continue;
    const column = offset >= 0 ? header[cellIndex - offset] : undefined;
    pairs.push(column ? `${column}: ${value}` : value);
  }
  const text = `${cells[labelAt]}: ${pairs.join(' | ')}`;
  return offset >= 0 ? text : `${text} (columns: ${header.filter(Boolean).join(' | ')})`;
}

/**
 * The first line of a row label that wraps onto the row's line: a label starting lower-case ("assets (349)
 * (1,206)") continues the line above when that line holds no number, is not a heading (colon) or a sentence's end,
 * and is no row itself ("Acquisition of companies, net of cash acquired, and purchases of intangible and other").
 */
function labelStart(lines: readonly string[], at: number, label: string, rows: ReadonlySet<number>): number {
  if (!/^\p{Ll}/u.test(label) || at === 0 || rows.has(at - 1)) return at;
  const above = lines[at - 1]!.trim();
  const wraps = above !== '' && above.length <= 120 && !/[\d:.;]$/.test(above) && /^\p{Lu}/u.test(above);
  return wraps && !/\d/.test(above) ? at - 1 : at;
}

/**
 * Whether line `at`, split into `cells`, is a page's running header or footer: the first or last line with text, with
 * words in its cells and one value, a bare page number ("Apple Inc. | Q3 2023 Form 10-Q | 18").
 */
function pageMark(lines: readonly string[], at: number, cells: readonly string[]): boolean {
  const filled = lines.flatMap((line, index) => (line.trim() === '' ? [] : [index]));
  if (at !== filled[0] && at !== filled[filled.length - 1]) return false;
  const values = cells.filter((cell) => isValueLine(cell));
  return values.length === 1 && /^\d{1,4}$/.test(values[0]!.trim()) && /\p{L}/u.test(cells[0] ?? '');
}

/** Table rows (label with values) and sentences of one body, with their line spans. */
function candidatesOf(body: string): Candidate[] {
  const lines = body.split('\n');
  const out: Candidate[] = [];
  const rowLines = new Set<number>();
  const named = wordHeaders(lines);
  for (let lineIndex = 0; lineIndex < lines.length; lineIndex += 1) {
    const line = lines[lineIndex]!.trim();
    const header = named.get(lineIndex);
    if (header !== undefined) {
      // The header line labels the rows below and answers nothing alone; a rule line under it is layout.
      rowLines.add(lineIndex);
      const cells = delimitedCells(line)!;
      if (header.length === 0 || cells.every((cell) => cell === '' || isRule(cell))) continue;
      const text = namedRowText(cells, header);
      const label = cells.find((cell) => cell !== '');
      out.push({
        text: clip(text),
        ...(label ? { label } : {}),
        firstLine: lineIndex,
        lastLine: lineIndex,
        words: wordSet(text),
      });
      continue;
    }
    if (line === '' || isValueLine(line)) continue;
    if (dateHeader(line) ?? periodHeader(line) ?? (isPeriodLine(line) || undefined)) {
      // A header of dates or periods labels the columns below; alone it answers nothing.
      rowLines.add(lineIndex);
      continue;
    }
    const cells = cellsOf(line) ?? spacedRow(line);
    if (cells && pageMark(lines, lineIndex, cells)) {
      // A running header or footer ("Company | Form 10-Q | 18"): its number is the page's, not a value.
      rowLines.add(lineIndex);
      continue;
    }
    if (cells && YEAR.test(cells[1] ?? '') && cells.slice(1).every((cell) => YEAR.test(cell) || cell === '%')) {
      // A header row (years as columns) labels the rows below; alone it answers nothing.
      rowLines.add(lineIndex);
      continue;
    }
    if (cells && cells.slice(1).some((cell) => isValueLine(cell))) {
      const header = headerAbove(lines, lineIndex);
      const start = labelStart(lines, lineIndex, cells[0]!, rowLines);
      const label = [...lines.slice(start, lineIndex).map((l) => l.trim()), cells[0]!].join(' ');
      // The passage quotes every cell; the row's periods are read without a change column the header does not name.
      const text = rowText(label, cells.slice(1), header);
      const row = tableRow(lines, lineIndex, label, withoutChangeColumn(cells.slice(1), header), header, start);
      out.push({
        text: clip(text),
        label,
        row,
        firstLine: start,
        lastLine: lineIndex,
        words: wordSet(`${label} ${text}`),
      });
      for (let rowLine = start; rowLine <= lineIndex; rowLine += 1) rowLines.add(rowLine);
      continue;
    }
    // A label alone on its line followed by value lines: one row of a table as PDF text extraction lays it out.
    let valueEnd = lineIndex + 1;
    const values: string[] = [];
    while (valueEnd < lines.length && values.length < MAX_ROW_VALUES && isValueLine(lines[valueEnd]!))
      values.push(lines[valueEnd++]!);
    if (values.length > 0 && !values.every((v) => YEAR.test(v.trim())) && line.length <= 120) {
      const header = headerAbove(lines, lineIndex);
      const label = line.replace(/[:\s]+$/, '');
      const text = rowText(label, values, header);
      const row = tableRow(lines, lineIndex, label, values, header);
      out.push({ text: clip(text), label, row, firstLine: lineIndex, lastLine: valueEnd - 1, words: wordSet(text) });
      for (let rowLine = lineIndex; rowLine < valueEnd; rowLine += 1) rowLines.add(rowLine);
    }
  }
  // Sentences of the prose: paragraphs are runs of non-blank lines that are not table rows.
  let start = -1;
  const flush = (end: number) => {
    if (start < 0) return;
    for (const sentence of proseUnits(lines.slice(start, end))) {
      if (wordTokens(sentence).length < 3) continue;
      out.push({ text: clip(sentence), firstLine: start, lastLine: end - 1, words: wordSet(sentence) });
    }
    start = -1;
  };
  for (let lineIndex = 0; lineIndex <= lines.length; lineIndex += 1) {
    const line = lines[lineIndex];
    if (line === undefined || line.trim() === '' || rowLines.has(lineIndex) || isValueLine(line)) flush(lineIndex);
    else if (start < 0) start = lineIndex;
  }
  return out;
}

function citationOf(source: PassageSource, first: number, last: number): string {
  const name = source.uri.replace(/^file:/, '');
  // A PDF page is short and is how a reader finds the place; elsewhere the lines (or sheet rows) point to it.
  if (/\.pdf#\d+$/i.test(name)) return name;
  const lines = first === last ? `${first + 1}` : `${first + 1}-${last + 1}`;
  return source.frame ? `${name} (part ${source.frame}):${lines}` : `${name}:${lines}`;
}

/**
 * The `limit` passages of `sources` that best match `question`, best first. Term weights come from how rare a term is
 * among the candidate passages (a term every row has tells none apart); a passage scores the share of the
 * question's weight it holds. Passages that hold none of the terms are never returned.
 *
 * @example
 * findPassages('What were total sales in 2019?', [{ uri: 'q3.pdf#4', body: 'Total sales\n$1,496.5\n$1,202.9' }], 3);
 */
export function findPassages(question: string, sources: readonly PassageSource[], limit: number): Passage[] {
  const query = understandQuestion(question);
  const terms = query.terms;
  if (terms.length === 0) return [];
  const measures = questionMeasures(query.text);
  const all = sources.flatMap((source) =>
    candidatesOf(source.body).map((candidate) => ({ source, candidate: withMeasureWords(candidate, measures) })),
  );
  const weight = new Map<string, number>();
  for (const term of new Set(terms)) {
    const df = all.filter(({ candidate }) => candidate.words.has(term)).length;
    weight.set(term, Math.log(1 + (all.length + 1) / (df + 1)));
  }
  // Documents before passages: the sources come best document first (as search ranked them), so a passage of a
  // later document must match clearly better to lead. A name the file's own name holds (the company of
  // ACME_2022_10K.pdf) chose the document; among its passages it only favours those that repeat the name.
  const files = new Map<string, Set<string>>();
  for (const source of sources) {
    const file = fileOfUri(source.uri.replace(/^file:/, ''));
    if (files.has(file)) continue;
    const compact = file.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
    files.set(
      file,
      new Set(query.entities.filter((e) => e.length >= 3 && compact.includes(e)).map((e) => canonicalTerm(e))),
    );
  }
  const first = files.keys().next().value;
  const pagesOf = new Map<string, Set<string>>();
  for (const { source, candidate } of all) {
    const key = candidate.text.toLowerCase();
    pagesOf.set(key, (pagesOf.get(key) ?? new Set()).add(source.uri));
  }
  const pageMatch = pageMatches(sources, weight, files);
  const pairs = questionPairs(query.text, new Set(terms));
  const asked = new Set(terms);
  const scored: Passage[] = [];
  for (const { source, candidate } of all) {
    const file = fileOfUri(source.uri.replace(/^file:/, ''));
    const named = files.get(file)!;
    const words = candidate.words;
    let matched = 0;
    let total = 0;
    for (const [term, termWeight] of weight) {
      if (named.has(term)) continue;
      total += termWeight;
      if (words.has(term)) matched += termWeight;
    }
    if (matched === 0) continue;
    const phrase = pairs.length ? phraseShare(candidate.text, pairs) * PHRASE_WEIGHT : 0;
    const label = candidate.label === undefined ? 0 : labelPrecision(candidate.label, asked) * LABEL_WEIGHT;
    const row = candidate.row;
    const measure = file === first && row && statementLine(row, measures) ? MEASURE_ROW_WEIGHT : 0;
    const quoted = file === first && row && !measure && quotesLabel(query.text, row.label) ? QUOTED_ROW_WEIGHT : 0;
    scored.push({
      citation: citationOf(source, candidate.firstLine, candidate.lastLine),
      text: candidate.text,
      score:
        Math.round(
          (matched / (total || 1) + phrase + label + measure + quoted + PAGE_WEIGHT * (pageMatch.get(source) ?? 0)) *
            (file === first ? 1 : LATER_DOCUMENT_WEIGHT) *
            (pagesOf.get(candidate.text.toLowerCase())!.size > 1 ? REPEATED_WEIGHT : 1) *
            1000,
        ) / 1000,
      ...(candidate.row ? { row: candidate.row } : {}),
    });
  }
  // Stable: equal scores keep document order, so the answer does not depend on sort internals.
  return scored
    .map((passage, order) => ({ passage, order }))
    .sort((a, b) => b.passage.score - a.passage.score || a.order - b.order)
    .slice(0, Math.max(0, limit))
    .map(({ passage }) => passage);
}

/** The words of a text in canonical form, in order, between spaces (function words kept). */
function wordSequence(text: string): string {
  return ` ${wordTokens(text).map(canonicalTerm).join(' ')} `;
}

/**
 * Whether `question` says a row's label word for word (in canonical form, {@link canonicalTerm}), a label of three
 * words or more with a word that is not a function word; footnote markers and numbers of the label aside.
 */
export function quotesLabel(question: string, label: string): boolean {
  const words = wordTokens(label.replace(/\(\d+\)|\(\w\)(?=\s*$)|\d[\d,.]*/g, ' ')).map(canonicalTerm);
  if (words.length < 3 || labelWords(label).length === 0) return false;
  return wordSequence(question).includes(` ${words.join(' ')} `);
}

/** Whether a row is the line of one of `measures` in that measure's statement (see {@link MEASURE_ROW_WEIGHT}). */
function statementLine(row: TableRow, measures: readonly Measure[]): boolean {
  const statement = statementOf(row.title ?? '');
  return (
    statement !== undefined && measures.some((m) => m.statement === statement && labelPrints(m, row.label, row.section))
  );
}

/**
 * A candidate with the words of the measures its row label prints (see measures.ts): "Purchases of property and
 * equipment" holds "capital expenditure"; not on a page titled as another statement than the measure's. Counted
 * before term weights, so a word a synonym row holds is as rare as it is.
 */
function withMeasureWords(candidate: Candidate, measures: readonly Measure[]): Candidate {
  const row = candidate.row;
  if (!row || measures.length === 0) return candidate;
  // On another statement the label prints another figure (the change in inventories on the cash flow statement).
  const statement = statementOf(row.title ?? '');
  const prints = measures.filter(
    (measure) =>
      labelPrints(measure, row.label, row.section) &&
      (statement === undefined || measure.statement === undefined || measure.statement === statement),
  );
  if (prints.length === 0) return candidate;
  return { ...candidate, words: new Set([...candidate.words, ...prints.flatMap((m) => [...measureWords(m)])]) };
}

/**
 * How well each source as a whole matches the question, 0..1 against the best of them: the saturated counts of the
 * weighted terms in its words, leaving out the names its file is named after (every page of the file may say them).
 */
function pageMatches(
  sources: readonly PassageSource[],
  weight: ReadonlyMap<string, number>,
  named: ReadonlyMap<string, ReadonlySet<string>>,
): Map<PassageSource, number> {
  const scores = sources.map((source) => {
    const counts = new Map<string, number>();
    for (const word of wordTokens(source.body)) {
      const term = canonicalTerm(word);
      if (weight.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    const skip = named.get(fileOfUri(source.uri.replace(/^file:/, '')));
    let score = 0;
    for (const [term, termWeight] of weight) {
      const tf = counts.get(term) ?? 0;
      if (tf > 0 && !skip?.has(term)) score += (termWeight * tf * (PAGE_K1 + 1)) / (tf + PAGE_K1);
    }
    return score;
  });
  const best = Math.max(0, ...scores) || 1;
  return new Map(sources.map((source, i) => [source, scores[i]! / best]));
}

/** Share of a row label's words (function words aside) that are terms of the question; 0 for a label of none. */
export function labelPrecision(label: string, terms: ReadonlySet<string>): number {
  const words = labelWords(label);
  return words.length === 0 ? 0 : words.filter((w) => terms.has(w)).length / words.length;
}

/** A row label's words in canonical form, without function words and numbers ("Total other assets" → total, other, asset). */
export function labelWords(label: string): string[] {
  return [...new Set(queryTerms(label).map(canonicalTerm))].filter((w) => /\p{L}/u.test(w));
}

/** Consecutive word pairs of the question with a search term in them ("total other", "other asset"). */
function questionPairs(text: string, terms: ReadonlySet<string>): string[] {
  const words = wordTokens(text).map(canonicalTerm);
  const pairs: string[] = [];
  for (let index = 0; index + 1 < words.length; index += 1)
    if (terms.has(words[index]!) || terms.has(words[index + 1]!)) pairs.push(` ${words[index]} ${words[index + 1]} `);
  return pairs;
}

/** Share of the question's word pairs that a passage holds in the same order. */
function phraseShare(text: string, pairs: readonly string[]): number {
  const sequence = ` ${wordTokens(text).map(canonicalTerm).join(' ')} `;
  return pairs.filter((pair) => sequence.includes(pair)).length / pairs.length;
}

/** Keeps the `limit` best of several lists of passages (e.g. one list a batch), best first, without duplicates. */
export function mergePassages(lists: readonly (readonly Passage[])[], limit: number): Passage[] {
  const seen = new Set<string>();
  const merged: Passage[] = [];
  for (const passage of lists.flat().sort((a, b) => b.score - a.score)) {
    const key = `${passage.citation}\n${passage.text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    merged.push(passage);
  }
  return merged.slice(0, Math.max(0, limit));
}

/**
 * `passages` with the question's names that the pages read of each one's document say ({@link Passage.names}): a
 * filing named by its ticker still says its company's name on its pages.
 */
export function namesRead(question: string, passages: readonly Passage[], pages: readonly PassageSource[]): Passage[] {
  const { entities } = understandQuestion(question);
  if (entities.length === 0) return [...passages];
  const words = new Map<string, Set<string>>();
  for (const page of pages) {
    const file = fileOfUri(page.uri.replace(/^file:/, ''));
    const seen = words.get(file) ?? new Set<string>();
    // Letters and digits only: "AMAZON.COM, INC." says amazon.
    for (const word of page.body.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) seen.add(word);
    words.set(file, seen);
  }
  return passages.map((passage) => {
    const seen = words.get(fileOfUri(passage.citation.replace(/:[\d-]+$/, '')));
    const names = seen ? entities.filter((e) => seen.has(e)) : [];
    return names.length > 0 ? { ...passage, names } : passage;
  });
}
