/**
 * Fields keyed by untrusted text (JSON a model wrote, state keys, document fields) as own fields of a
 * plain object. `obj[key] = v` with key `__proto__` sets the prototype instead of adding a field (the
 * value is lost, or another object becomes the prototype), and `obj[key]` with a key the object lacks
 * may find an inherited member (`constructor`, `toString`, `__proto__`) instead of `undefined`.
 */

/**
 * Sets `key` on `target` as an own enumerable, writable, configurable field, as `JSON.parse` would,
 * also when `key` is `__proto__`; every other key is plainly assigned.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: NoInfer<T>): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** The value of `target`'s own field `key`, or `undefined` when it has none (an inherited member is not one). */
export function ownValue<T>(target: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(target, key) ? target[key] : undefined;
}
