/**
 * pagewise state over a plain record, for frameworks that keep no session state of their own (the AI
 * SDK) or keep it in a user context object (the OpenAI Agents SDK). `temp:` keys live until
 * {@link clearTempKeys} ends the invocation.
 */
import type { StateAccess } from '../agents/tool.js';
import type { JsonValue } from '../session/types.js';
import { ownValue, setOwn } from '../util/own-field.js';

/** A {@link StateAccess} that reads and writes `record` in place. */
export function recordStateAccess(record: Record<string, JsonValue>): StateAccess {
  return {
    get: <T extends JsonValue = JsonValue>(key: string) => ownValue(record, key) as T | undefined,
    has: (key) => Object.hasOwn(record, key),
    set: (key, value) => {
      setOwn(record, key, value);
    },
    delete: (key) => {
      delete record[key];
    },
    increment: (key, by = 1) => {
      const current = ownValue(record, key);
      setOwn(record, key, (typeof current === 'number' ? current : 0) + by);
    },
    keys: (prefix = '') => Object.keys(record).filter((k) => k.startsWith(prefix)),
  };
}

/** Removes the `temp:` keys: the invocation is over, its working set paged out. */
export function clearTempKeys(record: Record<string, JsonValue>): void {
  for (const key of Object.keys(record)) if (key.startsWith('temp:')) delete record[key];
}

/** The writes of one tool call over a state, to be applied when the call's event is appended. */
export interface StateWrites {
  /** The state the tool reads and writes; reads see its own writes. */
  readonly access: StateAccess;
  /** The writes so far: key to value, `null` for a deletion. */
  readonly delta: Record<string, JsonValue>;
}

/**
 * A {@link StateAccess} over `state` that leaves it untouched and records every write in a delta (for
 * frameworks whose tool calls are appended to a pagewise session later, with their delta). Reads see the
 * call's own writes; objects are copied in and out, so neither side can change the other's.
 */
export function deltaStateAccess(state: Readonly<Record<string, JsonValue>>): StateWrites {
  const delta: Record<string, JsonValue> = {};
  const get = (key: string): JsonValue | undefined => {
    if (Object.hasOwn(delta, key)) return delta[key] ?? undefined;
    const value = ownValue(state, key);
    return typeof value === 'object' && value !== null ? structuredClone(value) : value;
  };
  const access: StateAccess = {
    get: <T extends JsonValue = JsonValue>(key: string) => get(key) as T | undefined,
    has: (key) => get(key) !== undefined,
    set: (key, value) => {
      if (value === undefined) throw new TypeError(`State value for "${key}" is undefined; use delete().`);
      setOwn(delta, key, structuredClone(value));
    },
    delete: (key) => {
      setOwn(delta, key, null);
    },
    increment: (key, by = 1) => {
      const current = get(key);
      setOwn(delta, key, (typeof current === 'number' ? current : 0) + by);
    },
    keys: (prefix = '') =>
      [...new Set([...Object.keys(state), ...Object.keys(delta)])].filter(
        (k) => k.startsWith(prefix) && get(k) !== undefined,
      ),
  };
  return { access, delta };
}
