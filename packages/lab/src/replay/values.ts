/**
 * Used-later values: the atomic values of each observation (JSON leaves; in text, ids, codes, amounts,
 * dates, e-mails and capitalized names) that the model later wrote into a tool-call argument or a reply,
 * having not had them from the user (or written them itself) before. These are what a compressor must
 * not lose: the trace shows the model needed them.
 */
import type { ContextItem } from 'pagewise/context';
import { containsWord, jsonLeaves } from '../optimize/field-diff.js';
import { canonicalValue } from '../util/canonical-value.js';
import { scanJson } from 'pagewise/internal';

/** One atomic value of an observation. */
export interface ObservedValue {
  /** As written in the observation (a JSON number as JSON writes it). */
  raw: string;
  /** Lower case, for matching. */
  key: string;
  /** The generalized JSON path (`accounts[].account_id`), or `text:<kind>` outside JSON. */
  field: string;
}

/** A value of an observation that the model used at a later model call. */
export interface ValueUse {
  value: ObservedValue;
  /** Index in the trace's items of the tool result the value came from (its first occurrence). */
  observationIndex: number;
  toolName: string;
  toolCallId: string;
  /** Index in the trace's items of the assistant item (model call) that wrote it. */
  useIndex: number;
  /** Where it was written: `call <tool>` or `reply`. */
  usedIn: string;
}

// Text values by kind, outside JSON. Ids and codes hold a digit and a letter or are long digit runs.
const TEXT_PATTERNS: readonly { kind: string; pattern: RegExp }[] = [
  { kind: 'email', pattern: /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/gu },
  { kind: 'date', pattern: /\b(?:\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?|\d{1,2}\/\d{1,2}\/\d{2,4})\b/gu },
  { kind: 'amount', pattern: /[$€£]\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*\.\d+\b/gu },
  { kind: 'id', pattern: /#?\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z_])[\w-]{4,}\b|\b\d{4,}\b/gu },
  { kind: 'name', pattern: /\b[A-Z][a-z]+(?:[ -](?:[A-Z][\w+-]*|\d+))+\b/gu },
];

// Scalars shorter than this, or small integers, match too much by chance to be evidence of use.
const MIN_VALUE_LENGTH = 3;
const MAX_VALUE_LENGTH = 120;

function admissible(raw: string): boolean {
  const trimmed = raw.trim();
  if (trimmed.length < MIN_VALUE_LENGTH || trimmed.length > MAX_VALUE_LENGTH || trimmed.includes('\n')) return false;
  if (/^-?\d+$/u.test(trimmed) && Math.abs(Number(trimmed)) < 100) return false;
  return !/^(?:true|false|null)$/iu.test(trimmed);
}

function leafRaw(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Every JSON scalar of `value` with its generalized path, in order. */
function scalarLeaves(value: unknown): { path: string; raw: string }[] {
  const paths = jsonLeaves(value).map((leaf) => leaf.path);
  const raws: (string | undefined)[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node) && node.length > 0) node.forEach(walk);
    else if (typeof node === 'object' && node !== null && Object.keys(node).length > 0)
      Object.values(node).forEach(walk);
    else raws.push(leafRaw(node));
  };
  walk(value);
  const out: { path: string; raw: string }[] = [];
  raws.forEach((raw, index) => {
    if (raw !== undefined) out.push({ path: paths[index] ?? '', raw });
  });
  return out;
}

/** The atomic values of an observation's text, each distinct value once (its first field). */
export function observedValues(text: string): ObservedValue[] {
  const seen = new Map<string, ObservedValue>();
  const add = (raw: string, field: string): void => {
    const trimmed = raw.trim();
    if (!admissible(trimmed)) return;
    const key = trimmed.toLowerCase();
    if (!seen.has(key)) seen.set(key, { raw: trimmed, key, field });
  };
  const { values, rest } = scanJson(text);
  for (const value of values)
    for (const leaf of scalarLeaves(value)) {
      add(leaf.raw, leaf.path || '(value)');
      // A long string leaf (a description) also carries values of its own.
      if (leaf.raw.length > 40)
        for (const { kind, pattern } of TEXT_PATTERNS)
          for (const match of leaf.raw.matchAll(pattern)) add(match[0], `${leaf.path}:${kind}`);
    }
  for (const { kind, pattern } of TEXT_PATTERNS)
    for (const match of rest.matchAll(pattern)) add(match[0], `text:${kind}`);
  return [...seen.values()];
}

/** Lower-case `raw` forms a value may be written in: as it is, and a number with or without trailing zeros. */
function forms(value: ObservedValue): string[] {
  const out = [value.key];
  const bare = value.key.replace(/^[#$€£]\s?/u, '').replace(/,/gu, '');
  if (bare !== value.key && bare.length >= MIN_VALUE_LENGTH) out.push(bare);
  if (/^-?\d+(?:\.\d+)?$/u.test(bare)) {
    const number = Number(bare);
    for (const form of [String(number), number.toFixed(1), number.toFixed(2)]) if (!out.includes(form)) out.push(form);
  }
  return out;
}

/** Whether lower-case `text` holds `value` as a whole word, in any of its written forms. */
export function holdsValue(text: string, value: ObservedValue): boolean {
  return forms(value).some((f) => containsWord(text, f));
}

/** The scalars a tool call wrote, its arguments' JSON strings parsed too (APIs that take arguments as text). */
function argumentScalars(input: unknown, into: string[] = []): string[] {
  if (typeof input === 'string') {
    const trimmed = input.trim();
    if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && trimmed.length > 1) {
      try {
        return argumentScalars(JSON.parse(trimmed) as unknown, into);
      } catch {
        // Not JSON: the text itself.
      }
    }
    into.push(input);
  } else if (Array.isArray(input)) input.forEach((v) => argumentScalars(v, into));
  else if (typeof input === 'object' && input !== null) Object.values(input).forEach((v) => argumentScalars(v, into));
  else if (typeof input === 'number' || typeof input === 'boolean') into.push(String(input));
  return into;
}

/** An argument scalar as {@link argumentUses} compares it: lower case, and its canonical form. */
interface ArgumentScalar {
  text: string;
  canonical: string;
}

function argumentScalar(scalar: string): ArgumentScalar {
  const text = scalar.trim().toLowerCase();
  return { text, canonical: canonicalValue(text) };
}

/** A value seen so far, with what matching it needs computed once. */
interface Origin {
  value: ObservedValue;
  index: number;
  toolName: string;
  toolCallId: string;
  forms: readonly string[];
  canonical: string;
  /** How much of the known text is known not to hold the value. */
  checked: number;
}

/** Whether an argument scalar is, or holds, the value. */
function argumentUses(scalar: ArgumentScalar, from: Origin): boolean {
  if (scalar.canonical === from.canonical) return true;
  return scalar.text.length > from.value.key.length && from.forms.some((f) => containsWord(scalar.text, f));
}

/**
 * The used-later values of a trace's items, in order of use. A value is attributed to the first tool
 * result that held it; it is not counted when a user message held it before that result or before the
 * use (the model had it from the user).
 */
export function usedLaterValues(items: readonly ContextItem[]): ValueUse[] {
  const uses: ValueUse[] = [];
  // Values seen so far, by key: where they first came from.
  const origin = new Map<string, Origin>();
  // Lower-case texts the user (and the model) wrote so far, each after a line break.
  let knownText = '';
  // Whether the known text holds a value. A match cannot span the line break before an added text (no value
  // holds one), so only the text added since the last check is searched.
  const known = (from: Origin): boolean => {
    const added = knownText.slice(from.checked);
    from.checked = knownText.length;
    return from.forms.some((f) => containsWord(added, f));
  };
  items.forEach((item, index) => {
    if (item.type === 'user' || item.type === 'summary') {
      knownText += `\n${item.text.toLowerCase()}`;
      return;
    }
    if (item.type === 'tool-result') {
      if (item.isError) return;
      for (const value of observedValues(item.output)) {
        if (origin.has(value.key)) continue;
        const from = {
          value,
          index,
          toolName: item.toolName,
          toolCallId: item.toolCallId,
          forms: forms(value),
          canonical: canonicalValue(value.key),
          checked: 0,
        };
        if (!known(from)) origin.set(value.key, from);
      }
      return;
    }
    const reply = item.text.toLowerCase();
    const calls = item.toolCalls.map((call) => ({
      tool: call.toolName,
      scalars: argumentScalars(call.input).map(argumentScalar),
    }));
    for (const [key, from] of origin) {
      if (known(from)) {
        origin.delete(key);
        continue;
      }
      let usedIn: string | undefined;
      for (const call of calls)
        if (call.scalars.some((s) => argumentUses(s, from))) {
          usedIn = `call ${call.tool}`;
          break;
        }
      if (!usedIn && from.forms.some((f) => containsWord(reply, f))) usedIn = 'reply';
      if (usedIn)
        uses.push({
          value: from.value,
          observationIndex: from.index,
          toolName: from.toolName,
          toolCallId: from.toolCallId,
          useIndex: index,
          usedIn,
        });
    }
  });
  return uses;
}
