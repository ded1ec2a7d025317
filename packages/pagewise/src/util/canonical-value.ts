/**
 * Values in the form facts are compared in, and the scalars of a JSON value: what the guideline
 * optimizer and the scenarios' task values share.
 */

/**
 * A value in the form facts are compared in: strings trimmed, lower case, without a leading `#`
 * (order ids are written with and without it); numbers rounded to the cent and written plainly, so
 * `54.0`, `54` and 5400 cents divided by 100 all read `54`.
 */
export function canonicalValue(value: unknown): string {
  if (typeof value === 'number') return String(Math.round(value * 100) / 100);
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase().replace(/^#/u, '');
    // A number written as text ("54.00") matches the number.
    return /^-?\d+(?:\.\d+)?$/u.test(text) ? String(Math.round(Number(text) * 100) / 100) : text;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Every scalar of a JSON value with the key it sits under (array items take their parent's key). */
export function jsonScalars(
  value: unknown,
  key: string | undefined = undefined,
  into: { key: string | undefined; value: string | number | boolean }[] = [],
): { key: string | undefined; value: string | number | boolean }[] {
  if (Array.isArray(value)) for (const item of value) jsonScalars(item, key, into);
  else if (typeof value === 'object' && value !== null)
    for (const [childKey, child] of Object.entries(value)) jsonScalars(child, childKey, into);
  else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    into.push({ key, value });
  return into;
}

/** The non-blank values, each once. */
export const uniqueValues = (values: readonly string[]): string[] => [
  ...new Set(values.filter((v) => v.trim() !== '')),
];
