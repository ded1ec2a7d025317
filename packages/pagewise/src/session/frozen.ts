/**
 * Frozen events: what a store keeps and shares between the sessions it loads, so loading a session
 * copies no event and nothing a caller does to a loaded session reaches another.
 */

/** Freezes a JSON value and everything in it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
