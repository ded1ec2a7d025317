/**
 * JSON read and written back without changing a value: numbers keep their source text (`-2580.0` stays
 * `-2580.0`, a 20-digit id keeps every digit), which `JSON.parse` followed by `JSON.stringify` does not
 * guarantee. The compressor quotes values, so a value it shows must be the value the tool returned.
 */

/** A JSON number as written in the source. */
export class JsonNumber {
  constructor(
    /** The number's source text, e.g. `-2580.0` or `1e-7`. */
    readonly raw: string,
  ) {}

  /** The source text: a number is shown and matched as it was written. */
  toString(): string {
    return this.raw;
  }
}

/** A parsed JSON value: like `JSON.parse`'s, with numbers as {@link JsonNumber}. */
export type JsonSourceValue = null | boolean | string | JsonNumber | JsonSourceValue[] | JsonSourceObject;

/** A parsed JSON object (keys as `JSON.parse` orders them; a repeated key keeps its last value). */
export interface JsonSourceObject {
  [key: string]: JsonSourceValue;
}

const JSON_WHITESPACE = ' \t\n\r';

/** The first index at or after `at` that is not JSON's whitespace (space, tab, line feed, carriage return). */
export function skipJsonWhitespace(text: string, at: number): number {
  let end = at;
  while (end < text.length && JSON_WHITESPACE.includes(text[end]!)) end += 1;
  return end;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Parses `text` as JSON, numbers kept as written. Returns undefined when it is not one well-formed
 * JSON value (the caller then treats it as text).
 */
export function parseJsonSource(text: string): JsonSourceValue | undefined {
  // JSON.parse validates faster than this reader: a malformed input is rejected before the walk.
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  let at = 0;
  const skip = (): void => {
    at = skipJsonWhitespace(text, at);
  };
  const string = (): string => {
    const start = at;
    at += 1;
    while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at += 1;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (): JsonSourceValue => {
    skip();
    const ch = text[at];
    if (ch === '{') {
      at += 1;
      const out: JsonSourceObject = {};
      skip();
      if (text[at] === '}') {
        at += 1;
        return out;
      }
      for (;;) {
        skip();
        const key = string();
        skip();
        at += 1; // ':'
        // Defined, not assigned: a `__proto__` key is data, as JSON.parse reads it.
        Object.defineProperty(out, key, { value: value(), enumerable: true, writable: true, configurable: true });
        skip();
        if (text[at++] === '}') return out;
      }
    }
    if (ch === '[') {
      at += 1;
      const out: JsonSourceValue[] = [];
      skip();
      if (text[at] === ']') {
        at += 1;
        return out;
      }
      for (;;) {
        out.push(value());
        skip();
        if (text[at++] === ']') return out;
      }
    }
    if (ch === '"') return string();
    if (text.startsWith('true', at)) {
      at += 4;
      return true;
    }
    if (text.startsWith('false', at)) {
      at += 5;
      return false;
    }
    if (text.startsWith('null', at)) {
      at += 4;
      return null;
    }
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text);
    at = NUMBER.lastIndex;
    return new JsonNumber(match?.[0] ?? '0');
  };
  return value();
}

/** Compact JSON of a parsed value, numbers written as they were read. */
export function stringifyJsonSource(value: unknown): string {
  if (value instanceof JsonNumber) return value.raw;
  if (Array.isArray(value)) return `[${value.map(stringifyJsonSource).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${stringifyJsonSource(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Whether a parsed value is a scalar (a number, string, boolean or null). */
export function isJsonScalar(value: unknown): boolean {
  return value instanceof JsonNumber || typeof value !== 'object' || value === null;
}
