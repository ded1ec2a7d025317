/**
 * Frozen events: what a store keeps and shares between the sessions it loads, so loading a session
 * copies no event and nothing a caller does to a loaded session reaches another.
 */
import { setOwn } from '../util/own-field.js';

/** Freezes a JSON value and everything in it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Nesting below which {@link frozenCopy} copies by itself; deeper values (or cycles) go to `structuredClone`. */
const MAX_COPY_DEPTH = 64;

/** Thrown inside {@link frozenCopy} when a value is not plain data it copies itself. */
const NOT_PLAIN = Symbol('not plain');

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function copyFrozen(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    // Functions and symbols are what structuredClone refuses: it decides (and throws) for them.
    if (typeof value === 'function' || typeof value === 'symbol') throw NOT_PLAIN;
    return value;
  }
  if (depth >= MAX_COPY_DEPTH) throw NOT_PLAIN;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) throw NOT_PLAIN;
    const out = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++)
      if (index in value) out[index] = copyFrozen(value[index], depth + 1);
    return Object.freeze(out);
  }
  if (!isPlainObject(value)) throw NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // An own `__proto__` key (JSON.parse makes one from model-written arguments) stays an own field.
    setOwn(out, key, copyFrozen((value as Record<string, unknown>)[key], depth + 1));
  }
  return Object.freeze(out);
}

/**
 * A deep copy of `value`, frozen: what `deepFreeze(structuredClone(value))` gives, in one pass. Plain
 * objects, arrays and primitives are copied here; a value holding anything else (a Date, a Map, a
 * function, a cycle, nesting deeper than {@link MAX_COPY_DEPTH}) is copied by `structuredClone` as a
 * whole, so such values are copied, or refused, exactly as before.
 */
export function frozenCopy<T>(value: T): T {
  try {
    return copyFrozen(value, 0) as T;
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    return deepFreeze(structuredClone(value));
  }
}
