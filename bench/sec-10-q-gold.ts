/**
 * Gold pages and splits for the `sec-10-q` benchmark (bench/analyze-sec-10-q.ts), as pure functions tested on small
 * synthetic inputs (test/sec-10-q-gold.test.ts).
 *
 * The dataset names the documents of each answer (`Source Docs`, a glob such as `*AAPL*` or one file name) but no
 * pages. A question's gold pages are derived from its reference answer:
 *
 * 1. The answer's figures: numbers written with a thousands separator or a decimal point, or after a currency sign,
 *    or before a scale word or a percent sign (`$82,959 million`, `82,959`, `$1.2 billion`, `43.3%`). Years, quarter
 *    and note numbers, dates and small bare integers are not figures: they are on every page.
 * 2. The pages of the named documents that hold a figure, compared as the digits a page prints: `$82,959 million`
 *    matches a page showing `82,959`, `$1.2 billion` a page showing `1.2` or `1,200`; a figure in parentheses on the
 *    page (`(1,577)`) matches the figure without them.
 * 3. The gold pages are those holding the most of the answer's figures; a question with figures found on no page
 *    has no gold page and is reported as such, never scored as a miss.
 *
 * Each figure found keeps its row label: up to six words before it on the page's line that holds it (numbers
 * removed), or the last six of the nearest line above with words when none stand before it, so "the figure with its
 * label in the cited text" can be checked.
 *
 * Splits are by question: the first byte of SHA-256 of the question's text, even is tuning, odd is test. The split
 * does not depend on the file's order or on which questions are kept.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The `sec-10-q` folder of the shared data (`$PAGEWISE_SHARED_DATA/sec-10-q`, else beside the repository). */
export function secTenQDir(): string | undefined {
  const root = path.resolve(import.meta.dirname, '..');
  const candidates = [
    process.env.PAGEWISE_SHARED_DATA,
    path.resolve(root, '../shared/data'),
    path.resolve(root, '../../shared/data'),
  ];
  return candidates
    .filter((dir): dir is string => dir !== undefined)
    .map((dir) => path.join(dir, 'sec-10-q'))
    .find((dir) => existsSync(path.join(dir, 'qna_data.csv')));
}

/** A figure an answer states: as written, and the digit strings a page may print it as. */
export interface Figure {
  text: string;
  /** Digit strings (separators kept as the page prints them) any of which on a page is this figure. */
  forms: string[];
}

const SCALE = /^(?:thousand|million|billion)s?\b/i;

/**
 * The figures of an answer (see the module comment): `$82,959 million` → forms `82,959`; `$1.2 billion` → `1.2` and
 * `1,200`; `43.3%` → `43.3`. Each figure once, in the order first written.
 */
export function answerFigures(answer: string): Figure[] {
  const figures = new Map<string, Figure>();
  const pattern =
    /(\$\s?)?\(?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d+)\)?(\s*%|\s+(?:thousand|million|billion)s?\b)?/gi;
  for (const match of answer.matchAll(pattern)) {
    const [whole, currency, digits, suffix] = [match[0], match[1], match[2]!, match[3]];
    const before = answer.slice(Math.max(0, match.index - 1), match.index);
    // Part of a longer token (a date "2023-07-01", "Q3", a note "Note 12"), or a year or a small bare integer.
    if (/[\w/-]/.test(before)) continue;
    const grouped = digits.includes(',');
    const decimal = digits.includes('.');
    const marked = currency !== undefined || suffix !== undefined;
    if (!grouped && !decimal && !marked) continue;
    if (!grouped && !decimal && /^(?:19|20)\d\d$/.test(digits) && !marked) continue;
    if (!grouped && !decimal && !marked && digits.length < 4) continue;
    const forms = new Set([digits]);
    const scale = suffix?.trim().toLowerCase();
    // "$1.2 billion" is printed "1,200" in a table in millions.
    if (scale !== undefined && SCALE.test(scale) && scale.startsWith('billion') && decimal) {
      const millions = Math.round(Number(digits.replace(/,/g, '')) * 1000);
      forms.add(millions.toLocaleString('en-US'));
    }
    // A lone small integer with a scale or currency ("$5 million") is too common to mark a page.
    if (!grouped && !decimal && digits.length < 3) continue;
    const key = [...forms].join('|');
    if (!figures.has(key)) figures.set(key, { text: whole.trim(), forms: [...forms] });
  }
  return [...figures.values()];
}

/** Whether `page` prints one of the figure's forms as a whole number (not inside a longer one). */
export function pageHolds(page: string, figure: Figure): boolean {
  return figure.forms.some((form) => figureRegExp(form).test(page));
}

function figureRegExp(form: string): RegExp {
  const escaped = form.replace(/[.,]/g, (char) => `\\${char}`);
  // Not preceded by a digit, comma or point, and not followed by more digits of the same number.
  return new RegExp(`(?<![\\d.,])${escaped}(?![\\d]|[.,]\\d)`);
}

/** A figure found on a page, with the row label it stands beside there. */
export interface FoundFigure {
  figure: Figure;
  uri: string;
  /** Up to six words before the figure on its line (numbers removed), else the last six of the nearest line above with words. */
  label: string;
}

/** One page of a named document. */
export interface GoldPageInput {
  uri: string;
  body: string;
}

/** What the answer's figures give for one question. */
export interface GoldPages {
  figures: Figure[];
  /** Pages holding the most figures; empty when no figure is on any page. */
  pages: string[];
  /** Each figure on each gold page, with its label there. */
  found: FoundFigure[];
}

/** The gold pages of an answer among the pages of its named documents (see the module comment). */
export function goldPages(answer: string, pages: readonly GoldPageInput[]): GoldPages {
  const figures = answerFigures(answer);
  let best = 0;
  const counts = pages.map((page) => {
    const held = figures.filter((figure) => pageHolds(page.body, figure)).length;
    best = Math.max(best, held);
    return held;
  });
  if (best === 0) return { figures, pages: [], found: [] };
  const gold = pages.filter((_, index) => counts[index] === best);
  const found: FoundFigure[] = [];
  for (const page of gold)
    for (const figure of figures) {
      const label = labelOf(page.body, figure);
      if (label !== undefined) found.push({ figure, uri: page.uri, label });
    }
  return { figures, pages: gold.map((page) => page.uri), found };
}

/** The row label beside a figure on a page: see {@link FoundFigure.label}; undefined when the page lacks the figure. */
export function labelOf(body: string, figure: Figure): string | undefined {
  const lines = body.split('\n');
  for (const [at, line] of lines.entries()) {
    const position = figurePosition(line, figure);
    if (position < 0) continue;
    const before = labelWords(line.slice(0, position));
    if (before.length > 0) return before.slice(-LABEL_WORDS).join(' ');
    for (let index = at - 1; index >= 0; index -= 1) {
      const words = labelWords(lines[index]!);
      if (words.length > 0) return words.slice(-LABEL_WORDS).join(' ');
    }
    return '';
  }
  return undefined;
}

/** How many words before a figure make its label: a row label, or the end of the sentence that states it. */
const LABEL_WORDS = 6;

function figurePosition(line: string, figure: Figure): number {
  for (const form of figure.forms) {
    const match = figureRegExp(form).exec(line);
    if (match) return match.index;
  }
  return -1;
}

/** The words of a line, numbers, signs and footnote markers removed, lower case. */
export function labelWords(line: string): string[] {
  return (line.toLowerCase().match(/[a-z][a-z&'-]*/g) ?? []).filter((word) => word.length > 1 || word === 'a');
}

/** Whether `text` holds a found figure and every word of its label. */
export function holdsFigureWithLabel(text: string, found: FoundFigure): boolean {
  if (!pageHolds(text, found.figure)) return false;
  const words = new Set(labelWords(text));
  return labelWords(found.label).every((word) => words.has(word));
}

/** The split of a question: by the first byte of SHA-256 of its text, even tuning, odd test. */
export function splitOf(question: string): 'tuning' | 'test' {
  const firstByte = createHash('sha256').update(question.trim()).digest()[0]!;
  return firstByte % 2 === 0 ? 'tuning' : 'test';
}

/** The file names of `files` that a `Source Docs` glob matches (`*` any run of characters, `?` one). */
export function namedDocuments(glob: string, files: readonly string[]): string[] {
  const source = glob
    .trim()
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const pattern = new RegExp(`^${source}$`, 'i');
  return files.filter((file) => pattern.test(file));
}

const SCALES: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9 };

/** An amount in units (dollars): its size, sign aside, and how far off a statement of it may be by rounding. */
export interface Amount {
  value: number;
  /** Half the last digit the amount is written to, in units: `$7.7 billion` is 7.65 to 7.75 billion. */
  tolerance: number;
}

/** `digits` ("1,577", "23.198") times the scale word (`million`), sign and currency aside. */
export function amountOf(digits: string, scale: string | undefined): Amount | undefined {
  const plain = digits.replace(/[$€£¥()\s,]/g, '');
  if (!/^\d+(?:\.\d+)?$/.test(plain)) return undefined;
  const factor = scale === undefined ? 1 : SCALES[scale.toLowerCase().replace(/s$/, '')];
  if (factor === undefined) return undefined;
  const decimals = plain.includes('.') ? plain.split('.')[1]!.length : 0;
  return { value: Number(plain) * factor, tolerance: (0.5 * factor) / 10 ** decimals };
}

/**
 * The one amount a reference answer states, which makes its question a single-value question: the answer writes
 * exactly one figure with a currency sign and a scale word (`$98,024 million`, `$23.198 billion`). Answers with
 * two such figures (a value and its comparison), or with none (a percentage, prose), give undefined.
 */
export function singleAmount(answer: string): Amount | undefined {
  const amounts = new Map<string, Amount>();
  for (const match of answer.matchAll(
    /\$\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s+(thousand|million|billion)s?\b/gi,
  )) {
    const amount = amountOf(match[1]!, match[2]);
    if (amount) amounts.set(String(amount.value), amount);
  }
  return amounts.size === 1 ? [...amounts.values()][0] : undefined;
}

/**
 * The amount an `Answer:` line states: the value after its last `: ` before the citation, with the scale word that
 * follows it (`Answer: Apple Net sales, Three Months Ended June 25, 2022: $82,959 million (2022 Q3 AAPL.pdf#4)`).
 */
export function answerLineAmount(text: string): Amount | undefined {
  const line = /^Answer: .*$/m.exec(text)?.[0];
  if (!line) return undefined;
  const match = /:\s+([$€£¥]?\(?[$€£¥]?\d[\d,]*(?:\.\d+)?\)?)(?:\s+(thousand|million|billion))?\s+\([^()]*\)\s*$/.exec(
    line,
  );
  return match ? amountOf(match[1]!, match[2]) : undefined;
}

/** Whether a stated amount is the reference amount, within the rounding the reference is written to. */
export function sameAmount(stated: Amount, reference: Amount): boolean {
  return Math.abs(stated.value - reference.value) <= Math.max(reference.tolerance, stated.tolerance) + 1e-9;
}
