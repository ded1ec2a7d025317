/**
 * Small checks shared by the built-in sources: validating numeric options when a source is created,
 * so a bad setting fails at startup instead of on the first load, and honouring an AbortSignal.
 */
import { AbortedError, ConfigurationError } from '../errors.js';

/**
 * Returns `value`, or `fallback` when it is undefined, after checking it is an integer of at least
 * `min`; `setting` names the option in the error, e.g. `createHttpSource({ maxBytes })`.
 */
export function integerOption(value: number | undefined, fallback: number, min: number, setting: string): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < min) {
    throw new ConfigurationError(
      'invalid-option',
      `${setting} must be an integer of at least ${min}, got ${String(value)}.`,
    );
  }
  return chosen;
}

/** Throws an `AbortedError` naming `what` when `signal` has been aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new AbortedError(`Loading ${what} was aborted through its AbortSignal.`);
}
