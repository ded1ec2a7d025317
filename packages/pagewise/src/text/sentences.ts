/**
 * Sentences of any language. `Intl.Segmenter` finds sentence boundaries with the platform's ICU rules, so
 * `。` and `！` end a Japanese or Chinese sentence as `.` ends an English one; the breaks ICU makes after
 * abbreviations, initials and dotted acronyms ("Dr. Smith", "Herbert L. Kessler", "Ph.D. thesis") are
 * joined back, since merging two sentences is the cheaper mistake than cutting one.
 */
import { hasUnspacedScript, startsLowercase } from './characters.js';

/** A sentence: `text.slice(start, end)`, trimmed of surrounding whitespace. */
export interface SentenceSpan {
  start: number;
  end: number;
}

const segmenters = new Map<string, Intl.Segmenter>();

function sentenceSegmenter(locale: string | undefined): Intl.Segmenter {
  const key = locale ?? '';
  let segmenter = segmenters.get(key);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(locale, { granularity: 'sentence' });
    segmenters.set(key, segmenter);
  }
  return segmenter;
}

// Periods after these words (compared lowercase, without the period) do not end a sentence.
const ABBREVIATIONS = new Set(
  (
    'mr mrs ms dr prof st jr sr vs etc e.g i.e inc ltd co corp no nos vol fig gen col lt sgt capt rev hon mt ft ave ' +
    'blvd rd u.s u.k jan feb mar apr jun jul aug sep sept oct nov dec approx dept est op cf al p pp ch sec'
  ).split(' '),
);

/**
 * The sentences of `text[start, end)`, as offsets into `text`, in order. Whitespace between sentences
 * belongs to none of them; a break is undone when the sentence before it ends in an abbreviation or an
 * initial, or when the next one starts with a lower-case letter.
 *
 * @param locale a BCP 47 tag; by default the platform's, whose rules cover CJK punctuation anyway.
 * @example
 * sentenceSpans('売上高は12.5%増加した。営業利益は減少した。').length; // 2
 */
export function sentenceSpans(text: string, start = 0, end = text.length, locale?: string): SentenceSpan[] {
  const body = text.slice(start, end);
  const out: SentenceSpan[] = [];
  let open: SentenceSpan | undefined;
  for (const segment of sentenceSegmenter(locale).segment(body)) {
    const raw = segment.segment;
    const lead = raw.length - raw.trimStart().length;
    const trimmed = raw.trim();
    if (trimmed === '') continue;
    const span = { start: start + segment.index + lead, end: start + segment.index + lead + trimmed.length };
    if (open && joinsPrevious(text, open, span)) {
      open.end = span.end;
      continue;
    }
    if (open) out.push(open);
    open = span;
  }
  if (open) out.push(open);
  return out;
}

/** The sentences of `text` as strings (see {@link sentenceSpans}). */
export function splitSentences(text: string, locale?: string): string[] {
  return sentenceSpans(text, 0, text.length, locale).map((s) => text.slice(s.start, s.end));
}

function joinsPrevious(text: string, previous: SentenceSpan, next: SentenceSpan): boolean {
  // A break with no space in it, outside CJK script (`3.50`, `a.b`, `?.`), would cut a word or a value.
  // In script that runs sentences together without a space, a break right after one of its characters is a break.
  if (next.start === previous.end && !hasUnspacedScript(text[previous.end - 1] ?? '')) return true;
  const first = text[next.start] ?? '';
  if (startsLowercase(first)) return true;
  const before = text.slice(Math.max(previous.start, previous.end - 24), previous.end);
  // Only a final period can belong to an abbreviation; `?`, `!` and `。` always end a sentence.
  if (!before.endsWith('.')) return false;
  const word = /(?:^|[\s("'“‘[])([\p{L}.]+)\.$/u.exec(before)?.[1];
  if (word === undefined) return false;
  // A single capital letter is an initial ("Herbert L. Kessler"); a dotted acronym ("Ph.D.", "M.F.A.", "U.S.").
  if (/^(?:\p{Lu}|(?:\p{L}{1,3}\.)+\p{L}{1,3})$/u.test(word)) return true;
  return ABBREVIATIONS.has(word.toLowerCase());
}
