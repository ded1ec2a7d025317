/**
 * The one-line answer of an extractive analysis: a figure stated only when the documents read leave no doubt about
 * it. The question must ask for one value (what it is, for one period, not how it changed), one table row's label
 * must name what it asks for, in the document of the company it names, with one column for that period. Two rows
 * or two periods that fit, and there is no line: the passages alone are the answer.
 */
import { wordTokens } from 'pagewise/internal';
import { fileOfUri } from './filings.js';
import { labelWords, type Passage } from './passages.js';
import { canonicalTerm, understandQuestion, type QuestionQuery } from './query.js';

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
// Words a question asks for a figure with; they name no row.
const PHRASING = new Set(['amount', 'value', 'figure', 'level', 'reported'].map(canonicalTerm));
/** A cell that is one number as filings print it. */
const NUMBER_CELL = /^[$€£¥]?\(?[$€£¥]?\d[\d,]*(?:\.\d+)?\)?%?$/;

/** Words of a text in canonical form, in order, function words kept. */
function sequence(text: string): string {
  return ` ${wordTokens(text).map(canonicalTerm).join(' ')} `;
}

/**
 * Whether a row's label names exactly what the question asks for: the question says the label, word for word
 * ("the Total other assets", not "Total assets"), and every word of the measure asked for is in the label (a word
 * asking for a computed figure, "change", too).
 */
function fits(row: Passage, question: string, measure: readonly string[]): boolean {
  if (!row.row) return false;
  const words = labelWords(row.row.label);
  const label = sequence(row.row.label.replace(/\(\d+\)|\d+$/g, ' '));
  return words.length > 0 && sequence(question).includes(label) && measure.every((w) => words.includes(w));
}

/** The value of a row in the column of `year`, when exactly one column is that year and its cell is one number. */
function valueIn(row: Passage, year: string): string | undefined {
  const { columns, values } = row.row ?? {};
  if (!columns || !values || columns.length !== values.length) return undefined;
  const at = columns.map((c, i) => (c.replace(/^fy\s*/i, '') === year ? i : -1)).filter((i) => i >= 0);
  if (at.length !== 1) return undefined;
  const value = values[at[0]!]!.replace(/\s+/g, '');
  return NUMBER_CELL.test(value) ? value : undefined;
}

/** What a question asks one value of, read against the document a row is in. */
interface Lookup {
  year: string;
  /** The question's names that the document's file name holds: the company (the other names are row words). */
  company: string[];
  /** The words a fitting row's label must hold. */
  measure: string[];
}

/**
 * What `query` asks one value of, read against `file`: undefined when it asks for no single value (no year or two,
 * a reason, a choice), or names a company that `file` is not named after. Names the file name does not hold are
 * words of the measure: questions capitalize row labels ("the Accrued compensation").
 */
function lookupOf(query: QuestionQuery, file: string): Lookup | undefined {
  if (query.years.length !== 1 || NOT_A_VALUE.test(query.text)) return undefined;
  const year = query.years[0]!;
  const compact = file.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  const company = query.entities.filter((e) => compact.includes(e));
  if (query.entities.length > 0 && company.length === 0) return undefined;
  const names = new Set(company.map(canonicalTerm));
  const derived = [...new Set(wordTokens(query.text).filter((w) => DERIVED.has(w)))].map(canonicalTerm);
  const measure = query.terms.filter((t) => !names.has(t) && t !== year && !PHRASING.has(t));
  if (measure.length === 0) return undefined;
  return { year, company, measure: [...new Set([...measure, ...derived])] };
}

function fitsQuery(row: Passage, query: QuestionQuery): Lookup | undefined {
  const lookup = lookupOf(query, fileOfUri(row.citation));
  return lookup && fits(row, query.text, lookup.measure) ? lookup : undefined;
}

/**
 * The table rows among `passages` whose label names what `question` asks one value of (empty when it asks for no
 * single value). An analysis keeps these from every batch it reads, so that a second row that fits is seen.
 */
export function fittingRows(question: string, passages: readonly Passage[]): Passage[] {
  const query = understandQuestion(question);
  return passages.filter((row) => fitsQuery(row, query) !== undefined);
}

/**
 * The one-line answer for `question`, or undefined when the value is not unambiguous: `passages` are the answer's
 * passages (best first), `rows` every table row found in the documents read that fits (see {@link fittingRows}).
 * Exactly one row may fit, in the leading passage's document, which must be named after the company the question
 * names, with exactly one column of the year asked for.
 *
 * @example
 * answerLine('What was 3M capital expenditure in FY2022?', passages, rows);
 * // 'Answer: 3M 2022 Capital expenditure: $1,577 million (3M_2022_10K.pdf#54)'
 */
export function answerLine(
  question: string,
  passages: readonly Passage[],
  rows: readonly Passage[],
): string | undefined {
  const query = understandQuestion(question);
  const leading = passages[0];
  if (!leading) return undefined;
  // Two rows that fit (two tables, two filings, two labels) leave the value in doubt.
  const distinct = new Map(
    rows.filter((row) => fitsQuery(row, query) !== undefined).map((row) => [`${row.citation}\n${row.text}`, row]),
  );
  if (distinct.size !== 1) return undefined;
  const [row] = distinct.values();
  const lookup = fitsQuery(row!, query)!;
  if (fileOfUri(row!.citation) !== fileOfUri(leading.citation)) return undefined;
  const value = valueIn(row!, lookup.year);
  if (value === undefined) return undefined;
  const unit = row!.row!.unit && !value.endsWith('%') ? ` ${row!.row!.unit}` : '';
  const who = lookup.company.map((e) => query.names[query.entities.indexOf(e)]).join(' ');
  return `Answer: ${who ? `${who} ` : ''}${lookup.year} ${row!.row!.label}: ${value}${unit} (${row!.citation})`;
}
