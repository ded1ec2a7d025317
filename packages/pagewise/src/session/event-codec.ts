/**
 * The compact stored form of an event: a JSON array with the fields in a fixed order per kind instead
 * of an object repeating every key name, tool calls as `[id, name, input]`, UUIDs in 22 base64url
 * characters, a model call's usage as an array of its counts and a known finish reason as its number.
 * A kind's text (a result's output, a message) that JSON would escape is written after the array and a
 * newline, as it is, with `0` in its place. Stores write this form, so a row costs about what the event
 * records; an event that does not fit the layout (an unknown kind or key) is stored as its JSON object,
 * which is also how rows written before this form read. Rows of the earlier compact form (usage as an
 * object, the finish reason and every text as JSON strings) read as before: each field says which
 * form it is in. Decoding validates like any stored record.
 */
import { parseStoredEvent, storedEventOf } from './event-schema.js';
import type { SessionEvent } from './types.js';

/** The fields of each kind after the common ones, in stored order. */
const KIND_LAYOUT: Record<string, { code: string; fields: readonly string[] }> = {
  user: { code: 'u', fields: ['text'] },
  model: { code: 'm', fields: ['text', 'toolCalls', 'usage', 'finishReason'] },
  'tool-result': { code: 'r', fields: ['toolCallId', 'toolName', 'output', 'isError'] },
  transfer: { code: 't', fields: ['from', 'to'] },
  escalate: { code: 'e', fields: ['reason'] },
  compaction: { code: 'c', fields: ['fromEventId', 'toEventId', 'summary', 'guideline'] },
  error: { code: 'x', fields: ['scope', 'code', 'message', 'fault'] },
};
const KIND_OF_CODE = new Map(Object.entries(KIND_LAYOUT).map(([kind, l]) => [l.code, kind]));
/**
 * The field of each kind that may be written after the array, as it is: the long free text, whose quotes
 * and line breaks JSON would escape.
 */
const RAW_FIELD: Record<string, string> = {
  user: 'text',
  model: 'text',
  'tool-result': 'output',
  escalate: 'reason',
  compaction: 'summary',
  error: 'message',
};
/** A model call's usage counts, in the order of the stored array (absent counts as null, trailing ones dropped). */
const USAGE_KEYS = ['promptTokens', 'completionTokens', 'providerPromptTokens', 'providerCompletionTokens'] as const;
/** The finish reasons the AI SDK reports, stored as their index; any other reason stays a string. */
const FINISH_REASONS = ['stop', 'tool-calls', 'length', 'content-filter', 'error', 'other'] as const;
/** Common fields, in stored order, after the kind code; then the kind's fields, then {@link TRAILING}. */
const COMMON = ['id', 'invocationId', 'author', 'timestamp', 'tokens'] as const;
/** How many of {@link COMMON} are the {@link EventIdentity}: the first ones. */
const IDENTITY_FIELDS = 4;
/** Common fields most events lack: last, so their empty slots are dropped from the end of the row. */
const TRAILING = ['delta', 'reads', 'increments'] as const;
/** Per kind, every key an event of it may have to fit the layout. */
const KNOWN_KEYS = new Map(
  Object.entries(KIND_LAYOUT).map(([kind, layout]) => [
    kind,
    new Set<string>(['kind', ...COMMON, ...layout.fields, ...TRAILING]),
  ]),
);

/** The value of each lowercase hex digit by character code; -1 for any other character. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) HEX_VALUE['0123456789abcdef'.charCodeAt(digit)] = digit;
const BASE64URL = Uint8Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', (character) =>
  character.charCodeAt(0),
);
/** Scratch space of {@link packUuid}: the 16 bytes, and the character codes of `~` and 22 base64url digits. */
const uuidBytes = new Uint8Array(16);
const packedCodes: number[] = new Array<number>(23).fill(0);
packedCodes[0] = 0x7e;

/**
 * `~` and the 16 bytes of a lowercase UUID in base64url (unpadded), or undefined when `id` is not one.
 * Written out by hand: it runs for several ids of every stored event, and the regular expression, hex
 * buffer and base64 conversion it replaces cost several times more.
 */
function packUuid(id: string): string | undefined {
  if (id.length !== 36) return undefined;
  let written = 0;
  for (let position = 0; position < 36; position++) {
    if (position === 8 || position === 13 || position === 18 || position === 23) {
      if (id.charCodeAt(position) !== 0x2d) return undefined;
      continue;
    }
    const hi = HEX_VALUE[id.charCodeAt(position)] ?? -1;
    const lo = HEX_VALUE[id.charCodeAt(++position)] ?? -1;
    if (hi < 0 || lo < 0) return undefined;
    uuidBytes[written++] = (hi << 4) | lo;
  }
  let codeIndex = 1;
  for (let byteIndex = 0; byteIndex < 15; byteIndex += 3) {
    const group = (uuidBytes[byteIndex]! << 16) | (uuidBytes[byteIndex + 1]! << 8) | uuidBytes[byteIndex + 2]!;
    packedCodes[codeIndex++] = BASE64URL[group >> 18]!;
    packedCodes[codeIndex++] = BASE64URL[(group >> 12) & 63]!;
    packedCodes[codeIndex++] = BASE64URL[(group >> 6) & 63]!;
    packedCodes[codeIndex++] = BASE64URL[group & 63]!;
  }
  packedCodes[21] = BASE64URL[uuidBytes[15]! >> 2]!;
  packedCodes[22] = BASE64URL[(uuidBytes[15]! & 3) << 4]!;
  return String.fromCharCode(...packedCodes);
}

/** The 16 bytes of a lowercase UUID, or undefined when `id` is not one (an id stored as it is). */
export function uuidToBytes(id: string): Buffer | undefined {
  return packUuid(id) === undefined ? undefined : Buffer.from(uuidBytes);
}

/** The lowercase UUID of 16 bytes that {@link uuidToBytes} gave. */
export function uuidFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new TypeError(`A stored UUID has ${bytes.length} bytes, not 16.`);
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A lowercase UUID in 22 base64url characters after `~`; a string that starts with `~` gets one more. */
function packId(id: unknown): unknown {
  if (typeof id !== 'string') return id;
  if (id.startsWith('~')) return `~${id}`;
  return packUuid(id) ?? id;
}

/**
 * The last invocation id packed and its packed form: an invocation stores many events, all with the
 * same invocation id, so it is packed once.
 */
let lastInvocation: { id: unknown; packed: unknown } = { id: undefined, packed: undefined };

function packInvocationId(id: unknown): unknown {
  if (id !== lastInvocation.id) lastInvocation = { id, packed: packId(id) };
  return lastInvocation.packed;
}

/** How an event id is written in a stored body: packed when it is a UUID, else as it is (a JSON string). */
export function storedEventId(id: string): string {
  return packId(id) as string;
}

function unpackId(value: unknown): unknown {
  if (typeof value !== 'string' || !value.startsWith('~')) return value;
  if (value.startsWith('~~')) return value.slice(1);
  const hex = Buffer.from(value.slice(1), 'base64url').toString('hex');
  if (hex.length !== 32) throw new TypeError(`"${value}" is not a packed id.`);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Whether every tool call is exactly `{ toolCallId, toolName, input }`, so it packs into a triple. */
function packableCalls(calls: unknown): calls is { toolCallId: string; toolName: string; input: unknown }[] {
  if (!Array.isArray(calls)) return false;
  for (const call of calls) {
    if (typeof call !== 'object' || call === null) return false;
    const keys = Object.keys(call);
    if (keys.length !== 3 || !('toolCallId' in call) || !('toolName' in call) || !('input' in call)) return false;
    if (typeof call.toolCallId !== 'string' || (call as { input: unknown }).input === undefined) return false;
  }
  return true;
}

/** Whether usage is made of the known counts only, so it packs into an array. */
function packableUsage(usage: unknown): usage is Record<(typeof USAGE_KEYS)[number], number | undefined> {
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) return false;
  for (const [key, value] of Object.entries(usage))
    if (!(USAGE_KEYS as readonly string[]).includes(key) || typeof value !== 'number') return false;
  return true;
}

/**
 * Whether `text` is better written raw after the array: JSON would escape some of it, and the raw text
 * reads back the same from a UTF-8 column of either database (no NUL, which PostgreSQL's text refuses;
 * no unpaired surrogate, which UTF-8 cannot hold).
 */
function writesRaw(text: string): boolean {
  let escaped = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0) return false;
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(index + 1);
      if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return false;
      index++;
    } else if (code < 0x20 || code === 0x22 || code === 0x5c) escaped = true;
  }
  return escaped;
}

/** The compact stored text of `event` (its JSON object when it does not fit the layout). */
export function encodeEvent(event: SessionEvent): string {
  return encode(event, false)!;
}

/**
 * The fields that identify an event and are the same shape for every kind: a store that keeps them in
 * columns of their own (SQLite, schema 8) stores the rest with {@link encodeEventBody}.
 */
export interface EventIdentity {
  id: string;
  invocationId: string;
  author: string;
  timestamp: number;
}

/**
 * The compact stored text of `event` without its {@link EventIdentity}, which the caller stores beside it
 * and passes to {@link decodeEvent} to read it back; undefined when the event does not fit the compact
 * layout (store {@link encodeEvent}'s JSON object, identity included, instead).
 */
export function encodeEventBody(event: SessionEvent): string | undefined {
  return encode(event, true);
}

function encode(event: SessionEvent, withoutIdentity: boolean): string | undefined {
  const layout = KIND_LAYOUT[event.kind];
  const record = event as unknown as Record<string, unknown>;
  const known = KNOWN_KEYS.get(event.kind);
  let fits = layout !== undefined;
  for (const key of Object.keys(record)) {
    // null never appears in a valid event's own fields: the compact form uses it for "absent".
    if (!known?.has(key) || record[key] === null) fits = false;
  }
  if (event.kind === 'model' && !packableCalls(event.toolCalls)) fits = false;
  if (!fits || !layout) return withoutIdentity ? undefined : JSON.stringify(event);
  const out: unknown[] = [layout.code];
  for (const key of COMMON) out.push(record[key] ?? null);
  out[1] = packId(event.id);
  out[2] = packInvocationId(event.invocationId);
  // The runner's counts are one encoding's: a bare number stands for { o200k_base: n }.
  const tokens = event.tokens;
  if (tokens && Object.keys(tokens).length === 1 && typeof tokens.o200k_base === 'number') out[5] = tokens.o200k_base;
  for (const key of layout.fields) out.push(record[key] ?? null);
  for (const key of TRAILING) out.push(record[key] ?? null);
  if (event.kind === 'model') {
    const at = 1 + COMMON.length + layout.fields.indexOf('toolCalls');
    out[at] = event.toolCalls.map((c) => [packId(c.toolCallId), c.toolName, c.input]);
  }
  if (event.kind === 'model') {
    const at = 1 + COMMON.length + layout.fields.indexOf('usage');
    if (packableUsage(event.usage)) {
      const counts: (number | null)[] = USAGE_KEYS.map((key) => event.usage?.[key] ?? null);
      while (counts[counts.length - 1] === null) counts.pop();
      out[at] = counts;
    }
    const reason = FINISH_REASONS.indexOf(event.finishReason as (typeof FINISH_REASONS)[number]);
    if (reason >= 0) out[at + 1] = reason;
  }
  if (event.kind === 'tool-result') {
    out[1 + COMMON.length] = packId(event.toolCallId);
    if (typeof event.isError === 'boolean') out[1 + COMMON.length + 3] = event.isError ? 1 : 0;
  }
  const rawField = RAW_FIELD[event.kind];
  const raw = rawField === undefined ? undefined : record[rawField];
  const rawAfter = typeof raw === 'string' && writesRaw(raw);
  if (rawAfter) out[1 + COMMON.length + layout.fields.indexOf(rawField!)] = 0;
  if (withoutIdentity) out.splice(1, IDENTITY_FIELDS);
  while (out[out.length - 1] === null) out.pop();
  // JSON.stringify writes no line break of its own, so the first one ends the array.
  return rawAfter ? `${JSON.stringify(out)}\n${raw}` : JSON.stringify(out);
}

/**
 * Reads a stored event in either form, validated; throws naming what is wrong. With `identity`, `text` is a
 * body {@link encodeEventBody} wrote, and the event's identity is that.
 */
export function decodeEvent(text: string, identity?: EventIdentity): SessionEvent {
  if (!text.startsWith('[')) {
    if (identity) throw new TypeError('An event body stored beside its identity is not a compact row.');
    return parseStoredEvent(text);
  }
  const end = text.indexOf('\n');
  const row: unknown = JSON.parse(end < 0 ? text : text.slice(0, end));
  if (!Array.isArray(row)) throw new TypeError('A compact event row is not an array.');
  // The identity's slots, filled below once the ids of the row itself are unpacked.
  if (identity) row.splice(1, 0, null, null, null, null);
  const kind = KIND_OF_CODE.get(row[0] as string);
  if (kind === undefined) throw new TypeError(`Unknown event kind code ${JSON.stringify(row[0])}.`);
  const layout = KIND_LAYOUT[kind]!;
  if (row.length > 1 + COMMON.length + layout.fields.length + TRAILING.length)
    throw new TypeError(`A compact ${kind} event row has ${row.length} fields, more than its layout.`);
  const event: Record<string, unknown> = { kind };
  const keys = [...COMMON, ...layout.fields, ...TRAILING];
  keys.forEach((key, index) => {
    const value = row[index + 1];
    if (value !== null && value !== undefined) event[key] = value;
  });
  if (typeof event.tokens === 'number') event.tokens = { o200k_base: event.tokens };
  const rawField = RAW_FIELD[kind];
  if (end >= 0) {
    if (rawField === undefined || event[rawField] !== 0)
      throw new TypeError(`A compact ${kind} event row has text after its array but no place for it.`);
    event[rawField] = text.slice(end + 1);
  }
  if (identity) Object.assign(event, identity);
  else {
    event.id = unpackId(event.id);
    event.invocationId = unpackId(event.invocationId);
  }
  if (kind === 'model' && Array.isArray(event.toolCalls))
    event.toolCalls = event.toolCalls.map((call: unknown) =>
      Array.isArray(call) && call.length === 3
        ? { toolCallId: unpackId(call[0]), toolName: call[1], input: call[2] }
        : call,
    );
  if (kind === 'model') {
    if (Array.isArray(event.usage))
      event.usage = Object.fromEntries(
        USAGE_KEYS.flatMap((key, index) => {
          const count: unknown = (event.usage as unknown[])[index];
          return count === null || count === undefined ? [] : [[key, count]];
        }),
      );
    if (typeof event.finishReason === 'number') {
      const reason = FINISH_REASONS[event.finishReason];
      if (reason === undefined) throw new TypeError(`Unknown finish reason code ${event.finishReason}.`);
      event.finishReason = reason;
    }
  }
  if (kind === 'tool-result') {
    event.toolCallId = unpackId(event.toolCallId);
    if (event.isError === 1 || event.isError === 0) event.isError = event.isError === 1;
  }
  return storedEventOf(event);
}
