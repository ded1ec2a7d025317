/**
 * What the trace readers share: schema checks that name the failing field, and the conversions of tool
 * arguments and outputs into the text and values the context processors see.
 */
import type { z } from 'zod';
import { TraceFormatError } from '../errors.js';

/** A path as a reader writes it: `messages[3].tool_calls[0].function.arguments`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const step of path) {
    if (typeof step === 'number') out += `[${step}]`;
    else out += out === '' ? String(step) : `.${String(step)}`;
  }
  return out;
}

/**
 * Parses `value` with `schema`, or throws a {@link TraceFormatError} at `location` naming the first
 * failing field (under `prefix`) and what was expected there.
 */
export function parseAt<T extends z.ZodType>(schema: T, value: unknown, location: string, prefix = ''): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = fieldPath([...(prefix ? [prefix] : []), ...(issue?.path ?? [])]);
  throw new TraceFormatError(location, `${path || 'the record'}: ${issue?.message ?? 'invalid'}`);
}

/**
 * Tool arguments as a tool call record holds them: parsed JSON when the text is JSON, else the text. A model
 * that wrote arguments that do not parse made that call all the same, so the call is replayed with its text
 * (its values still count as text) and `onInvalid` hears why, for the reader's warning.
 */
export function parseArguments(text: string, onInvalid?: (reason: string) => void): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  try {
    return JSON.parse(trimmed) as unknown;
  } catch (error) {
    onInvalid?.(`not valid JSON (${(error as Error).message}); the call is replayed with its arguments as text`);
    return text;
  }
}

/** The warning of a tool call whose arguments did not parse: where, which call, and why. */
export function argumentsWarning(source: string, field: string, call: string, reason: string): string {
  return `${source}: ${field} (call ${call}): ${reason}`;
}

/** A tool output or message content as the text the model read: strings as they are, text parts joined, JSON otherwise. */
export function contentText(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === 'string') return part;
        if (typeof part === 'object' && part !== null) {
          const record = part as Record<string, unknown>;
          for (const key of ['text', 'content', 'value'] as const)
            if (typeof record[key] === 'string') return record[key];
        }
        return JSON.stringify(part);
      })
      .join('\n');
  }
  if (typeof content === 'object') {
    const record = content as Record<string, unknown>;
    if (
      typeof record.text === 'string' &&
      Object.keys(record).every((k) => k === 'text' || k === 'type' || k === 'providerData')
    )
      return record.text;
  }
  return JSON.stringify(content);
}
