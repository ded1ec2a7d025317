/**
 * Token counting with a real BPE tokenizer (gpt-tokenizer). Counts are cached by content, since the
 * same history messages are counted again at every step of a long run. All text is counted as plain
 * text: a special-token string such as `<|endoftext|>` in a document, tool result or user message is
 * counted as the characters it is, never refused and never read as a control token.
 */
import { createRequire } from 'node:module';
import { LONG_PIECE_CHARS, mergePiece, preTokenPattern } from './long-pieces.js';

/** The BPE encodings pagewise can count with. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

interface EncodeOptions {
  allowedSpecial?: Set<string> | 'all';
  disallowedSpecial?: Set<string> | 'all';
}

interface Encoder {
  countTokens(text: string, options?: EncodeOptions): number;
  encode(text: string, options?: EncodeOptions): number[];
}

/** Special-token strings are text like any other: the tokenizer's default refuses them with an error. */
const PLAIN_TEXT: EncodeOptions = { allowedSpecial: new Set(), disallowedSpecial: new Set() };

// An encoding's tables (megabytes) load the first time it counts, not when the package is imported, so
// importing pagewise stays cheap and a process that never counts for GPT-4/3.5 never loads cl100k.
const requireCjs = createRequire(import.meta.url);
const encoders: Partial<Record<EncodingName, Encoder>> = {};

function encoderFor(name: EncodingName): Encoder {
  encoders[name] ??= requireCjs(`gpt-tokenizer/cjs/encoding/${name}`) as Encoder;
  return encoders[name];
}

/** Picks the encoding a model id uses: cl100k for GPT-3.5/GPT-4 (not 4o/4.1), o200k otherwise. */
export function encodingForModel(modelId: string): EncodingName {
  const id = modelId.toLowerCase();
  if (/gpt-3\.5|gpt-4(?!o|\.1|\.5)(-|$)|text-embedding-ada|davinci/.test(id)) return 'cl100k_base';
  return 'o200k_base';
}

const MAX_CACHE_CHARS = 64 * 1024 * 1024;

class TokenCache {
  private readonly map = new Map<string, number>();
  private chars = 0;

  get(key: string): number | undefined {
    return this.map.get(key);
  }

  set(key: string, value: number): void {
    if (key.length > MAX_CACHE_CHARS / 4) return;
    this.map.set(key, value);
    this.chars += key.length;
    // Evict oldest entries first: Map iterates in insertion order.
    while (this.chars > MAX_CACHE_CHARS) {
      const oldest = this.map.keys().next();
      if (oldest.done) break;
      this.chars -= oldest.value.length;
      this.map.delete(oldest.value);
    }
  }
}

const caches: Record<EncodingName, TokenCache> = { o200k_base: new TokenCache(), cl100k_base: new TokenCache() };

// A token holds at least one byte of the text's UTF-8, and a UTF-16 code unit takes at most three bytes (a
// surrogate pair, two units, takes four): a text has at most three tokens per code unit.
const MAX_TOKENS_PER_UNIT = 3;

/**
 * Whether `text` has more than `limit` tokens: the same answer as `countTokens(text, encoding) > limit`, but
 * a text too short to hold that many (three tokens per UTF-16 code unit at most) is not counted.
 */
export function exceedsTokens(text: string, limit: number, encoding: EncodingName = 'o200k_base'): boolean {
  if (text.length * MAX_TOKENS_PER_UNIT <= limit) return false;
  return countTokens(text, encoding) > limit;
}

/**
 * Counts the tokens of `text` with the given encoding (o200k_base by default). Results are cached by
 * content: a string already counted costs one hash lookup. A longer o200k text is counted line by line
 * (see {@link SEGMENT_CHARS}), each line cached, so a text made of lines counted before (a compressor's
 * output, rendered again with a few units more) costs little more than the lookups.
 */
export function countTokens(text: string, encoding: EncodingName = 'o200k_base'): number {
  if (text.length === 0) return 0;
  const cache = caches[encoding];
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const tokens =
    encoding === 'o200k_base' && text.length >= SEGMENT_CHARS
      ? countBySegments(text, encoding)
      : countUncached(encoderFor(encoding), text, encoding);
  cache.set(text, tokens);
  return tokens;
}

// A text from this many characters is counted as the sum of its segments: it is cut after a line break
// that is followed by a character other than whitespace or `/`. o200k's pre-tokenizer never joins characters
// across such a cut (a pre-token holding a line break ends with it, unless more line breaks, whitespace or
// `/` follow), and BPE merges only within a pre-token, so the sum is exact. cl100k's pre-tokenizer treats
// trailing whitespace at the very end of a text apart, so its texts are counted whole.
// Counting (not encoding) also cuts after an ASCII digit that an ASCII character other than a digit follows:
// o200k puts a digit only in a pre-token of digits alone, so one ends there. A text of one line, such as
// compact JSON rendered again with a few fields more, is then mostly pieces counted before.
const SEGMENT_CHARS = 256;
const SLASH = 0x2f;
const NEWLINE = 0x0a;
const DIGIT_ZERO = 0x30;
const DIGIT_NINE = 0x39;
const ASCII_END = 0x80;

function isAsciiDigit(code: number): boolean {
  return code >= DIGIT_ZERO && code <= DIGIT_NINE;
}

/** True when {@link countTokens} may cut `text` before offset `at` (0 < at < text.length). */
function cutsBefore(text: string, at: number): boolean {
  const previous = text.charCodeAt(at - 1);
  if (previous === NEWLINE) return startsSegment(text.charCodeAt(at));
  if (!isAsciiDigit(previous)) return false;
  const code = text.charCodeAt(at);
  return code < ASCII_END && !isAsciiDigit(code);
}
const WHITESPACE = /\s/u;

/** True when a segment may start with the UTF-16 unit `code` (see {@link SEGMENT_CHARS}). */
function startsSegment(code: number): boolean {
  if (code <= 0x20 || code === SLASH) return false;
  return code < 0x80 || !WHITESPACE.test(String.fromCharCode(code));
}

function countBySegments(text: string, encoding: EncodingName): number {
  const cache = caches[encoding];
  const encoder = encoderFor(encoding);
  const segment = (part: string): number => {
    let tokens = cache.get(part);
    if (tokens === undefined) {
      tokens = countUncached(encoder, part, encoding);
      cache.set(part, tokens);
    }
    return tokens;
  };
  let total = 0;
  let start = 0;
  for (let at = 1; at < text.length; at += 1) {
    if (!cutsBefore(text, at)) continue;
    total += segment(text.slice(start, at));
    start = at;
  }
  return start === 0 ? countUncached(encoder, text, encoding) : total + segment(text.slice(start));
}

// The tokenizer merges a pre-token in time quadratic in its length, and a run of letters, punctuation or
// whitespace is one pre-token: 160k spaces take most of a minute and block the event loop. A text that may
// hold such a run is cut at the tokenizer's own pre-token boundaries; every long piece is merged by
// `mergePiece` (same merges, O(n log n)), the text between long pieces by the tokenizer, so the sum is exact.
function countUncached(encoder: Encoder, text: string, encoding: EncodingName): number {
  const count = (t: string): number => (t.length === 0 ? 0 : encoder.countTokens(t, PLAIN_TEXT));
  if (text.length < LONG_PIECE_CHARS || !mayHoldLongPiece(text)) return count(text);
  let total = 0;
  let last = 0;
  for (const match of text.matchAll(preTokenPattern(encoding))) {
    if (match[0].length < LONG_PIECE_CHARS) continue;
    total += count(text.slice(last, match.index)) + mergePiece(match[0], encoding).tokens;
    last = match.index + match[0].length;
  }
  return total + count(text.slice(last));
}

// A pre-token of LONG_PIECE_CHARS holds at least half that many characters in a row that are all
// whitespace, all non-whitespace, or all line breaks and slashes (a punctuation run's tail); prose has no
// such run, so this cheap test spares it a second pass of the pre-token pattern. It is one linear pass: the
// same test as a regular expression retried the run from every position, quadratic in the runs' length.
const LONG_RUN = LONG_PIECE_CHARS / 2 - 4;

/** Whether a UTF-16 unit of the Basic Multilingual Plane is whitespace (`\s`). */
function isSpaceUnit(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * True when `text` holds a run of {@link LONG_RUN} code points that are all whitespace, all other
 * characters, or all of `\r`, `\n` and `/`.
 */
export function mayHoldLongPiece(text: string): boolean {
  let spaces = 0;
  let others = 0;
  let breaks = 0;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (isSpaceUnit(code)) {
      spaces += 1;
      others = 0;
    } else {
      others += 1;
      spaces = 0;
      // A surrogate pair is one code point.
      if (code >= 0xd800 && code <= 0xdbff) {
        const next = text.charCodeAt(at + 1);
        if (next >= 0xdc00 && next <= 0xdfff) at += 1;
      }
    }
    breaks = code === 0x0a || code === 0x0d || code === SLASH ? breaks + 1 : 0;
    if (spaces >= LONG_RUN || others >= LONG_RUN || breaks >= LONG_RUN) return true;
  }
  return false;
}

/** Encodes `text` to token ids, special-token strings as plain text, uncached; for tests and exact checks. */
export function encodeTokens(text: string, encoding: EncodingName = 'o200k_base'): number[] {
  return encoderFor(encoding).encode(text, PLAIN_TEXT);
}

const MAX_ENCODED_CACHE_TOKENS = 8 * 1024 * 1024;

/** Token ids by text, bounded by the tokens held; oldest entries go first (Map iterates in insertion order). */
class EncodedCache {
  private readonly map = new Map<string, Uint32Array>();
  private tokens = 0;

  get(key: string): Uint32Array | undefined {
    return this.map.get(key);
  }

  set(key: string, value: Uint32Array): void {
    if (value.length > MAX_ENCODED_CACHE_TOKENS / 4) return;
    this.map.set(key, value);
    this.tokens += value.length;
    while (this.tokens > MAX_ENCODED_CACHE_TOKENS) {
      const oldest = this.map.entries().next();
      if (oldest.done) break;
      this.tokens -= oldest.value[1].length;
      this.map.delete(oldest.value[0]);
    }
  }
}

const encodedCaches: Record<EncodingName, EncodedCache> = {
  o200k_base: new EncodedCache(),
  cl100k_base: new EncodedCache(),
};

/**
 * Encodes `text` to token ids, cached by content and, for o200k, by line segment (the cut of
 * {@link countTokens}, which never joins characters across it), so a text re-rendered with a few lines more
 * costs little more than the lookups. Its length always equals {@link countTokens}. A pre-token of
 * {@link LONG_PIECE_CHARS} or more (a run the tokenizer would merge in quadratic time) is not merged: it
 * stands as as many ids as it has tokens, each derived from a hash of the whole piece, so two texts agree
 * on it only when the piece is the same.
 */
export function encodeTokensCached(text: string, encoding: EncodingName = 'o200k_base'): Uint32Array {
  if (text.length === 0) return EMPTY_TOKENS;
  const cache = encodedCaches[encoding];
  const hit = cache.get(text);
  if (hit) return hit;
  const encoded =
    encoding === 'o200k_base' && text.length >= SEGMENT_CHARS
      ? encodeBySegments(text, encoding)
      : encodeUncached(text, encoding);
  cache.set(text, encoded);
  return encoded;
}

const EMPTY_TOKENS = new Uint32Array(0);

/**
 * Counts `text` as {@link countTokens} does, keeping its token ids in the cache {@link encodeTokensCached}
 * reads: for a text that will be encoded again soon, as the prompt-cache model encodes a step's new history
 * items, so the second pass is a lookup. Encoding costs no more than counting, but the ids take memory
 * (bounded by that cache), so callers use it only where the ids will be read.
 */
export function countTokensKeepingIds(text: string, encoding: EncodingName = 'o200k_base'): number {
  if (text.length === 0) return 0;
  const count = caches[encoding].get(text);
  if (count !== undefined && encodedCaches[encoding].get(text)) return count;
  const ids = encodeTokensCached(text, encoding);
  caches[encoding].set(text, ids.length);
  return ids.length;
}

function encodeBySegments(text: string, encoding: EncodingName): Uint32Array {
  const cache = encodedCaches[encoding];
  const parts: Uint32Array[] = [];
  let length = 0;
  const add = (part: string): void => {
    let tokens = cache.get(part);
    if (!tokens) {
      tokens = encodeUncached(part, encoding);
      cache.set(part, tokens);
    }
    parts.push(tokens);
    length += tokens.length;
  };
  let start = 0;
  for (let at = text.indexOf('\n'); at >= 0 && at + 1 < text.length; at = text.indexOf('\n', at + 1)) {
    if (!startsSegment(text.charCodeAt(at + 1))) continue;
    add(text.slice(start, at + 1));
    start = at + 1;
  }
  if (start === 0) return encodeUncached(text, encoding);
  add(text.slice(start));
  const joined = new Uint32Array(length);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

function encodeUncached(text: string, encoding: EncodingName): Uint32Array {
  const encoder = encoderFor(encoding);
  if (text.length < LONG_PIECE_CHARS || !mayHoldLongPiece(text))
    return Uint32Array.from(encoder.encode(text, PLAIN_TEXT));
  const ids: number[] = [];
  const push = (part: string): void => {
    if (part.length > 0) for (const id of encoder.encode(part, PLAIN_TEXT)) ids.push(id);
  };
  let last = 0;
  for (const match of text.matchAll(preTokenPattern(encoding))) {
    if (match[0].length < LONG_PIECE_CHARS) continue;
    push(text.slice(last, match.index));
    const count = mergePiece(match[0], encoding).tokens;
    const seed = pieceHash(match[0]);
    // Above every real id (o200k has about 200k), so a stand-in never equals a real token.
    for (let index = 0; index < count; index += 1) ids.push((0x8000_0000 | (seed + index)) >>> 0);
    last = match.index + match[0].length;
  }
  push(text.slice(last));
  return Uint32Array.from(ids);
}

/** A 31-bit FNV-1a hash of a string's UTF-16 units. */
function pieceHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < text.length; at += 1) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193);
  return (hash >>> 1) & 0x3fff_ffff;
}
