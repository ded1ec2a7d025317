/**
 * What a compressor call lost: the fields (JSON key paths) and line kinds of its input whose values
 * are missing from its output. Paths are generalized so they name a kind of field, never a record:
 * array indices become `[]` and keys that look like ids (hold a digit, or key a map of records) become
 * `*`, so `variants.1008948180.available` is `variants.*.available`. The optimizer turns paths into
 * extractive rules; generalizing here is what keeps ids out of them.
 */
import { z } from 'zod';
import { canonicalValue } from '../util/canonical-value.js';
import { ownValue, scanJson, setOwn } from 'pagewise/internal';

/** One scalar of a JSON input, with its generalized path and its value in canonical form. */
export interface JsonLeaf {
  /** Generalized path: keys joined by `.`, `[]` for an array index, `*` for an id-like key. */
  path: string;
  /** See {@link canonicalValue}. */
  value: string;
  /** Rough token cost of the field as written (`"key":value`), for ranking what a field costs. */
  tokens: number;
}

/** Per path, what one compressor call (or a whole episode) kept and lost. */
export interface FieldStats {
  /** Leaves of the input that the output no longer holds. */
  lost: number;
  /** Leaves of the input that the output still holds. */
  kept: number;
  /** Estimated tokens of the kept leaves. */
  keptTokens: number;
  /** Distinct canonical values lost (at most {@link MAX_VALUES_PER_PATH}). */
  lostValues: string[];
  /** Distinct canonical values kept (at most {@link MAX_VALUES_PER_PATH}). */
  keptValues: string[];
}

/** Values remembered per path: enough to match gold facts, bounded so progress files stay small. */
export const MAX_VALUES_PER_PATH = 40;

/** Schema of {@link FieldStats}, for progress files read back. */
export const FieldStatsSchema = z.object({
  lost: z.number(),
  kept: z.number(),
  keptTokens: z.number(),
  lostValues: z.array(z.string()),
  keptValues: z.array(z.string()),
});

/** What {@link diffCompression} found for one call. */
export interface CompressionDiff {
  fields: Record<string, FieldStats>;
  /** Output fields whose value is nowhere in the input: the compressor wrote something it was not given. */
  invented: number;
}

export { canonicalValue };

/**
 * The JSON containers in a text and the text around them: the whole text when it is JSON, else every
 * outermost `{…}` that parses (tool results quoted in a transcript or a summary). Walked with type
 * checks only: any well-formed JSON is valid here.
 */
export function splitJson(text: string): { values: unknown[]; rest: string } {
  return scanJson(text);
}

// A key with three digits or more is an id (`credit_card_9513926`), not a field name (`address1`).
const ID_LIKE_KEY = /\d\D*\d\D*\d/u;

/** A map of records keyed by ids, as the extractive compressor sees one: every key holds a digit. */
function isRecordMap(value: object): boolean {
  const entries = Object.entries(value);
  return entries.length >= 2 && entries.every(([k, v]) => typeof v === 'object' && v !== null && /\d/u.test(k));
}

/** The scalar leaves of a JSON value, paths generalized (see the module comment). Empty containers count as leaves. */
export function jsonLeaves(value: unknown, into: JsonLeaf[] = [], path = ''): JsonLeaf[] {
  const join = (step: string) => (path === '' ? step : `${path}.${step}`);
  if (Array.isArray(value) && value.length > 0) {
    for (const item of value) jsonLeaves(item, into, join('[]'));
  } else if (typeof value === 'object' && value !== null && Object.keys(value).length > 0) {
    const recordMap = isRecordMap(value);
    for (const [key, child] of Object.entries(value))
      jsonLeaves(child, into, join(recordMap || ID_LIKE_KEY.test(key) ? '*' : key));
  } else {
    const last = path.split('.').pop() ?? '';
    const written = `"${last}":${JSON.stringify(value) ?? 'null'}`;
    into.push({ path, value: canonicalValue(value), tokens: Math.max(1, Math.ceil(written.length / 4)) });
  }
  return into;
}

/** `text` with every regular-expression metacharacter escaped. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** The code point that ends just before `end` (a surrogate pair read whole). */
function codePointBefore(text: string, end: number): string {
  const low = text.charCodeAt(end - 1);
  return low >= 0xdc00 && low <= 0xdfff && end >= 2 ? text.slice(end - 2, end) : text.charAt(end - 1);
}

/** Whether lower-case `text` holds `word` (lower case) not inside a longer word or number. */
export function containsWord(text: string, word: string): boolean {
  if (!word) return false;
  for (let start = text.indexOf(word); start >= 0; start = text.indexOf(word, start + 1)) {
    if (start > 0 && WORD_CHAR.test(codePointBefore(text, start))) continue;
    const end = start + word.length;
    const next = String.fromCodePoint(text.codePointAt(end) ?? 32);
    if (end < text.length && WORD_CHAR.test(next)) continue;
    // "12" is not in "12.5": a decimal point followed by a digit continues the number.
    if (text[end] === '.' && /\d/u.test(text[end + 1] ?? '')) continue;
    return true;
  }
  return false;
}

/** Structural kinds of a text line, for inputs that are not JSON. */
export type LineKind = 'heading' | 'bullet' | 'key-value' | 'table-row' | 'error' | 'numeric' | 'prose';

/** The kind of a line, by its shape alone (never by its words, which would carry task values). */
export function lineKind(line: string): LineKind {
  const trimmed = line.trim();
  if (/^#{1,6}\s/u.test(trimmed)) return 'heading';
  if (/^\|.*\|$/u.test(trimmed)) return 'table-row';
  if (/\b(?:error|exception|failed|denied|not found|timeout)\b/iu.test(trimmed)) return 'error';
  if (/^[-*•]\s|^\d+[.)]\s/u.test(trimmed)) return 'bullet';
  if (/^[A-Za-z][\w ./-]{0,40}:\s+\S/u.test(trimmed)) return 'key-value';
  if (/\d/u.test(trimmed)) return 'numeric';
  return 'prose';
}

// Lines shorter than this are labels and punctuation, not content worth a rule.
const MIN_LINE_CHARS = 20;

function contentLines(text: string): string[] {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      // Transcript markers ("[result of …]") and summary labels are the compressor's own framing.
      .filter((l) => l.length >= MIN_LINE_CHARS && !l.startsWith('[') && !/^[-*]\s+\S+ .*→/u.test(l))
  );
}

function statsFor(fields: Record<string, FieldStats>, path: string): FieldStats {
  // Paths come from the keys of tool results: `constructor` must not find Object, nor `__proto__` set a prototype.
  let stats = ownValue(fields, path);
  if (!stats) {
    stats = { lost: 0, kept: 0, keptTokens: 0, lostValues: [], keptValues: [] };
    setOwn(fields, path, stats);
  }
  return stats;
}

function remember(list: string[], value: string): void {
  if (list.length < MAX_VALUES_PER_PATH && !list.includes(value)) list.push(value.slice(0, 200));
}

/**
 * Diffs one compressor call: every leaf of the input's JSON is kept when the output holds the same
 * value at the same generalized path (or, when the output holds no JSON at all, e.g. a summary an LLM
 * wrote as prose, when the value's text appears in it), else lost. Text lines outside JSON are kept
 * when the output contains them, and are counted under `line:<kind>`.
 *
 * @example
 * diffCompression('{"a":1,"b":"x"}', '{"a":1}').fields['b']; // { lost: 1, kept: 0, … }
 */
export function diffCompression(input: string, output: string): CompressionDiff {
  const fields: Record<string, FieldStats> = {};
  const inSplit = splitJson(input);
  const outSplit = splitJson(output);
  const inLeaves = inSplit.values.flatMap((v) => jsonLeaves(v));
  const outLeaves = outSplit.values.flatMap((v) => jsonLeaves(v));
  const outputText = output.toLowerCase();

  // Multisets of (path, value): two orders with the same status are two leaves, and keeping one is not keeping both.
  const available = new Map<string, number>();
  for (const leaf of outLeaves)
    available.set(`${leaf.path}\u0000${leaf.value}`, (available.get(`${leaf.path}\u0000${leaf.value}`) ?? 0) + 1);
  const structural = outLeaves.length > 0;
  for (const leaf of inLeaves) {
    const key = `${leaf.path}\u0000${leaf.value}`;
    const left = available.get(key) ?? 0;
    const kept = structural ? left > 0 : leaf.value.length >= 2 && outputText.includes(leaf.value);
    if (structural && kept) available.set(key, left - 1);
    const stats = statsFor(fields, leaf.path);
    if (kept) {
      stats.kept += 1;
      stats.keptTokens += leaf.tokens;
      remember(stats.keptValues, leaf.value);
    } else {
      stats.lost += 1;
      remember(stats.lostValues, leaf.value);
    }
  }

  const inputValues = new Set(inLeaves.map((l) => l.value));
  const inputText = input.toLowerCase();
  const invented = outLeaves.filter((l) => !inputValues.has(l.value) && !inputText.includes(l.value)).length;

  const outLines = output.toLowerCase();
  for (const line of contentLines(inSplit.rest)) {
    const stats = statsFor(fields, `line:${lineKind(line)}`);
    if (outLines.includes(line.toLowerCase())) {
      stats.kept += 1;
      stats.keptTokens += Math.ceil(line.length / 4);
    } else {
      stats.lost += 1;
    }
  }
  return { fields, invented };
}

/** Adds the stats of `from` into `into` (per path: counts summed, value lists merged). */
export function mergeFieldStats(into: Record<string, FieldStats>, from: Readonly<Record<string, FieldStats>>): void {
  for (const [path, source] of Object.entries(from)) {
    const target = statsFor(into, path);
    target.lost += source.lost;
    target.kept += source.kept;
    target.keptTokens += source.keptTokens;
    for (const value of source.lostValues) remember(target.lostValues, value);
    for (const value of source.keptValues) remember(target.keptValues, value);
  }
}

/**
 * The extractive rule that names the fields of a path: its last key with the keys above it up to and
 * including the nearest concrete one (`a.items.[].price` → `items.price`, `p.variants.*.available` →
 * `variants.*.available`), as `jsonKeepFields` and `jsonDropFields` match them (array indices
 * skipped, `*` any one key). Undefined for a path with no concrete key, or a text line kind.
 */
export function ruleForPath(path: string): string | undefined {
  if (path.startsWith('line:')) return undefined;
  const keys = path.split('.').filter((k) => k !== '[]' && k !== '');
  while (keys.length > 0 && keys[keys.length - 1] === '*') keys.pop();
  if (keys.length === 0) return undefined;
  const out = [keys[keys.length - 1] as string];
  for (let index = keys.length - 2; index >= 0; index -= 1) {
    const key = keys[index] as string;
    out.unshift(key);
    if (key !== '*') break;
  }
  // A rule starting with `*` would match under any key; the last key alone says the same more plainly.
  return out[0] === '*' ? out[out.length - 1] : out.join('.');
}

/** The ancestors of a path's rule, outermost last: `address.zip` → [`address`]. For collapsing drop rules. */
export function parentKeys(path: string): string[] {
  const keys = path.split('.').filter((k) => k !== '[]' && k !== '' && k !== '*');
  return keys.slice(0, -1).reverse();
}

/**
 * Whether an extractive field rule (`items.price`, `variants.*.available`, `address`) matches a path,
 * the way the extractive compressor matches it: its keys in a row anywhere in the path's keys, `*` any
 * one key, array indices skipped.
 */
export function ruleMatchesPath(rule: string, path: string): boolean {
  const spec = rule.split('.');
  const keys = path.split('.').filter((k) => k !== '[]' && k !== '');
  for (let start = 0; start + spec.length <= keys.length; start += 1) {
    if (spec.every((part, j) => part === '*' || part === keys[start + j])) return true;
  }
  return false;
}
