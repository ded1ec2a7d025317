/**
 * Cuts text into the units an extractive compressor keeps or drops (sentences of prose, lines of logs,
 * rows of tables, turns of chats, headings) and joins a chosen subset back. Units are exact substrings of
 * the input, so a kept sentence appears verbatim in the output. A unit names the units that give it its
 * meaning (a table row its column headers, a sentence of a long chat turn its speaker), to be kept with it.
 */
import { hasDigit, letterUnits } from './characters.js';
import { sentenceSpans } from './sentences.js';
import { statementContexts, statementRowStarts } from './statement-rows.js';
import { skipWhitespace, splitOnWhitespace } from './whitespace.js';

/** How to cut text into units; `auto` decides per run of lines (lines when they look structured). */
export type UnitMode = 'sentence' | 'line' | 'auto';

/** One unit of a text: an exact substring of the input. */
export interface TextUnit {
  /** Position in the unit list, which is document order. */
  readonly index: number;
  readonly text: string;
  /** Offsets in the input: `input.slice(start, end) === text`. */
  readonly start: number;
  readonly end: number;
  /** Paragraph (blank-line separated block) the unit is in. */
  readonly block: number;
  /** Position inside its paragraph: 0 for the lead unit. */
  readonly position: number;
  /**
   * `heading`: a markdown header line or the `Title:` label that opens a paragraph. `row`: a table row
   * with its row label (in one-cell-per-line tables, the label line and its value lines). `header`: a
   * table's column header row (or markdown separator). `label`: the `Speaker:` prefix of a chat turn cut
   * into sentences. Headers and labels say what other units mean and are kept only with them.
   */
  readonly kind: 'sentence' | 'line' | 'heading' | 'row' | 'header' | 'label';
  /** Index of the heading this unit sits under, if any (for a heading: its parent heading). */
  readonly heading?: number;
  /** Units to keep with this one, in document order: a row's column headers, a sentence's speaker label. */
  readonly requires?: readonly number[];
}

/**
 * Whether a unit can be kept on its own. Table headers and speaker labels only come with a unit they
 * explain; a heading may stand alone, as the outline of what was left out.
 */
export function isContentUnit(unit: TextUnit): boolean {
  return unit.kind === 'sentence' || unit.kind === 'line' || unit.kind === 'row' || unit.kind === 'heading';
}

/** Options of {@link segmentText}. */
export interface SegmentOptions {
  /**
   * Cut markdown headers and leading `Title:` labels into heading units, so a compressor can keep a
   * unit's heading with it. Off: headers are plain lines and labels stay in their first sentence.
   */
  headings?: boolean;
}

// A line that reads as a record rather than prose: list item, table row, key: value, log line, JSON-ish.
const STRUCTURED_LINE =
  /^\s*(?:[-*+•]\s|\d{1,3}[.)]\s|\||[[{]|[A-Za-z_][\w .\-/]{0,40}:\s|\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|(?:TRACE|DEBUG|INFO|WARN(?:ING)?|ERROR|FATAL)\b)|\t|\S {2,}\S/u;
/** A markdown (ATX) header line; group 1 is its `#`s, whose count is the level. */
export const MARKDOWN_HEADER = /^ {0,3}(#{1,6})[ \t]+\S/u;
// A paragraph label like `Michael Jackson (writer): ...`: short, no colon inside, followed by text.
const LEAD_LABEL = /^([^:\n]{1,100}):[ \t]+(?=\S)/u;
const MAX_LABEL_WORDS = 12;
// Lines longer than this are prose even in a line-structured run, and are cut into sentences.
const LONG_LINE_CHARS = 300;

interface Span {
  start: number;
  end: number;
}

/**
 * Cuts `text` into units. Paragraphs are separated by blank lines; inside a paragraph, markdown header
 * lines are units of their own and the other lines are cut by `mode`: in `line` and `auto` mode tables
 * (pipe, whitespace-aligned, CSV/TSV, one cell per line) become rows that require their column headers,
 * and chats become turns, a long turn cut into sentences that require its `Speaker:` label.
 *
 * @example
 * segmentText('Intro one. Intro two.\n\nid: 7\nstatus: ok', 'auto').map((u) => u.text);
 * // ['Intro one.', 'Intro two.', 'id: 7', 'status: ok']
 */
export function segmentText(text: string, mode: UnitMode, options: SegmentOptions = {}): TextUnit[] {
  const headings = options.headings ?? false;
  const units: TextUnit[] = [];
  // Open markdown headings by level, so a unit sits under the nearest one above it.
  const open: { level: number; index: number }[] = [];
  const currentHeading = (): number | undefined => open[open.length - 1]?.index;

  const push = (
    span: Span,
    block: number,
    position: number,
    kind: TextUnit['kind'],
    heading: number | undefined,
    requires?: readonly number[],
  ): number => {
    const unit: TextUnit = {
      index: units.length,
      text: text.slice(span.start, span.end),
      start: span.start,
      end: span.end,
      block,
      position,
      kind,
      ...(heading === undefined ? {} : { heading }),
      ...(requires === undefined || requires.length === 0 ? {} : { requires }),
    };
    units.push(unit);
    return unit.index;
  };

  paragraphs(text).forEach((para, block) => {
    // Position counts body units only, so the lead sentence is 0 even under a label.
    let position = 0;
    let run: Span[] = [];
    const pushSentences = (span: Span, parent: number | undefined, requires?: readonly number[]): void => {
      for (const sentence of sentenceSpans(text, span.start, span.end))
        push(sentence, block, position++, 'sentence', parent, requires);
    };
    const pushTable = (table: TableRows, parent: number | undefined): void => {
      const headers: number[] = [];
      for (const row of table.rows) {
        if (row.header) headers.push(push(row.span, block, position++, 'header', parent));
        else push(row.span, block, position++, row.label ? 'row' : 'line', parent, row.label ? headers : undefined);
      }
    };
    const pushProse = (lines: Span[], parent: number | undefined): void => {
      const first = lines[0];
      const last = lines[lines.length - 1];
      if (!first || !last) return;
      let start = first.start;
      if (headings && position === 0) {
        const label = leadLabel(text, { start, end: last.end });
        if (label) {
          parent = push(label, block, position, 'heading', parent);
          start = skipWhitespace(text, label.end);
        }
      }
      pushSentences({ start, end: last.end }, parent);
    };
    const pushLines = (lines: Span[], parent: number | undefined): void => {
      const chat = chatTurns(text, lines);
      if (chat) {
        for (const turn of chat) {
          if (turn.body === undefined) {
            push(turn.span, block, position++, 'line', parent);
          } else {
            const label = push(turn.label, block, position, 'label', parent);
            pushSentences(turn.body, parent, [label]);
          }
        }
        return;
      }
      const table = tableRows(text, lines);
      if (table) {
        pushTable(table, parent);
        return;
      }
      if (mode === 'line' || looksStructured(text, lines)) {
        // A statement row whose label wraps over lines is one unit: its values with what they are. Its table's
        // caption and column headers come with it, as a markdown table's rows come with their header.
        const texts = lines.map((line) => text.slice(line.start, line.end));
        const starts = statementRowStarts(texts);
        const contexts = statementContexts(texts, starts);
        const headerLines = new Set([...contexts.values()].flatMap((context) => context.headers));
        const unitOfLine = new Map<number, number>();
        for (const [at, line] of lines.entries()) {
          if (starts[at] !== at) continue;
          let last = at;
          while (starts[last + 1] === at) last += 1;
          const context = contexts.get(at);
          const requires = context
            ? [...context.caption, ...context.headers].flatMap((index) => unitOfLine.get(index) ?? [])
            : undefined;
          const span = { start: line.start, end: lines[last]!.end };
          if (context) unitOfLine.set(at, push(span, block, position++, 'row', parent, requires));
          else if (headerLines.has(at)) unitOfLine.set(at, push(span, block, position++, 'header', parent));
          else if (line.end - line.start > LONG_LINE_CHARS) pushSentences(line, parent);
          else unitOfLine.set(at, push(span, block, position++, 'line', parent));
        }
        return;
      }
      pushProse(lines, parent);
    };
    const flush = (): void => {
      const lines = run;
      run = [];
      if (lines.length === 0) return;
      const parent = currentHeading();
      if (mode === 'sentence') {
        pushProse(lines, parent);
        return;
      }
      // A pipe table may follow a caption line without a blank line between them.
      for (const part of splitPipeRuns(text, lines)) pushLines(part, parent);
    };
    for (const line of linesOf(text, para)) {
      const header = MARKDOWN_HEADER.exec(text.slice(line.start, line.end));
      if (header) {
        flush();
        const level = header[1]?.length ?? 1;
        while (open.length > 0 && (open[open.length - 1]?.level ?? 0) >= level) open.pop();
        push(line, block, position, headings ? 'heading' : 'line', currentHeading());
        if (headings) open.push({ level, index: units.length - 1 });
        else position += 1;
      } else {
        run.push(line);
      }
    }
    flush();
  });
  return units;
}

// ---------------------------------------------------------------------------------------------
// Tables

/** A table's lines grouped into rows: header rows, and body rows with (or without) a row label. */
interface TableRows {
  rows: { span: Span; header: boolean; label: boolean }[];
}

const PIPE_LINE = /^\s*\|?(?:[^|\n]*\|){2,}[^|\n]*$/u;
const PIPE_SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$/u;
const ALIGNED_GAP = /\S(?: {2,}|\t)\S/u;
// One-cell-per-line tables hold short lines only; longer lines are prose or records.
const CELL_LINE_CHARS = 80;

/** Most letters in a value cell's unit or currency code ("€m", "bn", "USD"); a label with a number has more. */
export const MAX_UNIT_LETTERS = 3;

/**
 * Fewest lines of a delimited (CSV, TSV) or space-aligned table: two lines with the same commas or gaps are
 * as often prose as a header and one row.
 */
export const MIN_TABLE_LINES = 3;

/** Most lines above a pipe table's `|---|` separator that are its column headers. */
export const MAX_HEADER_LINES = 3;

/** Fewest lines of a table written one cell per line: a label and its values for two columns, at least. */
export const MIN_CELL_PER_LINE_LINES = 4;

/** A run whose median line is shorter than this reads as structured (a list, a log), not wrapped prose. */
export const SHORT_LINE_CHARS = 40;
const YEAR_CELL = /^\D{0,4}(?:19|20)\d{2}\b/u;

// What a table writes in a cell for "no value", beside a run of dashes; compared in lower case.
const NO_VALUE_WORDS: ReadonlySet<string> = new Set(['n/a', 'na', 'nil', 'none']);
const DASHES = '-–—−';

/** Whether `cell` is one or more dashes of any kind (hyphen, en, em, minus sign). */
const isDashRun = (cell: string): boolean => cell !== '' && [...cell].every((char) => DASHES.includes(char));

/** A cell that holds a value (an amount, a percentage, a year, a dash for none) rather than a label. */
export function isValueCell(cell: string): boolean {
  const trimmed = cell.trim();
  if (trimmed === '') return false;
  if (isDashRun(trimmed) || NO_VALUE_WORDS.has(trimmed.toLowerCase())) return true;
  if (!hasDigit(trimmed)) return false;
  // Units and currency codes are short ("€m", "bn", "%"); a label with a number in it has words.
  return letterUnits(trimmed) <= MAX_UNIT_LETTERS;
}

/** Runs of pipe-table lines apart from the lines around them (a caption, a note below the table). */
function splitPipeRuns(text: string, lines: Span[]): Span[][] {
  const isPipe = lines.map((l) => PIPE_LINE.test(text.slice(l.start, l.end)));
  if (isPipe.filter(Boolean).length < 2 || isPipe.every(Boolean)) return [lines];
  const parts: Span[][] = [];
  lines.forEach((line, index) => {
    const last = parts[parts.length - 1];
    if (last && isPipe[index] === isPipe[index - 1]) last.push(line);
    else parts.push([line]);
  });
  return parts;
}

function tableRows(text: string, lines: Span[]): TableRows | undefined {
  const raw = lines.map((l) => text.slice(l.start, l.end));
  if (lines.length >= 2 && raw.every((line) => PIPE_LINE.test(line))) return pipeTable(lines, raw);
  const delimited = delimitedTable(lines, raw);
  if (delimited) return delimited;
  if (lines.length >= MIN_TABLE_LINES && raw.filter((line) => ALIGNED_GAP.test(line)).length * 10 >= raw.length * 6) {
    return cellTable(
      lines,
      raw.map((line) => line.trim().split(/ {2,}|\t/u)),
    );
  }
  return cellPerLineTable(lines, raw);
}

function pipeCells(line: string): string[] {
  let row = line.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|')) row = row.slice(0, -1);
  return row.split('|').map((c) => c.trim());
}

function pipeTable(lines: Span[], raw: string[]): TableRows {
  const separator = raw.findIndex((line) => PIPE_SEPARATOR.test(line));
  const rows = lines.map((span) => ({ span, header: false, label: false }));
  const cells = raw.map(pipeCells);
  let bodyStart = 0;
  if (separator >= 0 && separator <= MAX_HEADER_LINES) {
    for (const row of rows.slice(0, separator + 1)) row.header = true;
    bodyStart = separator + 1;
  }
  return finishTable(rows, cells, bodyStart);
}

/**
 * Marks the leading rows that have no row label and values (a second header row: ["", "2019", "2018"])
 * or only years as values ("Year ended  2019  2018") as headers too, then labels the body rows.
 */
function finishTable(rows: TableRows['rows'], cells: string[][], bodyStart: number): TableRows {
  let firstBody = bodyStart;
  for (; firstBody < rows.length; firstBody += 1) {
    const row = cells[firstBody] ?? [];
    const label = row[0] ?? '';
    const values = row.slice(1).filter((c) => c.trim() !== '');
    const labelled = label.trim() !== '' && !isValueCell(label);
    const yearsOnly = values.length > 0 && values.every((c) => YEAR_CELL.test(c.trim()));
    if (labelled && values.some(isValueCell) && !yearsOnly) break;
    const tableRow = rows[firstBody];
    if (tableRow) tableRow.header = true;
  }
  // A table whose every row looks like a header has none: its rows are its content.
  if (firstBody >= rows.length) {
    for (const tableRow of rows.slice(bodyStart)) tableRow.header = false;
    firstBody = bodyStart;
  }
  for (let rowIndex = firstBody; rowIndex < rows.length; rowIndex += 1) {
    const tableRow = rows[rowIndex];
    const label = cells[rowIndex]?.[0] ?? '';
    if (tableRow) tableRow.label = label.trim() !== '' && !isValueCell(label);
  }
  return { rows };
}

function cellTable(lines: Span[], cells: string[][]): TableRows | undefined {
  const rows = lines.map((span) => ({ span, header: false, label: false }));
  const table = finishTable(rows, cells, 0);
  return table.rows.some((r) => r.header) ? table : undefined;
}

/** CSV or TSV: three or more lines with the same number (≥ 2) of fields; the first line is the header. */
function delimitedTable(lines: Span[], raw: string[]): TableRows | undefined {
  if (lines.length < MIN_TABLE_LINES) return undefined;
  for (const delimiter of ['\t', ',', ';']) {
    if (!raw.every((line) => line.includes(delimiter))) continue;
    const cells = raw.map((line) => splitDelimited(line, delimiter));
    const width = cells[0]?.length ?? 0;
    if (width < 2 || !cells.every((row) => row.length === width)) continue;
    // Prose with commas rarely has the same count on every line, but a sentence ending says it is prose.
    if (delimiter !== '\t' && raw.some((line) => /[.!?]\s+\p{Lu}/u.test(line))) continue;
    const rows = lines.map((span, i) => ({ span, header: i === 0, label: i > 0 }));
    return { rows };
  }
  return undefined;
}

function splitDelimited(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let position = 0; position < line.length; position += 1) {
    const ch = line[position] ?? '';
    if (ch === '"') {
      if (quoted && line[position + 1] === '"') {
        cell += '"';
        position += 1;
      } else quoted = !quoted;
    } else if (ch === delimiter && !quoted) {
      cells.push(cell);
      cell = '';
    } else cell += ch;
  }
  cells.push(cell);
  return cells;
}

/**
 * A table as PDF text extraction gives it: one cell per line, a row label line followed by its value
 * lines. Each label with its values becomes one row unit; the lines before the first such row, and
 * leading rows whose values are only years, are the column headers.
 */
function cellPerLineTable(lines: Span[], raw: string[]): TableRows | undefined {
  if (lines.length < MIN_CELL_PER_LINE_LINES) return undefined;
  if (raw.some((line) => line.trim().length > CELL_LINE_CHARS)) return tablesBetweenLongLines(lines, raw);
  const value = raw.map(isValueCell);
  if (value.filter(Boolean).length * 10 < raw.length * 4) return undefined;
  type Group = { first: number; last: number; label: boolean; yearsOnly: boolean };
  const groups: Group[] = [];
  for (let lineIndex = 0; lineIndex < raw.length;) {
    if (!value[lineIndex] && value[lineIndex + 1]) {
      let last = lineIndex + 1;
      while (value[last + 1]) last += 1;
      const values = raw.slice(lineIndex + 1, last + 1);
      groups.push({ first: lineIndex, last, label: true, yearsOnly: values.every((v) => YEAR_CELL.test(v.trim())) });
      lineIndex = last + 1;
    } else {
      groups.push({ first: lineIndex, last: lineIndex, label: false, yearsOnly: false });
      lineIndex += 1;
    }
  }
  if (!groups.some((g) => g.label && !g.yearsOnly)) return undefined;
  const rows: TableRows['rows'] = [];
  let body = false;
  for (const group of groups) {
    if (!body && group.label && !group.yearsOnly) body = true;
    const span = { start: lines[group.first]?.start ?? 0, end: lines[group.last]?.end ?? 0 };
    rows.push({ span, header: !body, label: body && group.label });
  }
  return { rows };
}

/**
 * PDF and HTML extraction put a table's caption, notes and the prose around it in one block with the
 * cells, often as lines longer than any cell: each run of short lines between them is read as a table of
 * its own, the long lines as plain lines. Undefined when no run is a table.
 */
function tablesBetweenLongLines(lines: Span[], raw: string[]): TableRows | undefined {
  const rows: TableRows['rows'] = [];
  let found = false;
  let start = 0;
  const flush = (end: number): void => {
    if (end <= start) return;
    const table = cellPerLineTable(lines.slice(start, end), raw.slice(start, end));
    if (table) {
      rows.push(...table.rows);
      found = true;
    } else for (const span of lines.slice(start, end)) rows.push({ span, header: false, label: false });
  };
  raw.forEach((line, lineIndex) => {
    if (line.trim().length <= CELL_LINE_CHARS) return;
    flush(lineIndex);
    rows.push({ span: lines[lineIndex] as Span, header: false, label: false });
    start = lineIndex + 1;
  });
  flush(raw.length);
  return found ? { rows } : undefined;
}

// ---------------------------------------------------------------------------------------------
// Chats

// `Speaker: text`, optionally after a `[timestamp]` or an ISO date-time: a turn of a chat or transcript.
const SPEAKER_LINE =
  /^(\s*(?:\[[^\]\n]{1,40}\]\s*)?(?:\d{4}-\d{2}-\d{2}(?:[ T][\d:.]+Z?)?\s+)?\p{L}[\p{L}\p{N} ._'-]{0,30}:)[ \t]+\S/u;
// A turn longer than this is cut into sentences, each kept with the speaker label.
const LONG_TURN_CHARS = 160;

/** One turn: short ones are a single line; long ones a label and a body cut into sentences. */
type ChatTurn = { span: Span; body?: undefined } | { span: Span; label: Span; body: Span };

/**
 * The turns of a chat: a run whose lines mostly start with `Speaker:`, with few distinct speakers (key:
 * value records have as many keys as lines). Lines without a speaker continue the turn above.
 */
function chatTurns(text: string, lines: Span[]): ChatTurn[] | undefined {
  if (lines.length < 2) return undefined;
  const labels = lines.map((l) => SPEAKER_LINE.exec(text.slice(l.start, l.end))?.[1]);
  const speakers = labels.filter((x): x is string => x !== undefined);
  if (labels[0] === undefined || speakers.length * 10 < lines.length * 6) return undefined;
  const names = new Set(
    speakers.map((label) =>
      label
        .replace(/^.*[\]\d]\s*/u, '')
        .trim()
        .toLowerCase(),
    ),
  );
  if (names.size > Math.max(2, Math.floor(speakers.length / 3))) return undefined;
  const turns: { first: number; last: number }[] = [];
  labels.forEach((label, lineIndex) => {
    const last = turns[turns.length - 1];
    if (label === undefined && last) last.last = lineIndex;
    else turns.push({ first: lineIndex, last: lineIndex });
  });
  return turns.map(({ first, last }) => {
    const start = lines[first]?.start ?? 0;
    const end = lines[last]?.end ?? start;
    const span = { start, end };
    if (first === last && end - start <= LONG_TURN_CHARS) return { span };
    const labelEnd = start + (labels[first]?.length ?? 0);
    return { span, label: { start, end: labelEnd }, body: { start: skipWhitespace(text, labelEnd), end } };
  });
}

/**
 * Joins kept units back into text, in document order. Neighbours that were neighbours in the input
 * keep the whitespace between them (so a run of kept sentences is verbatim); across a gap, units of
 * one line are joined by a space, of one paragraph by a newline, else by a blank line.
 */
export function joinUnits(text: string, units: readonly TextUnit[], kept: Iterable<number>): string {
  const chosen = [...new Set(kept)].sort((a, b) => a - b);
  let out = '';
  let previous: TextUnit | undefined;
  for (const index of chosen) {
    const unit = units[index];
    if (!unit) continue;
    if (previous) {
      if (unit.index === previous.index + 1) out += text.slice(previous.end, unit.start);
      else if (unit.block !== previous.block) out += '\n\n';
      else out += text.slice(previous.end, unit.start).includes('\n') ? '\n' : ' ';
    }
    out += unit.text;
    previous = unit;
  }
  return out;
}

/** Blank-line separated paragraphs, trimmed of surrounding blank lines. */
function paragraphs(text: string): Span[] {
  const spans: Span[] = [];
  const separator = /\n[ \t]*\n\s*/gu;
  let start = 0;
  for (const match of text.matchAll(separator)) {
    pushTrimmed(text, start, match.index, spans);
    start = match.index + match[0].length;
  }
  pushTrimmed(text, start, text.length, spans);
  return spans;
}

function linesOf(text: string, para: Span): Span[] {
  const spans: Span[] = [];
  let start = para.start;
  while (start <= para.end) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 || nl > para.end ? para.end : nl;
    // Keep indentation (it carries structure in tables and code), drop trailing whitespace.
    const trimmedEnd = start + text.slice(start, end).trimEnd().length;
    if (trimmedEnd > start && text.slice(start, trimmedEnd).trim().length > 0) spans.push({ start, end: trimmedEnd });
    start = end + 1;
  }
  return spans;
}

function pushTrimmed(text: string, start: number, end: number, into: Span[]): void {
  const slice = text.slice(start, end);
  const lead = slice.length - slice.trimStart().length;
  const trail = slice.length - slice.trimEnd().length;
  if (start + lead < end - trail) into.push({ start: start + lead, end: end - trail });
}

// Two or more lines, and at least half of them look like records or they are short: a table, a log,
// a list. Hard-wrapped prose has long lines that do not look like records, and reads as sentences.
function looksStructured(text: string, run: Span[]): boolean {
  if (run.length < 2) return false;
  const lines = run.map((s) => text.slice(s.start, s.end));
  const structured = lines.filter((line) => STRUCTURED_LINE.test(line)).length;
  const lengths = lines.map((line) => line.trim().length).sort((a, b) => a - b);
  const median = lengths[Math.floor(lengths.length / 2)] ?? 0;
  return structured * 2 >= lines.length || median < SHORT_LINE_CHARS;
}

function leadLabel(text: string, span: Span): Span | undefined {
  const match = LEAD_LABEL.exec(text.slice(span.start, span.end));
  const label = match?.[1];
  if (!match || label === undefined) return undefined;
  if (splitOnWhitespace(label.trim()).length > MAX_LABEL_WORDS) return undefined;
  return { start: span.start, end: span.start + label.length + 1 };
}
