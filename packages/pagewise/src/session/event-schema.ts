/**
 * zod schemas of persisted session records, so stored JSON is validated when read back instead of
 * trusted blindly.
 */
import { z } from 'zod';
import type { JsonValue, SessionEvent } from './types.js';

const json: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(json), z.record(z.string(), json)]),
);

/** Schema of a state object or delta. */
export const stateSchema = z.record(z.string(), json);

const base = {
  id: z.string(),
  invocationId: z.string(),
  author: z.string(),
  timestamp: z.number(),
  delta: stateSchema.optional(),
  reads: z.record(z.string(), z.number().int().nonnegative()).optional(),
  increments: z.record(z.string(), z.number()).optional(),
  tokens: z.record(z.string(), z.number().int().nonnegative()).optional(),
};

const usage = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  providerPromptTokens: z.number().optional(),
  providerCompletionTokens: z.number().optional(),
});

/** Schema of a persisted event. */
export const eventSchema = z.discriminatedUnion('kind', [
  z.object({ ...base, kind: z.literal('user'), text: z.string() }),
  z.object({
    ...base,
    kind: z.literal('model'),
    text: z.string(),
    toolCalls: z.array(z.object({ toolCallId: z.string(), toolName: z.string(), input: z.unknown() })),
    usage: usage.optional(),
    finishReason: z.string().optional(),
  }),
  z.object({
    ...base,
    kind: z.literal('tool-result'),
    toolCallId: z.string(),
    toolName: z.string(),
    output: z.string(),
    isError: z.boolean(),
    compression: z
      .object({ guideline: z.string(), backend: z.string(), originalTokens: z.number().int().nonnegative() })
      .optional(),
  }),
  z.object({ ...base, kind: z.literal('transfer'), from: z.string(), to: z.string() }),
  z.object({ ...base, kind: z.literal('escalate'), reason: z.string() }),
  z.object({
    ...base,
    kind: z.literal('compaction'),
    fromEventId: z.string(),
    toEventId: z.string(),
    summary: z.string(),
    guideline: z.string().optional(),
  }),
  z.object({
    ...base,
    kind: z.literal('error'),
    scope: z.enum(['run', 'compression']),
    code: z.string(),
    message: z.string(),
    fault: z.string().optional(),
  }),
]);

/**
 * Parses and validates a stored event; throws a zod error naming the bad field.
 *
 * Loading a session validates every one of its events, so this is on the path of every invocation. A
 * direct check of the shapes the schema accepts answers most records; anything it does not accept
 * exactly (a bad field, an unknown key zod would strip) goes to the zod schema, which decides and
 * produces the error. The direct check only ever says yes to what zod would return unchanged
 * (property-tested in event-schema.test.ts).
 */
export function parseStoredEvent(text: string): SessionEvent {
  return storedEventOf(JSON.parse(text));
}

/** Validates an event already parsed from its stored form, as {@link parseStoredEvent} does. */
export function storedEventOf(value: unknown): SessionEvent {
  return isExactStoredEvent(value) ? value : (eventSchema.parse(value) as SessionEvent);
}

/** Keys each event kind may hold beyond the base ones, with their checks. */
const KIND_FIELDS: Record<string, Record<string, (v: unknown) => boolean>> = {
  user: { text: isString },
  model: { text: isString, toolCalls: isToolCalls, usage: isUsage, finishReason: isString },
  'tool-result': {
    toolCallId: isString,
    toolName: isString,
    output: isString,
    isError: isBoolean,
    compression: isObservationCompression,
  },
  transfer: { from: isString, to: isString },
  escalate: { reason: isString },
  compaction: { fromEventId: isString, toEventId: isString, summary: isString, guideline: isString },
  error: { scope: (v) => v === 'run' || v === 'compression', code: isString, message: isString, fault: isString },
};
/** Keys that may be absent, per kind (the base ones for every kind). */
const OPTIONAL = new Set([
  'delta',
  'reads',
  'increments',
  'tokens',
  'usage',
  'finishReason',
  'guideline',
  'fault',
  'compression',
]);
const BASE_FIELDS: Record<string, (v: unknown) => boolean> = {
  kind: isString,
  id: isString,
  invocationId: isString,
  author: isString,
  timestamp: isNumber,
  delta: (v) => isRecordOf(v, isJsonValue),
  reads: (v) => isRecordOf(v, (n) => Number.isSafeInteger(n) && (n as number) >= 0),
  increments: (v) => isRecordOf(v, isNumber),
  tokens: (v) => isRecordOf(v, (n) => Number.isSafeInteger(n) && (n as number) >= 0),
};

/** True when `value` is an event the schema accepts and would return unchanged (no key to strip). */
function isExactStoredEvent(value: unknown): value is SessionEvent {
  if (!isPlainObject(value)) return false;
  const fields = KIND_FIELDS[value.kind as string];
  if (!fields || !Object.hasOwn(KIND_FIELDS, value.kind as string)) return false;
  for (const key in value) {
    const check = Object.hasOwn(BASE_FIELDS, key)
      ? BASE_FIELDS[key]
      : Object.hasOwn(fields, key)
        ? fields[key]
        : undefined;
    if (!check?.(value[key])) return false;
  }
  for (const key of [...Object.keys(BASE_FIELDS), ...Object.keys(fields)]) {
    if (!OPTIONAL.has(key) && !Object.hasOwn(value, key)) return false;
  }
  return true;
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}
function isBoolean(value: unknown): boolean {
  return typeof value === 'boolean';
}
function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
function isRecordOf(value: unknown, check: (x: unknown) => boolean): boolean {
  if (!isPlainObject(value)) return false;
  for (const key in value) if (!Object.hasOwn(value, key) || !check(value[key])) return false;
  return true;
}
function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 64) return false; // Deeper values go to zod, which decides.
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((x) => isJsonValue(x, depth + 1));
  return isRecordOf(value, (x) => isJsonValue(x, depth + 1));
}
function isToolCalls(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.every(
      (call) =>
        isPlainObject(call) &&
        Object.keys(call).length === 3 &&
        isString(call.toolCallId) &&
        isString(call.toolName) &&
        Object.hasOwn(call, 'input') &&
        call.input !== undefined,
    )
  );
}
function isUsage(value: unknown): boolean {
  if (!isPlainObject(value) || !isNumber(value.promptTokens) || !isNumber(value.completionTokens)) return false;
  for (const key in value) {
    if (key === 'promptTokens' || key === 'completionTokens') continue;
    if ((key !== 'providerPromptTokens' && key !== 'providerCompletionTokens') || !isNumber(value[key])) return false;
  }
  return true;
}

function isObservationCompression(value: unknown): boolean {
  if (!isPlainObject(value) || !isString(value.guideline) || !isString(value.backend)) return false;
  if (!Number.isSafeInteger(value.originalTokens) || (value.originalTokens as number) < 0) return false;
  return Object.keys(value).length === 3;
}

// Parsed state is returned as JSON.parse made it once the direct check accepts it: zod's records leave out
// a key named `__proto__`, which a state key or a value inside one may be.

/** Parses and validates a stored state object; a bad one goes to zod, which produces the error. */
export function parseStoredState(text: string): Record<string, JsonValue> {
  const value: unknown = JSON.parse(text);
  return isRecordOf(value, (v) => isJsonValue(v)) ? (value as Record<string, JsonValue>) : stateSchema.parse(value);
}

/** Parses and validates one stored state value (a `user:`/`app:` row), as {@link parseStoredState} does. */
export function parseStoredValue(text: string): JsonValue {
  const value: unknown = JSON.parse(text);
  return isJsonValue(value) ? (value as JsonValue) : json.parse(value);
}
