/**
 * What a free-form question over filings asks for, read without a model: the question itself without the
 * instructions around it ("Assume you are a public equities analyst.", "Answer in USD millions."), its search terms
 * in one canonical form (FY2022, fiscal 2022 and 2022 are one period; 1,577 and 1577 one number), the names it gives
 * (the company), the fiscal years and the form type (10-K, 10-Q, 8-K).
 */
import { queryTerms } from './query-terms.js';
import { wordTokens } from 'pagewise/internal';

/** A question as the search and passage rules use it. */
export interface QuestionQuery {
  /** The question without role and format instructions. */
  text: string;
  /** Distinct search terms in canonical form (see {@link canonicalTerm}), in order. */
  terms: string[];
  /**
   * Each of {@link terms} as a word to search a full-text index with and to show (see {@link spelledTerm}): the
   * canonical form is a matching key ("decreas"), not always a word the documents print.
   */
  words: string[];
  /** Names the question gives (a company: "AmEx", "3M", "Activision Blizzard"), lower-case, one word each. */
  entities: string[];
  /** The same names as the question spells them ("AmEx", "3M"), one for each of {@link entities}. */
  names: string[];
  /** Fiscal years named, as four digits. */
  years: string[];
  /**
   * Quarters named with their year, as `2023 Q1` ("Q1 2023", "first quarter of 2023", "2023 Q1", "Q1 FY2023"): the
   * quarter of the fiscal year, as a filing of that quarter is named and titled. Each one's year is in {@link years}.
   */
  quarters: string[];
  /** The form type named, upper-case (`10-K`, `10-Q`, `8-K`). */
  formType?: string;
}

// Sentences that set a role or a format, never what to look for.
const ROLE_SENTENCE =
  /^(?:please\s+)?(?:assume|assuming|imagine|suppose|pretend|act as|acting as|you are|you're|as an?\s+[\w\s-]*(?:analyst|investor|expert))\b/i;
const FORMAT_SENTENCE =
  /^(?:please\s+)?(?:answer|respond|reply|give|provide|express|report|round|show)\b[^?]*\b(?:usd|dollars?|millions?|billions?|thousands?|percent(?:age)?|%|decimals?|places|format|words?|sentences?|units?)\b[^?]*$/i;
// Phrases of an instruction inside a sentence that holds the question.
const INSTRUCTION_PHRASES = [
  /\b(?:please\s+)?(?:answer|respond to|address)\s+(?:the\s+following|this|the)\s+question\b/gi,
  /\bto\s+the\s+best\s+of\s+your\s+abilit(?:y|ies)\b/gi,
  /\b(?:by\s+)?(?:primarily\s+)?(?:using|based\s+on|relying\s+on|referring\s+to)\s+(?:the\s+)?(?:information|data|details|figures)\b(?:\s+(?:that\s+is|that\s+are|as))?(?:\s+(?:shown|outlined|reported|provided|given|found|presented|stated))?(?:\s+in)?/gi,
  /\b(?:that\s+is\s+)?(?:shown|outlined|presented)\s+in\b/gi,
];
// Words of instructions and question phrasing left after the phrases above: they tell no filing or page apart.
const INSTRUCTION_WORDS = new Set(
  (
    'assume assuming analyst analysts public equities equity-analyst question questions following answer answers ' +
    'primarily using based information details provided shown outlined reported presented respond ' +
    'calculate compute round rounded decimal decimals places usd approximately roughly ' +
    "fy fiscal year years company company’s company's"
  ).split(' '),
);
// Capitalized words that start questions or name generic things, not the entity asked about.
const NOT_NAMES = new Set(
  (
    'what which who whom whose when where why how is are was were do does did has have had can could should would ' +
    'will please tell give show list find state describe explain calculate compute according based using by ' +
    'the a an in of for on at to from and or as with between total net gross operating revenue revenues income ' +
    'sales cash capital cost costs fy fiscal year quarter q1 q2 q3 q4 usd us u.s gaap non-gaap ebitda eps ' +
    'assume answer round express note if'
  ).split(' '),
);
const FORM = /\b(10-?k|10-?q|8-?k|20-?f|40-?f)\b/i;
const ORDINAL_QUARTERS: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4 };
// A quarter and its year in either order: "Q1 2023", "Q1 of fiscal 2023", "2023 Q1", "first quarter of 2023".
const QUARTER =
  /\b(?:q([1-4])|(first|second|third|fourth)\s+(?:fiscal\s+)?quarter)(?:\s+of)?(?:\s+(?:the\s+)?(?:fiscal|fy)(?:\s+year)?)?\s*'?((?:19|20)\d\d)\b|\b(?:fy\s?)?((?:19|20)\d\d)\s*q([1-4])\b/gi;

/** The quarters a text names with their year, as `2023 Q1`, each once in the order named. */
export function quartersOf(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(QUARTER)) {
    const quarter = match[1] ?? match[5] ?? String(ORDINAL_QUARTERS[match[2]?.toLowerCase() ?? ''] ?? '');
    const named = `${match[3] ?? match[4]} Q${quarter}`;
    if (!out.includes(named)) out.push(named);
  }
  return out;
}

/**
 * A word as a full-text index is searched for it and as an answer shows it: lower-case, a trailing possessive dropped
 * ("acme's" → "acme"), a fiscal year written as its year ("fy2022", "fy22" → "2022"), thousands separators dropped from
 * a number ("1,577" → "1577"), and a plural `s` dropped ("sales" → "sale").
 */
export function spelledTerm(word: string): string {
  let term = word.toLowerCase().replace(/['’]s$/, '');
  const fy = /^fy'?(\d{2}|\d{4})$/.exec(term);
  if (fy) term = fy[1]!.length === 2 ? `20${fy[1]}` : fy[1]!;
  if (/^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(term)) term = term.replace(/,/g, '');
  return term.length > 3 && term.endsWith('s') && !term.endsWith('ss') && !/\d/.test(term) ? term.slice(0, -1) : term;
}

const VOWEL = /[aeiouy]/;

/**
 * The inflections of an English word taken off, so that the forms of one word meet: plurals and the third person
 * ("expenses", "companies" → expens, company), the past and the progressive ("decreased", "decreasing", "decrease" →
 * decreas; "incurred" → incur) and a final `e`. Light by design: derivations stay apart ("operation" and "operating",
 * "financial" and "finance"), and the key is a prefix of the word except where `ies`/`ied` become `y`. Words of other
 * letters than a to z, and words of three letters or fewer, are returned as they are.
 *
 * @example
 * ['decrease', 'decreased', 'decreasing'].map(inflectionStem); // ['decreas', 'decreas', 'decreas']
 */
export function inflectionStem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let stemmed = word;
  if (stemmed.endsWith('sses')) stemmed = stemmed.slice(0, -2);
  else if (/[^aeiou]ies$/.test(stemmed) && stemmed.length > 4) stemmed = `${stemmed.slice(0, -3)}y`;
  else if (stemmed.endsWith('s') && !stemmed.endsWith('ss')) stemmed = stemmed.slice(0, -1);
  if (/[^aeiou]ied$/.test(stemmed) && stemmed.length > 4) stemmed = `${stemmed.slice(0, -3)}y`;
  else {
    const suffix =
      stemmed.length >= 5 && stemmed.endsWith('ed') ? 2 : stemmed.length >= 6 && stemmed.endsWith('ing') ? 3 : 0;
    const stem = stemmed.slice(0, stemmed.length - suffix);
    if (suffix > 0 && stem.length >= 3 && VOWEL.test(stem)) {
      // A doubled last consonant is the inflection's ("incurred", "planning"), unless s or z ("passed").
      stemmed = stem.length >= 5 && /([^aeiouysz])\1$/.test(stem) ? stem.slice(0, -1) : stem;
    }
  }
  while (stemmed.length > 3 && stemmed.endsWith('e')) stemmed = stemmed.slice(0, -1);
  return stemmed;
}

/**
 * One canonical form of a word for matching question terms against document words: its {@link spelledTerm}, and for
 * an English word its {@link inflectionStem} ("Sales" → sal, "decreased" → decreas), so "why did it decrease" meets
 * "decreased". Numbers and fiscal years as {@link spelledTerm} writes them.
 */
export function canonicalTerm(word: string): string {
  const spelled = spelledTerm(word);
  // The plural rule has run on the spelled form; the stem reads the word whole, so "companies" gives company.
  const lower = word.toLowerCase().replace(/['’]s$/, '');
  return /^[a-z]+$/.test(lower) ? inflectionStem(lower) : spelled;
}

/** The question without its role and format instructions; the text itself when nothing else would be left. */
export function stripInstructions(text: string): string {
  const segments = text
    .split(/(?<=[.!?])\s+|:\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const kept = segments.filter((s) => !ROLE_SENTENCE.test(s) && !FORMAT_SENTENCE.test(s));
  let out = kept.join(' ');
  for (const phrase of INSTRUCTION_PHRASES) out = out.replace(phrase, ' ');
  out = out.replace(/\s+/g, ' ').trim();
  return out === '' ? text.trim() : out;
}

/** Names in the question: capitalized or mixed-case words ("AmEx", "3M", "Boeing") that are not question words. */
function entitiesOf(text: string): { entities: string[]; names: string[] } {
  const entities: string[] = [];
  const names: string[] = [];
  for (const match of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}&.'’-]*/gu)) {
    const raw = match[0].replace(/['’]s$/, '').replace(/[.'’-]+$/, '');
    const lower = raw.toLowerCase();
    if (raw.length < 2 || NOT_NAMES.has(lower) || INSTRUCTION_WORDS.has(lower)) continue;
    if (/^(?:fy)?'?\d+$/i.test(raw) || FORM.test(raw)) continue;
    const capitalized = /^\p{Lu}/u.test(raw) || /^\d+\p{Lu}/u.test(raw);
    if (!capitalized) continue;
    for (const part of raw.split(/[^\p{L}\p{N}]+/u)) {
      const key = part.toLowerCase();
      if (key.length < 2 || entities.includes(key) || NOT_NAMES.has(key)) continue;
      entities.push(key);
      names.push(part);
    }
  }
  return { entities, names };
}

/**
 * Reads a question: drops the instructions around it, then gives its terms, names, years and form type.
 *
 * @example
 * understandQuestion('Assume you are a public equities analyst. What was AmEx's FY2022 operating margin?');
 * // { text: "What was AmEx's FY2022 operating margin?", terms: ['amex', '2022', 'operating', 'margin'],
 * //   entities: ['amex'], years: ['2022'], … }
 */
export function understandQuestion(question: string): QuestionQuery {
  const text = stripInstructions(question);
  const years = new Set<string>();
  for (const match of text.matchAll(/\b(?:fy\s?'?(\d{2}|\d{4})|((?:19|20)\d\d))\b/gi)) {
    const year = match[1] ?? match[2]!;
    years.add(year.length === 2 ? `20${year}` : year);
  }
  const form = FORM.exec(text)?.[1];
  const terms: string[] = [];
  const words: string[] = [];
  const keep = (word: string) => {
    const term = canonicalTerm(word);
    if (terms.includes(term)) return;
    terms.push(term);
    words.push(spelledTerm(word));
  };
  for (const word of queryTerms(text)) {
    const term = canonicalTerm(word);
    if (INSTRUCTION_WORDS.has(word) || INSTRUCTION_WORDS.has(spelledTerm(word)) || /^\p{L}?$/u.test(term)) continue;
    keep(word);
  }
  if (terms.length === 0) queryTerms(text).forEach(keep);
  return {
    text,
    terms,
    words,
    ...entitiesOf(text),
    years: [...years],
    quarters: quartersOf(text),
    ...(form ? { formType: form.toUpperCase().replace(/^(\d+)-?([KQF])$/, '$1-$2') } : {}),
  };
}

/**
 * The query a full-text index gets for a question: its terms, plus each year also as written `FY2022`, since the
 * index matches words as the documents spell them.
 */
export function searchQuery(query: QuestionQuery): string {
  // Names keep their spelling, so a search that reads the query again still knows them for names.
  const canonical = query.entities.map(canonicalTerm);
  const spelled = query.terms.map((t, i) => query.names[canonical.indexOf(t)] ?? query.words[i] ?? t);
  return [...spelled, ...query.years.map((y) => `fy${y}`)].join(' ').slice(0, 500);
}

/** The canonical words of a text, for matching against {@link QuestionQuery.terms}. */
export function canonicalWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of wordTokens(text)) out.add(canonicalTerm(word));
  return out;
}
