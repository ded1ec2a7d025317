/**
 * State scopes. A key's prefix picks who shares it: `temp:` this invocation only (never persisted),
 * `user:` every session of the user, `app:` every session of the app, and no prefix the session alone.
 */
import type { JsonValue, StateDelta } from './types.js';
import { setOwn } from '../util/own-field.js';

/** Prefix of keys that live for one invocation and are never persisted. */
export const TEMP_PREFIX = 'temp:';
/** Prefix of keys shared by all sessions of a user. */
export const USER_PREFIX = 'user:';
/** Prefix of keys shared by all sessions of an app. */
export const APP_PREFIX = 'app:';

/** The scope of a state key. */
export type StateScope = 'temp' | 'user' | 'app' | 'session';

/** Returns the scope a key belongs to, from its prefix. */
export function scopeOf(key: string): StateScope {
  if (key.startsWith(TEMP_PREFIX)) return 'temp';
  if (key.startsWith(USER_PREFIX)) return 'user';
  if (key.startsWith(APP_PREFIX)) return 'app';
  return 'session';
}

/** A delta split by scope, `temp:` keys removed (they are never persisted). */
export interface ScopedDelta {
  session: StateDelta;
  user: StateDelta;
  app: StateDelta;
}

/** Splits a delta by scope and drops `temp:` keys; user and app keys keep their prefix. */
export function splitDelta(delta: StateDelta | undefined): ScopedDelta {
  const out: ScopedDelta = { session: {}, user: {}, app: {} };
  if (!delta) return out;
  for (const [key, value] of Object.entries(delta)) {
    const scope = scopeOf(key);
    if (scope !== 'temp') setOwn(out[scope], key, value);
  }
  return out;
}

/** Returns the delta without its `temp:` keys, or undefined if nothing is left. */
export function persistableDelta(delta: StateDelta | undefined): StateDelta | undefined {
  if (!delta) return undefined;
  let out: StateDelta | undefined;
  for (const [key, value] of Object.entries(delta)) {
    if (scopeOf(key) === 'temp') continue;
    setOwn((out ??= {}), key, value);
  }
  return out;
}

/** Applies a delta to a state object in place: `null` deletes the key. */
export function applyDelta(state: Record<string, JsonValue>, delta: StateDelta | undefined): void {
  if (!delta) return;
  for (const [key, value] of Object.entries(delta)) {
    if (value === null) delete state[key];
    else setOwn(state, key, value);
  }
}

/** Removes every `temp:` key from a state object in place (the end of an invocation). */
export function clearTemp(state: Record<string, JsonValue>): void {
  for (const key of Object.keys(state)) if (key.startsWith(TEMP_PREFIX)) delete state[key];
}

/** Validates a state key: non-empty, no control characters, at most 512 characters. */
export function assertValidKey(key: string): void {
  // eslint-disable-next-line no-control-regex
  if (key.length === 0 || key.length > 512 || /[\u0000-\u001f]/.test(key)) {
    throw new TypeError(
      `Invalid state key ${JSON.stringify(key.slice(0, 80))}: keys are 1-512 characters without control characters.`,
    );
  }
}
