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
]);

/** Parses and validates a stored event; throws a zod error naming the bad field. */
export function parseStoredEvent(text: string): SessionEvent {
  return eventSchema.parse(JSON.parse(text)) as SessionEvent;
}

/** Parses and validates a stored state object. */
export function parseStoredState(text: string): Record<string, JsonValue> {
  return stateSchema.parse(JSON.parse(text));
}

/** Parses and validates one stored state value (a `user:`/`app:` row). */
export function parseStoredValue(text: string): JsonValue {
  return json.parse(JSON.parse(text));
}
