/**
 * The one identifier detector: what reads as an id (an order number, a user handle, a UUID, a hash, a code
 * mixing letters and digits) in text, and what names one in a JSON field. Ids are what an agent passes to
 * its next call, so compressors protect them and join steps by them.
 */

import { foldCase } from './ascii-fold.js';
import { hasDigit, hasLetter, isAsciiDigit, isAsciiUpper, isAsciiWordCode } from './characters.js';
import { fieldNamePattern } from './field-names.js';

// The shapes of an identifier, one alternative each, matched as one expression compiled once. The hex shapes
// list both cases, as the `i` flag would.
const ID_SHAPES = [
  '#[A-Za-z0-9]{3,}', // #W1234567
  '[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+', // order_id, pm_card_123
  '[a-z]+[A-Z][A-Za-z0-9]*', // userId
  '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', // UUID
  '[0-9a-fA-F]{12,}', // hashes
];
const ID_SHAPE = new RegExp(`^(?:${ID_SHAPES.join('|')})$`, 'u');

/** True for a token shaped like an identifier; ordinals and decades ("4th", "1960s") are not. */
export function isIdentifierToken(token: string): boolean {
  if (ID_SHAPE.test(token)) return true;
  // Letters and digits mixed, like "W1234567" or "A1B2": a code, unless it is a number with a suffix.
  return token.length >= MIN_CODE_CHARS && hasDigit(token) && hasLetter(token) && !isNumberWithSuffix(token);
}

// What follows a number without making it a code: ordinals, a decade's s, a time of day, a size or a unit.
const NUMBER_SUFFIXES: ReadonlySet<string> = new Set([
  's',
  'st',
  'nd',
  'rd',
  'th',
  'am',
  'pm',
  'k',
  'm',
  'kg',
  'km',
  'cm',
  'mm',
]);

/** Whether `token` is ASCII digits and then one of {@link NUMBER_SUFFIXES} in any case ("4th", "1960s", "10KM"). */
function isNumberWithSuffix(token: string): boolean {
  let digits = 0;
  while (digits < token.length && isAsciiDigit(token.charCodeAt(digits))) digits += 1;
  return digits > 0 && NUMBER_SUFFIXES.has(foldCase(token.slice(digits)));
}

const ID_TOKEN = /[#\w][\w-]*/gu;
// Every identifier shape has a `#`, `_`, `-` or digit, a capital after the first letter, or twelve or more
// characters (a hash): a token with none of these is no identifier, without testing each shape.
const MAYBE_ID_LENGTH = 12;

/** Fewest characters of a letters-and-digits code ("W123", "A1B2"); shorter mixes are sizes and ordinals. */
export const MIN_CODE_CHARS = 4;

/** A token with a digit this long is taken as an id that may join steps (an order, an account); shorter is a count. */
export const MIN_JOINING_NUMBER_CHARS = 5;

/**
 * Whether `text` holds a token that {@link isIdentifierToken} accepts. Tokens are the matches of
 * `/[#\w][\w-]*\/gu`, scanned by hand: a compressor asks this of every unit, and most tokens of prose are
 * plain words, which one pass over the characters rules out without a match object per word.
 */
export function hasIdentifier(text: string): boolean {
  const length = text.length;
  let at = 0;
  while (at < length) {
    const first = text.charCodeAt(at);
    if (first !== 0x23 && !isAsciiWordCode(first)) {
      at += 1;
      continue;
    }
    // A `#`, `_` or digit anywhere, a `-` or capital after the first character, or a long token.
    let maybe = first === 0x23 || first === 0x5f || isAsciiDigit(first);
    let end = at + 1;
    for (; end < length; end += 1) {
      const code = text.charCodeAt(end);
      if (code === 0x2d || isAsciiUpper(code)) maybe = true;
      else if (isAsciiDigit(code) || code === 0x5f) maybe = true;
      else if (!isAsciiWordCode(code)) break;
    }
    if ((maybe || end - at >= MAYBE_ID_LENGTH) && isIdentifierToken(text.slice(at, end))) return true;
    at = end;
  }
  return false;
}

/**
 * The tokens of `text` that can join two steps: id values with a digit (`9665100170`, `#W3361211`,
 * `mia_li_3668`), five or more characters long or shaped as an identifier. Field names hold no digit.
 */
export function joiningIds(text: string): Set<string> {
  const out = new Set<string>();
  for (const [token] of text.matchAll(ID_TOKEN))
    if (hasDigit(token) && (token.length >= MIN_JOINING_NUMBER_CHARS || isIdentifierToken(token))) out.add(token);
  return out;
}

/** A JSON field name that names an id: `id`, `order_id`, `userId`, `item_ids`, `sku`, `uuid`, ... */
export const ID_FIELD = fieldNamePattern(
  ['id', 'uuid', 'guid', 'key', 'handle', 'sku'],
  ['_id', '_ids', 'Id', 'Ids', '_uuid', '_key', '_handle'],
);
