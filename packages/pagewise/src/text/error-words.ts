/**
 * The words that say something went wrong, as data: a text that holds one is an error report the compressor
 * keeps. Words are runs of ASCII letters, digits and `_` (what `\w` matches), compared in lower case, so
 * "Error", "ERROR" and "error" are one word and "errors" or "error_code" are other words. The long s (ſ) and
 * the Kelvin sign (K) are read as the `s` and `k` they fold to.
 */
import { foldCase, isFoldedWordCode as isWordCode } from './ascii-fold.js';

/** Single words that report a failure. */
export const ERROR_WORDS: ReadonlySet<string> = new Set([
  'error',
  'exception',
  'fail',
  'fails',
  'failed',
  'failure',
  'fatal',
  'panic',
  'traceback',
  'denied',
  'refused',
  'invalid',
  'unauthorized',
  'unauthorised',
  'forbidden',
  'timeout',
  'timedout',
]);

/** Two words, one space apart, that report a failure: the first word, then what must follow it. */
export const ERROR_PHRASES: ReadonlyMap<string, string> = new Map([
  ['not', 'found'],
  ['time', 'out'],
  ['timed', 'out'],
]);

/** The words a log or stack trace opens its error line with ("Error: …", "FATAL …", "Traceback (…"). */
export const ERROR_LINE_WORDS: ReadonlySet<string> = new Set(['error', 'exception', 'fatal', 'traceback', 'panic']);

/** At most this many characters that are not word characters ("[", "** ", "!! ") may come before an error line's word. */
export const ERROR_LINE_LEAD_CHARS = 3;

/** The word of `text` from `start` to `end`, in lower case, with ſ and K read as `s` and `k`. */
const lowerWord = (text: string, start: number, end: number): string => foldCase(text.slice(start, end));

/** Whether `text` holds one of {@link ERROR_WORDS} as a whole word, or one of {@link ERROR_PHRASES}. */
export function hasErrorWord(text: string): boolean {
  let previous: string | undefined;
  let previousEnd = -1;
  let at = 0;
  while (at < text.length) {
    if (!isWordCode(text.charCodeAt(at))) {
      at += 1;
      continue;
    }
    const start = at;
    while (at < text.length && isWordCode(text.charCodeAt(at))) at += 1;
    const word = lowerWord(text, start, at);
    if (ERROR_WORDS.has(word)) return true;
    if (
      previous !== undefined &&
      previousEnd === start - 1 &&
      text[previousEnd] === ' ' &&
      ERROR_PHRASES.get(previous) === word
    ) {
      return true;
    }
    previous = word;
    previousEnd = at;
  }
  return false;
}

/**
 * Whether `line` opens with one of {@link ERROR_LINE_WORDS}, after at most {@link ERROR_LINE_LEAD_CHARS} characters
 * that are not word characters (counted by code point).
 */
export function startsWithErrorWord(line: string): boolean {
  let at = 0;
  let lead = 0;
  for (const char of line) {
    if (isWordCode(char.charCodeAt(0))) break;
    if (lead === ERROR_LINE_LEAD_CHARS) return false;
    lead += 1;
    at += char.length;
  }
  const start = at;
  while (at < line.length && isWordCode(line.charCodeAt(at))) at += 1;
  return at > start && ERROR_LINE_WORDS.has(lowerWord(line, start, at));
}
