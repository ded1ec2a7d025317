/**
 * Protected content of a unit (numbers, identifiers, dates, URLs, errors, headings): the kinds a unit holds, which
 * the `protectedKinds` feature counts.
 */
import type { AlwaysKeep } from '../rules.js';
import { caseInsensitiveTest } from '../../text/ascii-fold.js';
import { hasDigit } from '../../text/characters.js';
import { hasErrorWord } from '../../text/error-words.js';
import { hasIdentifier } from '../../text/identifiers.js';
import { MARKDOWN_HEADER, type TextUnit } from '../../text/segment.js';
import { WORD_CACHE_LIMIT } from './search.js';

// At most this many protected kinds count in the `protectedKinds` feature, so a unit full of numbers does
// not outrank relevance.
export const MAX_PROTECTED_KINDS = 2;

const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const PROTECTED: Record<Exclude<keyof AlwaysKeep, 'numbers' | 'headers' | 'identifiers' | 'errors'>, RegExp> = {
  dates: new RegExp(
    `\\b\\d{4}-\\d{2}-\\d{2}\\b|\\b\\d{1,2}[/.]\\d{1,2}[/.]\\d{2,4}\\b|\\b${MONTH}\\.?\\s+\\d{1,4}\\b|\\b\\d{1,2}\\s+${MONTH}\\b|\\b\\d{1,2}:\\d{2}\\b`,
    'iu',
  ),
  urls: /\bhttps?:\/\/\S+|\bwww\.\S+/iu,
};

// The case-insensitive kinds, tested fast (see caseInsensitiveTest).
export const PROTECTED_TESTS = {
  dates: caseInsensitiveTest(PROTECTED.dates.source),
  urls: caseInsensitiveTest(PROTECTED.urls.source),
  errors: hasErrorWord,
};

/** How many kinds of protected content `text` holds, counted up to {@link MAX_PROTECTED_KINDS}. */
export function protectedKindsOfText(text: string, flags: AlwaysKeep, isHeading: boolean): number {
  const digits = hasDigit(text);
  // Cheapest first; past the cap, more kinds change nothing.
  const tests = [
    () => flags.numbers && digits,
    () => flags.headers && (isHeading || MARKDOWN_HEADER.test(text)),
    // Every date form has a digit.
    () => flags.dates && digits && PROTECTED_TESTS.dates(text),
    () => flags.urls && PROTECTED_TESTS.urls(text),
    () => flags.errors && PROTECTED_TESTS.errors(text),
    () => flags.identifiers && hasIdentifier(text),
  ];
  let kinds = 0;
  for (const test of tests) {
    if (test()) kinds += 1;
    if (kinds >= MAX_PROTECTED_KINDS) break;
  }
  return kinds;
}

// A page is often compressed again for another query (each step of a run, each question on a report): the
// kinds of a unit, found by several regular expressions, are remembered by flags, then by text (the unit's
// own string, not a key joined from it, which would be copied and hashed anew on every call).
const kindsCache = new Map<number, Map<string, number>>();
let kindsCached = 0;

export function protectedKinds(unit: TextUnit, flags: AlwaysKeep): number {
  const isHeading = unit.kind === 'heading';
  const bits =
    Number(flags.numbers) |
    (Number(flags.identifiers) << 1) |
    (Number(flags.dates) << 2) |
    (Number(flags.urls) << 3) |
    (Number(flags.errors) << 4) |
    (Number(flags.headers) << 5) |
    (Number(isHeading) << 6);
  let byText = kindsCache.get(bits);
  let kinds = byText?.get(unit.text);
  if (kinds === undefined) {
    kinds = protectedKindsOfText(unit.text, flags, isHeading);
    if (kindsCached >= WORD_CACHE_LIMIT) {
      kindsCache.clear();
      kindsCached = 0;
      byText = undefined;
    }
    if (byText === undefined) kindsCache.set(bits, (byText = new Map()));
    byText.set(unit.text, kinds);
    kindsCached += 1;
  }
  return kinds;
}
