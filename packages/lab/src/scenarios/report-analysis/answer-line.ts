/**
 * The one-line answer of an extractive analysis: a figure stated only when the documents read leave no doubt about
 * it. The question must ask for one value (what it is, for one period, not how it changed), and one table row must
 * print it: a row whose label the question quotes, or a row of the right statement whose label the synonym table
 * (measures.ts) gives for the measure the question names ("capital expenditure" → "Purchases of property and
 * equipment" in the statement of cash flows), in the document of the company it names, with one column for that
 * period ("Q3 2022": the three months ended in 2022, where the table also has nine months). Two rows or two periods
 * that fit, and there is no line: the passages alone are the answer; nor for a question that asks for a figure's
 * parts (a breakdown, by segment). The measure of one part ("the revenue of its Gaming segment") is read from the row
 * that names the part under the measure's heading, or the measure under the part's ("Revenue" then "Gaming 2,856").
 */
import { wordTokens } from 'pagewise/internal';
import { fileOfUri } from './filings.js';
import {
  labelPrints,
  measureQualifiers,
  measureWords,
  questionMeasures,
  statementOf,
  type Measure,
} from './measures.js';
import { labelWords, type Passage } from './passages.js';
import { canonicalTerm, understandQuestion, type QuestionQuery } from './query.js';
import { columnPeriod } from './statement-layout.js';

// Words of a question that asks for something computed from the figures, not a figure as printed; unless the row's
// own label says it ("Change in fair value", "Gross margin percentage").
const DERIVED = new Set(
  (
    'change changes changed changing difference differ increase increases increased decrease decreases decreased ' +
    'grow growth grew rise rose fall fell decline declined average mean ratio proportion percentage percent sum ' +
    'combined compare compared comparison between versus vs more less higher lower excluding including'
  ).split(' '),
);
// A question for a reason, a place, a time or a choice, not a value.
const NOT_A_VALUE = /\b(?:why|where|when|which|who|whom|whose|how(?!\s+(?:much|many)\b))\b/i;
// A question for what made a figure what it is ("the main contributors to net income", "the principal influences on
// operating income", "what insights"): its answer is a reason, and the figure it names is not it.
const REASONS =
  /\b(?:reasons?|causes?|caused|drivers?|drove|driven|factors?|contributors?|contributed|influences?|influenced|insights?|impacts?|impacted|affect|affects|affected|explain)\b/i;
// A question that asks whether ("Did Acme report…?", "Is there…?"): its answer is yes or no, not a figure.
const YES_OR_NO = /^\s*(?:did|does|do|is|are|was|were|has|have|had|can|could|will|would|should)\b/i;
// A question for the parts of a figure ("the revenue breakdown across its service offerings", "net sales by
// segment", "the revenue of its e-commerce and AWS segments"): its answer is several rows, and one row is not it.
const PARTS =
  /\b(?:breakdown|broken\s+down|break\s+down|split|composition|components|each|various|segments|divisions|by\s+(?:segment|region|geography|product|category|type|line)s?)\b/i;
/** Most words a row's label may hold besides the part's name it states ("More" in "More Personal Computing"). */
export const MAX_EXTRA_PART_WORDS = 1;
// Words that say a part of the company is named ("its Gaming segment"), not words its row prints.
const PART_KINDS = new Set(['segment', 'segments', 'division', 'divisions'].map(canonicalTerm));
// Words a question asks for a figure with; they name no row.
const PHRASING = new Set(['amount', 'value', 'figure', 'level', 'reported'].map(canonicalTerm));
/** A cell that is one number as filings print it. */
const NUMBER_CELL = /^[$€£¥]?\(?[$€£¥]?\d[\d,]*(?:\.\d+)?\)?%?$/;

/** Words of a text in canonical form, in order, function words kept. */
function sequence(text: string): string {
  return ` ${wordTokens(text).map(canonicalTerm).join(' ')} `;
}

/**
 * Whether a row's label names exactly what the question asks for, quoted: the question says the label, word for word
 * ("the Total other assets", not "Total assets"), and every word of the measure asked for is in the label (a word
 * asking for a computed figure, "change", too).
 */
function quoted(row: Passage, question: string, measure: readonly string[]): boolean {
  if (!row.row) return false;
  const words = labelWords(row.row.label);
  const label = sequence(row.row.label.replace(/\(\d+\)|\d+$/g, ' '));
  return words.length > 0 && sequence(question).includes(label) && measure.every((w) => words.includes(w));
}

/**
 * Whether a row prints the one measure of the synonym table the question names (see measures.ts): its label (under
 * its section heading) is one of the measure's labels, on a page titled as the statement the measure is read from.
 * A word asking for a computed figure must be in the label too.
 */
function printsMeasure(row: Passage, lookup: Lookup): boolean {
  const { measure, derived } = lookup;
  if (!row.row || !measure) return false;
  if (!labelPrints(measure, row.row.label, row.row.section)) return false;
  // The measure's statement, as the page titles it: elsewhere the label prints another figure (the change in
  // inventories on the cash flow statement, an investee's gross profit in a note).
  if (measure.statement && statementOf(row.row.title ?? '') !== measure.statement) return false;
  const words = labelWords(`${row.row.section ?? ''} ${row.row.label}`);
  return derived.every((w) => words.includes(w));
}

/**
 * Whether a row prints the measure of a part of the company (see {@link Lookup.part}): the measure as its section
 * heading and the part's name as its label ("Revenue" then "More Personal Computing 13,666"), or the other way round
 * ("AWS" then "Net sales 23,059"), on any page (segment notes have no statement title). A word asking for a computed
 * figure must be in the section or the label too.
 */
function printsPart(row: Passage, lookup: Lookup): boolean {
  const { measure, part, derived } = lookup;
  const section = row.row?.section;
  if (!row.row || !measure || !part || section === undefined) return false;
  // The part's words, and at most one word more ("More Personal Computing" for "Personal Computing").
  const names = (text: string) => {
    const words = labelWords(text);
    return part.every((word) => words.includes(word)) && words.length <= part.length + MAX_EXTRA_PART_WORDS;
  };
  const label = row.row.label;
  if (!(labelPrints(measure, section) && names(label)) && !(labelPrints(measure, label) && names(section)))
    return false;
  const words = labelWords(`${section} ${label}`);
  return derived.every((w) => words.includes(w));
}

/** A column's value and label, for the period a lookup asks for. */
interface Cell {
  value: string;
  column: string;
}

/**
 * The value of a row in the column of the period asked for: the one column of the year (the latest year of the
 * columns for "the latest quarter"), or of those the one of three months when the question asks for a quarter.
 * Undefined when no column or two remain, or the cell is not one number.
 */
function valueIn(row: Passage, lookup: Lookup): Cell | undefined {
  const { columns, values } = row.row ?? {};
  if (!columns || !values || columns.length !== values.length) return undefined;
  const labels = row.row?.periods ?? columns;
  const periods = labels.map((c) => columnPeriod(c.replace(/^fy\s*/i, '')));
  const latestYear = latest(periods.map((p) => p.year ?? ''));
  // The quarter the file name gives its filing is its latest columns, whatever calendar year a fiscal quarter ends in;
  // the same quarter a year earlier, the columns a year before them.
  const year =
    lookup.yearsBeforeFiling === undefined
      ? (lookup.year ?? latestYear)
      : latestYear && String(Number(latestYear) - lookup.yearsBeforeFiling);
  let at = periods.map((p, i) => (p.year === year ? i : -1)).filter((i) => i >= 0);
  if (lookup.quarter) {
    const quarters = at.filter((i) => periods[i]!.months === 3);
    // A quarter asked as a period is its three months; asked as "the Q3 10-Q", the filing's column, whatever its span.
    if (quarters.length > 0) at = quarters;
    else if (!lookup.filing) at = at.filter((i) => periods[i]!.months === undefined);
  }
  if (at.length !== 1 || year === undefined || year === '') return undefined;
  const value = values[at[0]!]!.replace(/\s+/g, '');
  return NUMBER_CELL.test(value) ? { value, column: labels[at[0]!]! } : undefined;
}

const latest = (years: readonly string[]) => [...years].sort().at(-1);

function cellOf(row: Passage, lookup: Lookup): { cell?: Cell } {
  const cell = valueIn(row, lookup);
  return cell ? { cell } : {};
}

/** What a question asks one value of, read against the document a row is in. */
interface Lookup {
  /** The year asked for; undefined for the latest period ("the most recent quarter"). */
  year?: string;
  /** Whether the question asks for a quarter ("Q3 2022", "the second quarter", "the latest 10-Q"). */
  quarter: boolean;
  /** Whether it asks what a quarterly filing reports ("as reported in the Q3 2022 10-Q"), not a quarter's figure. */
  filing: boolean;
  /**
   * When the question asks the quarter the file name gives its filing ("the first quarter of 2023" of
   * `2023 Q1 AAPL.pdf`), how many years before the file name's year: the period asked is then the filing's own
   * quarter (0) or its comparison columns (1), read from the columns' years, since a fiscal quarter may end in the
   * calendar year before ("Three Months Ended December 31, 2022").
   */
  yearsBeforeFiling?: number;
  /** The question's names that the document's file name or its pages read hold: the company. */
  company: string[];
  /** The words a quoted row's label must hold. */
  words: string[];
  /** The measure of the synonym table the question names, when it names exactly one. */
  measure?: Measure;
  /**
   * The names that say which part of the company the measure is asked of ("Personal Computing" in "the revenue of
   * its Personal Computing segment"), in canonical form: the row that states it prints the measure as its label or
   * its section heading, and the part's name as the other.
   */
  part?: string[];
  /** Words asking for a computed figure, which a fitting row's label must hold too. */
  derived: string[];
}

// A question for the latest period the filing reports.
const LATEST = /\b(?:latest|most\s+recent|current|recent)\b/i;
const ORDINALS = ['first', 'second', 'third', 'fourth'];

/** The quarter a question names, `1` to `4` ("Q1 2023", "1Q23", "the first quarter"); undefined when none. */
function quarterOf(text: string): string | undefined {
  const quarterMatch = /\b(?:q([1-4])|([1-4])q)/i.exec(text);
  if (quarterMatch) return quarterMatch[1] ?? quarterMatch[2];
  const ordinal = /\b(first|second|third|fourth)\s+(?:fiscal\s+)?quarter\b/i.exec(text)?.[1];
  return ordinal ? String(ORDINALS.indexOf(ordinal.toLowerCase()) + 1) : undefined;
}

// A question for a quarter's figure.
const QUARTER = /\b(?:q[1-4]|[1-4]q|quarter|quarterly|10-?q)\b/i;

/**
 * What `query` asks one value of, read against `file` and the names its pages read say (`names`): undefined when it
 * asks for no single value (no period or two, a reason, a choice), or names a company that neither the file name
 * nor its pages hold. Other names are words of the measure (questions capitalize row labels, "the Accrued
 * compensation"); with a measure of the synonym table, a name that is not one of its words names the part of the
 * company the measure is asked of (a segment's revenue), and only a row that names that part states it.
 */
function lookupOf(query: QuestionQuery, file: string, names: readonly string[] = []): Lookup | undefined {
  // The first clause asks; ", and which initiatives…" after it asks for more than the value.
  const ask = query.text.split(/,?\s+and\s+(?=(?:what|which|how|why|where|when|who)\b)/i)[0]!;
  if (query.years.length > 1 || NOT_A_VALUE.test(ask) || YES_OR_NO.test(ask) || PARTS.test(ask) || REASONS.test(ask))
    return undefined;
  const year = query.years[0];
  if (year === undefined && !LATEST.test(query.text)) return undefined;
  const compact = file.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  // The file name says the company; else the first name the question gives that the pages read say ("Microsoft's
  // … Personal Computing segment": Microsoft, and the segment qualifies the measure).
  const byFile = query.entities.filter((e) => compact.includes(e));
  const company = byFile.length > 0 ? byFile : query.entities.filter((e) => names.includes(e)).slice(0, 1);
  // A quarter named ("Q1 2023", "the first quarter") is not another quarter's filing, when the file name says one.
  const asked = quarterOf(query.text);
  const filed = /(?:^|[^a-z0-9])q([1-4])(?:[^a-z0-9]|$)/i.exec(file)?.[1];
  if (asked !== undefined && filed !== undefined && asked !== filed) return undefined;
  const filedYears = file.match(/(?<![0-9])(?:19|20)[0-9]{2}(?![0-9])/g) ?? [];
  const yearsBeforeFiling =
    asked !== undefined && asked === filed && filedYears.length === 1 && year !== undefined
      ? Number(filedYears[0]) - Number(year)
      : undefined;
  if (query.entities.length > 0 && company.length === 0) return undefined;
  const companyTerms = new Set(company.map(canonicalTerm));
  const derived = [...new Set(wordTokens(ask).filter((w) => DERIVED.has(w)))].map(canonicalTerm);
  const words = query.terms.filter(
    (t) => !companyTerms.has(t) && t !== year && !PHRASING.has(t) && !/^(?:q[1-4]|10-?q)$/i.test(t),
  );
  const measures = questionMeasures(ask);
  const others = query.entities.filter((e) => !company.includes(e));
  const named = measures.length === 1 ? measures[0] : undefined;
  // Other names than the measure's words name the part of the company asked of when the question says it asks of a
  // part ("its Personal Computing segment"); else they may be the rest of the company's name ("Acme Devices"), and no
  // row of the synonym table is taken to state the measure.
  const otherNames = named ? others.map(canonicalTerm).filter((e) => !measureWords(named).has(e)) : [];
  const asksPart = wordTokens(ask).some((word) => PART_KINDS.has(canonicalTerm(word)));
  const part = asksPart ? otherNames : [];
  const measure = otherNames.length === 0 || part.length > 0 ? named : undefined;
  // A word right before the measure that qualifies it ("services revenue", "segment revenue") asks for a part: the
  // row that states it must say that word too, as a word asking for a computed figure must; "segment" only says
  // that a part is named.
  derived.push(
    ...measureQualifiers(ask, company).filter(
      (word) => !derived.includes(word) && !(part.length > 0 && PART_KINDS.has(word)),
    ),
  );
  if (words.length === 0 && !measure) return undefined;
  return {
    ...(year ? { year } : {}),
    quarter: QUARTER.test(query.text) || year === undefined,
    filing: /\b10-?q\b|\bquarterly\s+(?:report|filing)\b/i.test(query.text),
    ...(yearsBeforeFiling === undefined ? {} : { yearsBeforeFiling }),
    company,
    words: [...new Set([...words, ...derived])],
    ...(measure ? { measure } : {}),
    ...(part.length > 0 ? { part } : {}),
    derived,
  };
}

function fitsQuery(row: Passage, query: QuestionQuery): Lookup | undefined {
  const lookup = lookupOf(query, fileOfUri(row.citation), row.names);
  if (!lookup) return undefined;
  // A measure of the synonym table is read by the table's labels and statement; any other by the label quoted.
  // A label quoted on a page with no statement title (a table under a plain heading) is read as any quoted label.
  const untitled = statementOf(row.row?.title ?? '') === undefined;
  const fits = lookup.part
    ? printsPart(row, lookup)
    : lookup.measure
      ? printsMeasure(row, lookup) || (untitled && quoted(row, query.text, lookup.words))
      : quoted(row, query.text, lookup.words);
  return fits ? lookup : undefined;
}

/**
 * The table rows among `passages` whose label names what `question` asks one value of, under a header that was
 * read (empty when it asks for no single value). An analysis keeps these from every batch it reads, so that a second row that fits is seen.
 */
export function fittingRows(question: string, passages: readonly Passage[]): Passage[] {
  const query = understandQuestion(question);
  // A row whose header was not read states no period: it neither answers nor leaves a value in doubt.
  return passages.filter((row) => row.row?.columns !== undefined && fitsQuery(row, query) !== undefined);
}

/**
 * The one-line answer for `question`, or undefined when the value is not unambiguous: `passages` are the answer's
 * passages (best first), `rows` every table row found in the documents read that fits (see {@link fittingRows}).
 * Exactly one row may fit, in the leading passage's document, which must be the company's the question names (by
 * its file name or its pages read), with exactly one column of the period asked for. The value is stated as
 * printed, with the scale its table states and the column's period when that is more than a year.
 *
 * @example
 * answerLine('What was 3M capital expenditure in FY2022?', passages, rows);
 * // 'Answer: 3M 2022 Capital expenditure: (1,577) million (3M_2022_10K.pdf#54)'
 */
export function answerLine(
  question: string,
  passages: readonly Passage[],
  rows: readonly Passage[],
): string | undefined {
  return statedAnswer(question, passages, rows)?.line;
}

/** The one-line answer (see {@link answerLine}) with the row it states. */
export function statedAnswer(
  question: string,
  passages: readonly Passage[],
  rows: readonly Passage[],
): { line: string; row: Passage } | undefined {
  const query = understandQuestion(question);
  const leading = passages[0];
  if (!leading) return undefined;
  // Two rows that fit with two values (two tables, two filings, two labels) leave the value in doubt; a row that
  // fits without a value for the period, too. Rows that agree (this quarter's filing and the next one's comparison
  // column) are one value, stated from the leading document.
  const fitting = new Map<string, { row: Passage; lookup: Lookup; cell?: Cell }>();
  for (const row of rows) {
    const lookup = fitsQuery(row, query);
    if (lookup) fitting.set(`${row.citation}\n${row.text}`, { row, lookup, ...cellOf(row, lookup) });
  }
  // Rows on a page titled as the measure's statement are the measure; an untitled page's (a note) only without them.
  // A part's measure is read from every row that names the part: a note's figure and a statement line must agree.
  const titled = [...fitting.values()].filter(
    ({ row, lookup }) =>
      !lookup.part &&
      lookup.measure?.statement !== undefined &&
      statementOf(row.row?.title ?? '') === lookup.measure.statement,
  );
  // A row whose header was not read (no columns) says nothing of the period; one with columns but not one for the
  // period (two periods, or none) leaves it in doubt.
  const found = (titled.length > 0 ? titled : [...fitting.values()]).filter(
    ({ row }) => row.row?.columns !== undefined,
  );
  const values = new Set(found.map(({ row, cell }) => `${cell?.value.replace(/[$€£¥]/g, '')} ${row.row?.unit ?? ''}`));
  if (found.length === 0 || values.size !== 1 || found.some((f) => f.cell === undefined)) return undefined;
  const own = found.find((f) => fileOfUri(f.row.citation) === fileOfUri(leading.citation));
  if (!own) return undefined;
  // "The latest quarter" over several filings read is the latest of those read, not known to be the latest filed.
  const files = new Set([...passages, ...rows].map((p) => fileOfUri(p.citation)));
  if (own.lookup.year === undefined && files.size > 1) return undefined;
  const { row, lookup } = own;
  const { value, column } = own.cell!;
  const { label, section, unit } = row.row!;
  // "(In millions, except per share data)": a per-share figure is in dollars.
  const perShare = /\bper\s+share\b/i.test(`${section ?? ''} ${label}`) || lookup.measure?.name === 'diluted EPS';
  const scale = unit && !value.endsWith('%') && !perShare ? ` ${unit}` : '';
  const who = lookup.company.map((e) => query.names[query.entities.indexOf(e)]).join(' ');
  const bare = /^(?:fy\s*)?(?:19|20)\d\d$/i.test(column);
  // A part's row says the measure in its section heading or its label: both are named, the part's first.
  const stated =
    lookup.part && section !== undefined
      ? labelPrints(lookup.measure!, section)
        ? `${label} ${section.toLowerCase()}`
        : `${section} ${label.toLowerCase()}`
      : label;
  const what = bare ? `${column.replace(/^fy\s*/i, '')} ${stated}` : `${stated}, ${column}`;
  return { line: `Answer: ${who ? `${who} ` : ''}${what}: ${value}${scale} (${row.citation})`, row };
}
