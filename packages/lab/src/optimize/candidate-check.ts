/**
 * The checks every candidate guideline passes before it is evaluated, whoever wrote it (the offline
 * rule editor or an optimizer LLM): it targets the same compressor, it keeps every placeholder of the
 * guideline it revises, and it holds no task-specific value of the training tasks (ids, full names,
 * amounts, product names) nor of the training runs the optimizer was shown (ids, codes, long numbers,
 * emails in their observations and feedback), since a guideline that names them has learned the
 * tasks, not the skill.
 */
import type { Guideline } from 'pagewise/compression';
import { placeholdersOf } from 'pagewise/internal';
import { containsWord } from './field-diff.js';

// Integers below this are counts and limits ("keep 3 items"), not values worth refusing.
const SMALL_INTEGER = 1000;

function checkable(value: string): string | undefined {
  const normalized = value.trim().toLowerCase();
  if (normalized.length < 3) return undefined;
  if (/^\d+$/u.test(normalized) && Number(normalized) < SMALL_INTEGER) return undefined;
  return normalized;
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
    const checked = checkable(value);
    if (checked === undefined) continue;
    const forms = checked.startsWith('#') && checked.length > 3 ? [checked, checked.slice(1)] : [checked];
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

/** Digits a token needs to be a value of the data: an id (#W7736708), a code, a number ≥ 1000, an amount, a date. */
const VALUE_DIGITS = 4;
const EMAIL = /^[^\s@]+@[^\s@]+\.\p{L}{2,}$/u;
// Letters, digits and the marks ids, amounts and emails are written with; anything else ends a token.
const TOKEN_SEPARATOR = /[^\p{L}\p{N}#@._+-]+/u;
const EDGE_MARKS = /^[._+-]+|[._+-]+$/gu;

/**
 * The values of the data a text holds, as no guideline may name them: emails, and tokens of at least
 * four digits (ids such as `#W7736708`, codes, numbers of four digits or more, amounts such as `154.99`,
 * dates, phone numbers). Words, field names and short numbers ("keep 3 items", "ratio 0.5", "utf8",
 * "base64") are not values: a guideline may say them.
 *
 * @example
 * dataValues('order #W7736708 of yusuf.rossi@example.com, 2 items, $154.99'); // ['#W7736708', 'yusuf.rossi@example.com', '154.99']
 */
export function dataValues(text: string): string[] {
  const found = new Set<string>();
  for (const raw of text.split(TOKEN_SEPARATOR)) {
    const token = raw.replace(EDGE_MARKS, '');
    if (EMAIL.test(token) || (token.match(/\p{N}/gu)?.length ?? 0) >= VALUE_DIGITS) found.add(token);
  }
  return [...found];
}

/** Where a value of the training runs was seen: what the optimizer was shown. */
export type RunValueSource = 'a training trace' | 'the feedback';

/** A value of the training runs (see {@link dataValues}) and where it was seen. */
export interface RunValue {
  value: string;
  seenIn: RunValueSource;
}

/**
 * The values of the training runs an optimizer was shown, less those the starting guideline holds:
 * every {@link dataValues} of the traces' texts (tool-call arguments, answers, compressor excerpts, the
 * values kept and lost per field) and of the feedback. A value first seen in a trace is reported as such.
 */
export function runValues(
  texts: { traces: readonly string[]; feedback: readonly string[] },
  start: Guideline,
): RunValue[] {
  // One entry per value however it was written (`#W7736708` in a tool call, `w7736708` among field values).
  const seen = new Map<string, RunValue>();
  const add = (list: readonly string[], seenIn: RunValueSource) => {
    for (const text of list)
      for (const value of dataValues(text)) {
        const key = value.toLowerCase().replace(/^#/u, '');
        if (!seen.has(key)) seen.set(key, { value, seenIn });
      }
  };
  add(texts.traces, 'a training trace');
  add(texts.feedback, 'the feedback');
  const all = [...seen.values()];
  const inStart = new Set(
    leakedValues(
      guidelineText(start),
      all.map((v) => v.value),
    ),
  );
  return all.filter((v) => !inStart.has(v.value));
}

const quoted = (values: readonly string[]) =>
  `${values
    .slice(0, 3)
    .map((v) => JSON.stringify(v))
    .join(', ')}${values.length > 3 ? ', …' : ''}`;

/**
 * Why `candidate` may not be evaluated as a revision of `incumbent`, or undefined when it may: it
 * targets another compressor, drops a placeholder, or holds a value of the training tasks
 * (`forbidden`) or of the training runs the optimizer was shown (`seen`, see {@link runValues}).
 *
 * @example
 * checkCandidate(candidate, DEFAULT_OBSERVATION_GUIDELINE, forbidden); // 'drops the placeholder {{task}}'
 */
export function checkCandidate(
  candidate: Guideline,
  incumbent: Guideline,
  forbidden: readonly string[],
  seen: readonly RunValue[] = [],
): string | undefined {
  if (candidate.target !== incumbent.target)
    return `targets ${candidate.target}, but the guideline being optimized targets ${incumbent.target}`;
  const kept = new Set(placeholdersOf(candidate.template));
  const dropped = placeholdersOf(incumbent.template).filter((p) => !kept.has(p));
  if (dropped.length > 0)
    return `drops the placeholder${dropped.length > 1 ? 's' : ''} ${dropped.map((p) => `{{${p}}}`).join(', ')}; every placeholder of the revised guideline must stay`;
  // Without the escapes of a regex: a keep pattern `54\.04` names the amount 54.04.
  const text = guidelineText(candidate).replace(/\\/gu, '');
  const leaked = leakedValues(text, forbidden);
  if (leaked.length > 0) {
    return `holds ${leaked.length} task-specific value${leaked.length > 1 ? 's' : ''} of the training tasks (${leaked
      .slice(0, 3)
      .map((v) => JSON.stringify(v))
      .join(', ')}${leaked.length > 3 ? ', …' : ''}); a guideline may name kinds of fields, never the values of a task`;
  }
  const fromRuns = leakedValues(
    text,
    seen.map((v) => v.value),
  );
  if (fromRuns.length > 0) {
    const where = [...new Set(fromRuns.map((value) => seen.find((v) => v.value === value)?.seenIn))].join(' and ');
    return `holds ${fromRuns.length} value${fromRuns.length > 1 ? 's' : ''} of the training runs (${quoted(fromRuns)}, seen in ${where}); a guideline that names the training data fits those runs, not the task: name the kind of field instead`;
  }
  return undefined;
}
