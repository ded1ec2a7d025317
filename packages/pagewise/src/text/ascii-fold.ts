/**
 * Fast case-insensitive tests of patterns written in ASCII. With the `u` flag, `i` also folds ſ (U+017F) to
 * `s` and the Kelvin sign (U+212A) to `k`, and `\w` and `\b` count them as word characters; V8 then runs such
 * patterns several times slower. A text holding neither character matches a pattern of ASCII literals,
 * classes, `\b`, `\d`, `\s`, `\S` and `\w` the same with `i` alone, so the slow form runs only on such texts.
 */
import { isAsciiWordCode } from './characters.js';

// ſ (long s) and K (Kelvin sign): the two non-ASCII characters that fold to ASCII letters under `iu`.
const LONG_S = '\u017f';
const KELVIN = '\u212a';
const foldsToAscii = (text: string): boolean => text.includes(LONG_S) || text.includes(KELVIN);

/** Whether a UTF-16 code is a word character as `\w` reads it under `iu`: ASCII `\w`, or ſ or K. */
export const isFoldedWordCode = (code: number): boolean =>
  isAsciiWordCode(code) || code === LONG_S.charCodeAt(0) || code === KELVIN.charCodeAt(0);

/**
 * `text` in lower case as the `iu` flags compare it with ASCII words: ſ read as `s` (the Kelvin sign already
 * lowers to `k`). For matching a lower-case ASCII word list the way a case-insensitive pattern would.
 */
export function foldCase(text: string): string {
  const lower = text.toLowerCase();
  return lower.includes(LONG_S) ? lower.replaceAll(LONG_S, 's') : lower;
}

/**
 * A tester equivalent to `new RegExp(source, 'iu').test`, faster on texts without ſ or the Kelvin sign.
 *
 * @throws RangeError for a pattern that is not ASCII or uses Unicode-only syntax (`\p{…}`, `\u{…}`).
 */
export function caseInsensitiveTest(source: string): (text: string) => boolean {
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]|\\[pPu]/u.test(source)) throw new RangeError(`Not an ASCII pattern: ${source}`);
  const [ascii, unicode] = (['i', 'iu'] as const).map((flags) => new RegExp(source, flags)) as [RegExp, RegExp];
  return (text) => (foldsToAscii(text) ? unicode : ascii).test(text);
}
