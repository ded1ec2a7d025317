/**
 * Financial-statement synonyms, as data: the phrases a question uses for a measure ("capital expenditure", "R&D",
 * "operating cash flow") and the row labels financial statements print it under ("Purchases of property and
 * equipment", "Research and development", "Net cash provided by operating activities"), with the statement the row
 * is in. Questions rarely quote a row's label; this table lets the passage search and the one-line answer meet the
 * row a question means, with no rule for any one company or question.
 *
 * Matching is on canonical words ({@link canonicalTerm}): case, punctuation, plurals and possessives aside. A question
 * names a measure when it holds one of its phrases; the longest phrase that matches at a place wins, so "operating
 * income" is not also "income". A row is the measure's when its label, or its label under its section heading
 * ("Net income per share:" then "Diluted"), is one of the measure's labels word for word, so "Cost of revenue" is not
 * "Revenue".
 *
 * To add a measure: its phrases as questions say them, its labels as statements print them, the statement it is read
 * from, and a line for it in measures.test.ts (a question with the phrase, a statement line with the label).
 */
import { wordTokens } from 'pagewise/internal';
import { canonicalTerm } from './query.js';

/** The statements a measure is read from, as their titles name them. */
export type Statement = 'income' | 'balance' | 'cash flows';

/** One measure: the phrases that ask for it and the row labels that print it. */
export interface Measure {
  /** A short name for the measure. */
  name: string;
  /** What questions call it; each also names the measure alone (the name is not one unless listed). */
  phrases: readonly string[];
  /** The row labels statements print it under. */
  labels: readonly string[];
  /** The statement the row is in, when the measure is a line of one (a balance on the balance sheet, a flow elsewhere). */
  statement?: Statement;
}

/** The synonym table (see the module comment). */
export const MEASURES: readonly Measure[] = [
  {
    name: 'revenue',
    phrases: [
      'revenue',
      'revenues',
      'total revenue',
      'net revenue',
      'net sales',
      'total net sales',
      'sales',
      'turnover',
    ],
    labels: [
      'Revenue',
      'Revenues',
      'Total revenue',
      'Total revenues',
      'Net revenue',
      'Net revenues',
      'Net sales',
      'Total net sales',
    ],
    statement: 'income',
  },
  {
    name: 'cost of revenue',
    phrases: ['cost of revenue', 'cost of revenues', 'cost of sales', 'cost of goods sold', 'COGS'],
    labels: ['Cost of revenue', 'Total cost of revenue', 'Cost of sales', 'Total cost of sales', 'Cost of goods sold'],
    statement: 'income',
  },
  {
    name: 'gross profit',
    phrases: ['gross profit', 'gross margin'],
    labels: ['Gross profit', 'Gross margin', 'Total gross margin'],
    statement: 'income',
  },
  {
    name: 'research and development',
    phrases: [
      'research and development',
      'R&D',
      'research and development expense',
      'R&D expense',
      'R&D spending',
      'R&D expenditure',
    ],
    labels: [
      'Research and development',
      'Research and development expense',
      'Technology and development',
      'Technology and infrastructure',
    ],
    statement: 'income',
  },
  {
    name: 'selling, general and administrative',
    phrases: ['selling, general and administrative', 'sales, general and administrative', 'SG&A'],
    labels: [
      'Selling, general and administrative',
      'Sales, general and administrative',
      'Marketing, general and administrative',
    ],
    statement: 'income',
  },
  {
    name: 'operating expenses',
    phrases: [
      'operating expenses',
      'total operating expenses',
      'opex',
      'operating costs',
      'operating expenditures',
      'operational expenses',
      'operational expenditures',
    ],
    labels: ['Total operating expenses', 'Operating expenses', 'Total operating costs and expenses'],
    statement: 'income',
  },
  {
    name: 'operating income',
    phrases: ['operating income', 'income from operations', 'operating profit', 'operating income (loss)'],
    labels: ['Operating income', 'Operating income (loss)', 'Income from operations', 'Operating profit'],
    statement: 'income',
  },
  {
    name: 'net income',
    phrases: ['net income', 'net earnings', 'net profit', 'net income (loss)'],
    labels: ['Net income', 'Net income (loss)', 'Net earnings', 'Net income attributable to common stockholders'],
    statement: 'income',
  },
  {
    name: 'diluted EPS',
    phrases: [
      'diluted EPS',
      'diluted earnings per share',
      'diluted net income per share',
      'earnings per diluted share',
    ],
    labels: [
      'Diluted earnings per share',
      'Diluted net income per share',
      'Earnings per share Diluted',
      'Net income per share Diluted',
      'Net income (loss) per share Diluted',
      'Earnings (loss) per share Diluted',
    ],
    statement: 'income',
  },
  {
    name: 'income tax expense',
    phrases: ['income tax expense', 'provision for income taxes', 'income tax provision', 'tax expense'],
    labels: [
      'Provision for income taxes',
      'Income tax expense',
      'Income tax expense (benefit)',
      'Provision for (benefit from) taxes',
      'Provision for (benefit from) income taxes',
      'Benefit (provision) for income taxes',
    ],
    statement: 'income',
  },
  {
    name: 'interest expense',
    phrases: ['interest expense', 'interest expenses'],
    labels: ['Interest expense'],
    statement: 'income',
  },
  {
    name: 'cash and cash equivalents',
    phrases: ['cash and cash equivalents', 'cash and equivalents', 'cash balance'],
    labels: ['Cash and cash equivalents', 'Total cash and cash equivalents'],
    statement: 'balance',
  },
  {
    name: 'inventories',
    phrases: ['inventory', 'inventories', 'inventory levels'],
    labels: ['Inventories', 'Inventory', 'Total inventories'],
    statement: 'balance',
  },
  {
    name: 'total assets',
    phrases: ['total assets'],
    labels: ['Total assets'],
    statement: 'balance',
  },
  {
    name: 'total liabilities',
    phrases: ['total liabilities'],
    labels: ['Total liabilities'],
    statement: 'balance',
  },
  {
    name: 'long-term debt',
    phrases: ['long-term debt', 'long term debt'],
    labels: ['Long-term debt', 'Long-term debt, net', 'Total long-term debt', 'Term debt'],
    statement: 'balance',
  },
  {
    name: "stockholders' equity",
    phrases: [
      "stockholders' equity",
      "shareholders' equity",
      "total stockholders' equity",
      "total shareholders' equity",
    ],
    labels: ["Total stockholders' equity", "Total shareholders' equity", "Total shareholders' equity (deficit)"],
    statement: 'balance',
  },
  {
    name: 'operating cash flow',
    phrases: [
      'operating cash flow',
      'cash flow from operating activities',
      'cash flows from operating activities',
      'cash from operating activities',
      'cash flow from operations',
      'cash flows from operations',
      'cash from operations',
      'net cash from operating activities',
      'net cash provided by operating activities',
      'cash generated by operating activities',
    ],
    labels: [
      'Net cash provided by operating activities',
      'Net cash provided by (used in) operating activities',
      'Net cash provided by (used for) operating activities',
      'Net cash used in operating activities',
      'Net cash from operating activities',
      'Net cash from operations',
      'Cash generated by operating activities',
    ],
    statement: 'cash flows',
  },
  {
    name: 'capital expenditure',
    phrases: [
      'capital expenditure',
      'capital expenditures',
      'capex',
      'purchases of property and equipment',
      'purchases of property, plant and equipment',
    ],
    labels: [
      'Purchases of property and equipment',
      'Purchases of property, plant and equipment',
      'Purchases of property, plant and equipment (PP&E)',
      'Payments for acquisition of property, plant and equipment',
      'Additions to property and equipment',
      'Additions to property, plant and equipment',
      'Purchases related to property and equipment and intangible assets',
      'Capital expenditure',
      'Capital expenditures',
    ],
    statement: 'cash flows',
  },
  {
    name: 'share repurchases',
    phrases: ['share repurchases', 'share repurchase', 'stock repurchases', 'buybacks', 'repurchases of common stock'],
    labels: [
      'Repurchases of common stock',
      'Common stock repurchased',
      'Common stock repurchased and retired',
      'Payments related to repurchases of common stock',
      'Purchases of treasury stock',
    ],
    statement: 'cash flows',
  },
  {
    name: 'dividends paid',
    phrases: ['dividends paid', 'dividend payments', 'dividends'],
    labels: [
      'Dividends paid',
      'Payment of dividends to stockholders',
      'Payments for dividends and dividend equivalents',
      'Common stock cash dividends paid',
    ],
    statement: 'cash flows',
  },
  {
    name: 'depreciation and amortization',
    phrases: ['depreciation and amortization', 'D&A'],
    labels: ['Depreciation and amortization', 'Depreciation, amortization and other'],
    statement: 'cash flows',
  },
];

/**
 * Words that join a measure's words and that a search query leaves out; words that change what is measured ("other",
 * "total", "net") are kept, so "Total other assets" is not "Total assets".
 */
const JOINING_WORDS = new Set(['a', 'an', 'the', 'of', 'from', 'and', 'by', 'in', 'for', 'to', 'on', 'at', 'with']);

/**
 * A text as a key of its words in canonical form, joined by spaces: joining words ("of", "from", "and"), footnote
 * markers ("(1)") and a trailing number dropped, so that a question, the search query made of its terms (which
 * drops such words and spells "activities" as "activitie") and a row label meet.
 */
export function measureKey(text: string): string {
  const clean = text.replace(/\(\d\)|\(\w\)(?=\s*$)|\s\d+\s*$/g, ' ');
  return wordTokens(clean)
    .filter((word) => !JOINING_WORDS.has(word))
    .map((word) => canonicalTerm(/[^aeiou]ie$/.test(word) && word.length > 4 ? `${word}s` : word))
    .join(' ');
}

interface Compiled {
  measure: Measure;
  phrases: string[];
  labels: Set<string>;
}

let compiled: Compiled[] | undefined;

function table(): Compiled[] {
  compiled ??= MEASURES.map((measure) => ({
    measure,
    phrases: measure.phrases.map(measureKey).filter(Boolean),
    labels: new Set(measure.labels.map(measureKey)),
  }));
  return compiled;
}

/**
 * The measures a question names, in the order it names them: at each place the longest phrase of the table that
 * the question holds there, so "operating income" is one measure and not also "net income" or "income".
 *
 * @example
 * questionMeasures('What was Intel capital expenditure in Q3 2022?').map((m) => m.name); // ['capital expenditure']
 */
export function questionMeasures(question: string): Measure[] {
  const out: Measure[] = [];
  for (const match of measureSpans(measureKey(question).split(' ')))
    if (!out.includes(match.measure)) out.push(match.measure);
  return out;
}

/** Where a question's words (as {@link measureKey} gives them) name measures: longest phrase at a place, in order. */
function measureSpans(words: readonly string[]): { measure: Measure; start: number; end: number }[] {
  const found: { measure: Measure; start: number; end: number }[] = [];
  for (const entry of table())
    for (const phrase of entry.phrases) {
      const parts = phrase.split(' ');
      for (let start = 0; start + parts.length <= words.length; start += 1)
        if (parts.every((part, k) => words[start + k] === part))
          found.push({ measure: entry.measure, start, end: start + parts.length });
    }
  // Longest first; a match inside a longer one's span is the longer one's word.
  found.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: typeof found = [];
  for (const match of found) if (!kept.some((k) => match.start < k.end && k.start < match.end)) kept.push(match);
  return kept.sort((a, b) => a.start - b.start);
}

// Words that may stand right before a measure's phrase without qualifying it: question words, possessives, periods,
// "total" and "net", the words a question asks for a figure with ("the amount of", "the company's") and their verbs.
const NOT_QUALIFIERS = new Set(
  (
    'what which how much many was were is are be been did does do has have had its their his her our total ' +
    'consolidated quarterly annual reported report record recorded spend spent spending generate generated post ' +
    'posted earn earned incur incurred pay paid invest invested disclose disclosed latest recent most current fiscal fy gaap year ' +
    'quarter month months period as per into about over across during within regarding than amount amounts value ' +
    'values figure figures level levels company group net'
  )
    .split(' ')
    .map((word) => canonicalTerm(word)),
);

/**
 * The words right before the measures `question` names that qualify them ("services" in "services revenue", "segment"
 * in "the AWS segment revenue"): a figure of a part, not the total a statement line prints. Names given in `allowed`
 * (the company, lower-case), question words, periods and numbers do not qualify.
 *
 * @example
 * measureQualifiers("What was Acme's services revenue in Q2 2024?", ['acme']); // ['servic']
 */
export function measureQualifiers(question: string, allowed: readonly string[] = []): string[] {
  const words = measureKey(question).split(' ');
  const names = new Set(allowed.map((name) => canonicalTerm(name)));
  const out: string[] = [];
  const spans = measureSpans(words);
  for (const { start } of spans) {
    const before = words[start - 1];
    // The end of another measure's phrase ("total assets to total liabilities") is no qualifier.
    if (spans.some((span) => span.end === start)) continue;
    if (before === undefined || names.has(before) || NOT_QUALIFIERS.has(before) || /\d/.test(before)) continue;
    if (/^(?:q|fy|h)$/.test(before)) continue;
    out.push(before);
  }
  return out;
}

/**
 * Whether a row label prints `measure`: the label itself, or the section heading it stands under followed by the
 * label ("Net income per share:" then "Diluted"), is one of the measure's labels in canonical words.
 */
export function labelPrints(measure: Measure, label: string, section?: string): boolean {
  const labels = table().find((entry) => entry.measure === measure)?.labels;
  if (!labels) return false;
  if (labels.has(measureKey(label))) return true;
  return section !== undefined && labels.has(measureKey(`${section} ${label}`));
}

/** The canonical words of a measure's phrases, which a row that prints it is taken to hold. */
export function measureWords(measure: Measure): Set<string> {
  return new Set(
    table()
      .find((entry) => entry.measure === measure)!
      .phrases.flatMap((p) => p.split(' ')),
  );
}

/**
 * Words to search for the measures `question` names when none of its search `terms` is a word of the measure's row
 * labels: an abbreviation ("R&D", "capex") is no word a statement prints, so the search that picks the pages to read
 * gets the measure's name ("research and development") instead. Joining words left out; in the question's order.
 *
 * @example
 * measureSearchWords("Apple's R&D expenditure in Q3 2023", ['apple', 'expenditure', 'q3', '2023']); // ['research', 'development']
 */
export function measureSearchWords(question: string, terms: readonly string[]): string[] {
  const asked = new Set(terms);
  const out: string[] = [];
  for (const measure of questionMeasures(question)) {
    const labelWords = table()
      .find((entry) => entry.measure === measure)!
      .measure.labels.flatMap((label) => measureKey(label).split(' '));
    if (labelWords.some((word) => asked.has(word))) continue;
    for (const word of wordTokens(measure.name))
      if (!JOINING_WORDS.has(word) && !out.includes(word) && !asked.has(canonicalTerm(word))) out.push(word);
  }
  return out;
}

/** The statement a table's title names ("CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS" → cash flows). */
export function statementOf(title: string): Statement | undefined {
  if (/\bbalance\s+sheets?\b|\bstatements?\s+of\s+financial\s+position\b/i.test(title)) return 'balance';
  if (/\bstatements?\s+of\s+cash\s+flows?\b|\bcash\s+flows?\s+statements?\b/i.test(title)) return 'cash flows';
  if (/\bstatements?\s+of\s+(?:income|operations|earnings)\b|\bincome\s+statements?\b/i.test(title)) return 'income';
  return undefined;
}

// The numbers a statement line ends with, as PDF text extraction gives them ("$ 13,507 $ 6,704", "(537) (794)", "—").
const ROW_VALUES = /(?:\s+(?:[$€£¥]\s*)?\(?[$€£¥]?[\d,.]+\)?%?|\s+[—–-])+\s*$/;

/**
 * Whether a page prints one of `measures` as a statement line: a line whose label (the words before its numbers),
 * alone or under the heading above it, is one of the measure's labels.
 */
export function pagePrints(measures: readonly Measure[], body: string): boolean {
  if (measures.length === 0) return false;
  let section: string | undefined;
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    const label = line.replace(ROW_VALUES, '');
    if (label !== line && /\p{L}/u.test(label) && measures.some((m) => labelPrints(m, label, section))) return true;
    if (/:$/.test(line)) section = line.slice(0, -1);
  }
  return false;
}
