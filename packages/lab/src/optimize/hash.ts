/**
 * Content hashes the optimizer keys its caches by: a guideline's hash covers only what changes a
 * compressor's behaviour (target, template, rules), so a candidate that equals an earlier one under
 * another name reuses its evaluations.
 */
import { createHash } from 'node:crypto';
import type { Guideline } from 'pagewise/compression';
import { parseExtractiveRules } from 'pagewise/extractive';

/** The first 16 hex digits of the SHA-256 of `text`. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** JSON with object keys sorted, so equal values give equal text whatever order their keys were set in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The behaviour hash of a guideline: target, template and rules; id, version and description left out.
 *
 * @example
 * guidelineHash(DEFAULT_OBSERVATION_GUIDELINE); // '3f2a…' (16 hex digits)
 */
export function guidelineHash(guideline: Pick<Guideline, 'target' | 'template' | 'rules'>): string {
  return shortHash(
    canonicalJson({
      target: guideline.target,
      template: guideline.template,
      rules: parseExtractiveRules(guideline.rules, { source: 'guidelineHash' }),
    }),
  );
}
