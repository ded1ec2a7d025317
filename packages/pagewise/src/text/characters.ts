/**
 * What a character is, asked in one place. ASCII classes are read from character codes, with no expression
 * run per call; the Unicode classes the compressor reads text by are expressions compiled once here. These
 * expressions have no `g` or `y` flag and are only run with `test`, so they keep no state between callers.
 */

/** Whether a UTF-16 code is an ASCII digit, `0` to `9`: what `\d` matches. */
export const isAsciiDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;

/** Whether a UTF-16 code is an ASCII capital, `A` to `Z`. */
export const isAsciiUpper = (code: number): boolean => code >= 0x41 && code <= 0x5a;

/** Whether a UTF-16 code is one `\w` matches without the `i` flag: an ASCII letter, digit or `_`. */
export const isAsciiWordCode = (code: number): boolean =>
  isAsciiDigit(code) || isAsciiUpper(code) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;

/** Whether `text` holds an ASCII digit, as `/\d/u.test(text)`. */
export function hasDigit(text: string): boolean {
  for (let at = 0; at < text.length; at += 1) if (isAsciiDigit(text.charCodeAt(at))) return true;
  return false;
}

/** Whether `text` is one or more ASCII digits and nothing else, as `/^\d+$/u.test(text)`. */
export function isDigits(text: string): boolean {
  for (let at = 0; at < text.length; at += 1) if (!isAsciiDigit(text.charCodeAt(at))) return false;
  return text.length > 0;
}

const LETTER = /\p{L}/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const LOWERCASE_START = /^\p{Ll}/u;
// Scripts that run words and sentences together without spaces: Han, Hiragana, Katakana, Hangul.
const CJK_SCRIPTS = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}`;
const CJK = new RegExp(`[${CJK_SCRIPTS}]`, 'u');
// The same scripts with the CJK punctuation (U+3000–U+303F) and full-width forms (U+FF01–U+FF60) written among them.
const UNSPACED_SCRIPT = new RegExp(`[${CJK_SCRIPTS}\\u3000-\\u303f\\uff01-\\uff60]`, 'u');

/** Whether `text` holds a letter of any script (`\p{L}`). */
export const hasLetter = (text: string): boolean => LETTER.test(text);

/** Whether `text` holds a letter or a number of any script (`[\p{L}\p{N}]`). */
export const hasLetterOrDigit = (text: string): boolean => LETTER_OR_DIGIT.test(text);

/** How many UTF-16 code units of `text` are letters of any script: its length once all but letters are removed. */
export function letterUnits(text: string): number {
  let units = 0;
  for (const char of text) if (LETTER.test(char)) units += char.length;
  return units;
}

/** `text` without the characters at either end that are neither letters nor numbers (of any script). */
export function trimToLetterOrDigit(text: string): string {
  const chars = [...text];
  let start = 0;
  let end = chars.length;
  while (start < end && !LETTER_OR_DIGIT.test(chars[start]!)) start += 1;
  while (end > start && !LETTER_OR_DIGIT.test(chars[end - 1]!)) end -= 1;
  return start === 0 && end === chars.length ? text : chars.slice(start, end).join('');
}

/** Whether `text` starts with a lower-case letter (`\p{Ll}`). */
export const startsLowercase = (text: string): boolean => LOWERCASE_START.test(text);

/** Whether `text` contains characters of a script written without spaces (Chinese, Japanese, Korean). */
export const hasCjk = (text: string): boolean => CJK.test(text);

/** Whether `text` holds a character of a script written without spaces, or CJK punctuation. */
export const hasUnspacedScript = (text: string): boolean => UNSPACED_SCRIPT.test(text);

/** Whether the last UTF-16 code unit of `text` is one of `chars` (characters of the Basic Multilingual Plane). */
export function endsWithAnyOf(text: string, chars: string): boolean {
  return text !== '' && chars.includes(text[text.length - 1]!);
}
