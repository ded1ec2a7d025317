/**
 * pagewise's state access over ADK's `State`, so pagewise tools and the paging service read and write
 * ADK session state directly: `temp:` keys live for the invocation (ADK trims them from stored event
 * deltas), other keys are persisted by ADK's session service.
 */
import type { State } from '@google/adk';
import type { StateAccess } from 'pagewise';
import type { JsonValue } from 'pagewise';
import { setOwn } from 'pagewise/internal';

/**
 * Wraps an ADK `State` as a pagewise {@link StateAccess}. ADK has no deletion, so `delete` writes
 * `null`, which pagewise reads as absent (and `keys` leaves out).
 */
export function adkStateAccess(state: State): StateAccess {
  const value = (key: string): JsonValue | undefined => {
    const stored = state.get<JsonValue>(key);
    return stored === null ? undefined : stored;
  };
  return {
    get: <T extends JsonValue = JsonValue>(key: string) => value(key) as T | undefined,
    has: (key) => value(key) !== undefined,
    set: (key, v) => state.set(key, v),
    delete: (key) => {
      if (state.has(key)) state.set(key, null);
    },
    increment: (key, by = 1) => {
      const current = value(key);
      state.set(key, (typeof current === 'number' ? current : 0) + by);
    },
    keys: (prefix = '') =>
      Object.entries(state.toRecord())
        .filter(([k, v]) => k.startsWith(prefix) && v !== null && v !== undefined)
        .map(([k]) => k),
  };
}

/** The merged state of an ADK context as a plain record, `null` (deleted) keys left out. */
export function adkStateRecord(state: Readonly<State>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(state.toRecord()))
    if (value !== null && value !== undefined) setOwn(out, key, value as JsonValue);
  return out;
}
