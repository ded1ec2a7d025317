/**
 * The checks every candidate guideline passes before it is evaluated, whoever wrote it (the offline
 * rule editor or an optimizer LLM): it targets the same compressor, it keeps every placeholder of the
 * guideline it revises, and it holds no task-specific value of the training tasks (ids, full names,
 * amounts, product names), since a guideline that names them has learned the tasks, not the skill.
 */
import type { Guideline } from 'pagewise';
import { placeholdersOf } from 'pagewise/internal';
import { containsWord } from './field-diff.js';

// Integers below this are counts and limits ("keep 3 items"), not values worth refusing.
const SMALL_INTEGER = 1000;

function checkable(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  if (v.length < 3) return undefined;
  if (/^\d+$/u.test(v) && Number(v) < SMALL_INTEGER) return undefined;
  return v;
}

/**
 * The values of `forbidden` that occur in `text` as whole words (case ignored; an id given with a
 * leading `#` also matches without it).
 *
 * @example
 * leakedValues('keep order #W2611340', ['#W2611340']); // ['#W2611340']
 */
export function leakedValues(text: string, forbidden: readonly string[]): string[] {
  const haystack = text.toLowerCase();
  const found: string[] = [];
  for (const value of forbidden) {
    const v = checkable(value);
    if (v === undefined) continue;
    const forms = v.startsWith('#') && v.length > 3 ? [v, v.slice(1)] : [v];
    if (forms.some((form) => containsWord(haystack, form))) {
      found.push(value);
    }
  }
  return found;
}

/** Everything of a guideline an optimizer wrote: template, rules and description. */
export function guidelineText(guideline: Guideline): string {
  return [guideline.template, JSON.stringify(guideline.rules), guideline.description ?? ''].join('\n');
}

/**
 * The forbidden values of the training tasks, less those the starting guideline already holds: those
 * were not copied from the tasks (a customer called "Will" and a template saying "will"), and refusing
 * them would refuse every revision.
 */
export function forbiddenValues(perTask: readonly (readonly string[])[], start: Guideline): string[] {
  const all = [...new Set(perTask.flat())];
  const inStart = new Set(leakedValues(guidelineText(start), all));
  return all.filter((v) => !inStart.has(v));
}

/**
 * Why `candidate` may not be evaluated as a revision of `incumbent`, or undefined when it may.
 *
 * @example
 * checkCandidate(candidate, DEFAULT_OBSERVATION_GUIDELINE, forbidden); // 'drops the placeholder {{task}}'
 */
export function checkCandidate(
  candidate: Guideline,
  incumbent: Guideline,
  forbidden: readonly string[],
): string | undefined {
  if (candidate.target !== incumbent.target)
    return `targets ${candidate.target}, but the guideline being optimized targets ${incumbent.target}`;
  const kept = new Set(placeholdersOf(candidate.template));
  const dropped = placeholdersOf(incumbent.template).filter((p) => !kept.has(p));
  if (dropped.length > 0)
    return `drops the placeholder${dropped.length > 1 ? 's' : ''} ${dropped.map((p) => `{{${p}}}`).join(', ')}; every placeholder of the revised guideline must stay`;
  const leaked = leakedValues(guidelineText(candidate), forbidden);
  if (leaked.length > 0) {
    return `holds ${leaked.length} task-specific value${leaked.length > 1 ? 's' : ''} of the training tasks (${leaked
      .slice(0, 3)
      .map((v) => JSON.stringify(v))
      .join(', ')}${leaked.length > 3 ? ', …' : ''}); a guideline may name kinds of fields, never the values of a task`;
  }
  return undefined;
}
