/**
 * Cuts text into the units an extractive compressor keeps or drops (sentences of prose, lines of
 * logs and tables, headings) and joins a chosen subset back. Units are exact substrings of the input,
 * so a kept sentence appears verbatim in the output.
 */

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
  /** A heading is a markdown header line or the `Title:` label that opens a paragraph. */
  readonly kind: 'sentence' | 'line' | 'heading';
  /** Index of the heading this unit sits under, if any (for a heading: its parent heading). */
  readonly heading?: number;
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
const MARKDOWN_HEADER = /^ {0,3}(#{1,6})[ \t]+\S/u;
// A paragraph label like `Michael Jackson (writer): ...`: short, no colon inside, followed by text.
const LEAD_LABEL = /^([^:\n]{1,100}):[ \t]+(?=\S)/u;
const MAX_LABEL_WORDS = 12;
// Lines longer than this are prose even in a line-structured run, and are cut into sentences.
const LONG_LINE_CHARS = 300;

// Periods after these words (compared lowercase, without the period) do not end a sentence.
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'jr',
  'sr',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'inc',
  'ltd',
  'co',
  'corp',
  'no',
  'nos',
  'vol',
  'fig',
  'gen',
  'col',
  'lt',
  'sgt',
  'capt',
  'rev',
  'hon',
  'mt',
  'ft',
  'ave',
  'blvd',
  'rd',
  'u.s',
  'u.k',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'approx',
  'dept',
  'est',
  'op',
  'cf',
  'al',
  'p',
  'pp',
  'ch',
  'sec',
]);
const SENTENCE_END = /([.!?…]+)["'”’)\]]*(?=\s)/gu;

interface Span {
  start: number;
  end: number;
}

/**
 * Cuts `text` into units. Paragraphs are separated by blank lines; inside a paragraph, markdown header
 * lines are units of their own and the other lines are cut by `mode`.
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
  ): void => {
    const unit: TextUnit = {
      index: units.length,
      text: text.slice(span.start, span.end),
      start: span.start,
      end: span.end,
      block,
      position,
      kind,
      ...(heading === undefined ? {} : { heading }),
    };
    units.push(unit);
  };

  paragraphs(text).forEach((para, block) => {
    // Position counts body units only, so the lead sentence is 0 even under a label.
    let position = 0;
    let run: Span[] = [];
    const flush = (): void => {
      const lines = run;
      run = [];
      const first = lines[0];
      const last = lines[lines.length - 1];
      if (!first || !last) return;
      let parent = currentHeading();
      if (mode === 'line' || (mode === 'auto' && looksStructured(text, lines))) {
        for (const line of lines) {
          if (line.end - line.start > LONG_LINE_CHARS) {
            for (const sentence of sentences(text, line)) push(sentence, block, position++, 'sentence', parent);
          } else {
            push(line, block, position++, 'line', parent);
          }
        }
        return;
      }
      let start = first.start;
      const label = headings && position === 0 ? leadLabel(text, { start, end: last.end }) : undefined;
      if (label) {
        push(label, block, position, 'heading', parent);
        parent = units.length - 1;
        start = skipSpace(text, label.end);
      }
      for (const sentence of sentences(text, { start, end: last.end }))
        push(sentence, block, position++, 'sentence', parent);
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
  return structured * 2 >= lines.length || median < 40;
}

/** Sentence spans inside `span`: a break after `.`, `!`, `?` or `…` followed by a space, unless it ends an abbreviation or an initial, or the next word starts lowercase. */
function sentences(text: string, span: Span): Span[] {
  const out: Span[] = [];
  const body = text.slice(span.start, span.end);
  let start = 0;
  for (const match of body.matchAll(SENTENCE_END)) {
    const end = match.index + match[0].length;
    const nextStart = skipSpace(body, end);
    const next = body[nextStart];
    if (next === undefined) break;
    if (/\p{Ll}/u.test(next)) continue;
    if (match[1] === '.' && isAbbreviation(body, match.index)) continue;
    pushTrimmed(text, span.start + start, span.start + end, out);
    start = nextStart;
  }
  pushTrimmed(text, span.start + start, span.end, out);
  return out;
}

function isAbbreviation(body: string, periodAt: number): boolean {
  const word = /(?:^|[\s("'“‘[])([\p{L}.]+)$/u.exec(body.slice(Math.max(0, periodAt - 20), periodAt))?.[1];
  if (word === undefined) return false;
  // A single capital letter is an initial: "Herbert L. Kessler".
  if (/^\p{Lu}$/u.test(word)) return true;
  // Dotted acronyms: "Ph.D.", "M.F.A.", "U.S.". Merging two sentences is the cheaper mistake.
  if (/^(?:\p{L}{1,3}\.)+\p{L}{1,3}$/u.test(word)) return true;
  return ABBREVIATIONS.has(word.toLowerCase());
}

function skipSpace(text: string, at: number): number {
  const space = /\s*/uy;
  space.lastIndex = at;
  return at + (space.exec(text)?.[0].length ?? 0);
}

function leadLabel(text: string, span: Span): Span | undefined {
  const match = LEAD_LABEL.exec(text.slice(span.start, span.end));
  const label = match?.[1];
  if (!match || label === undefined) return undefined;
  if (label.trim().split(/\s+/u).length > MAX_LABEL_WORDS) return undefined;
  return { start: span.start, end: span.start + label.length + 1 };
}
