/**
 * The units stage of the extractive compressor: a text cut into units (sentences, lines, table rows, headings),
 * memoized per input, and the error first line an error result keeps whole.
 */
import type { ExtractiveRules } from '../rules.js';
import { startsWithErrorWord } from '../../text/error-words.js';
import { segmentText } from '../../text/segment.js';
import type { TextUnit } from '../../text/segment.js';

// ---------------------------------------------------------------------------------------------
// Text

// A page is often compressed again for another query (each question on a report, each step of a run that
// shows the same result): the units of the last few inputs are remembered. Units are immutable.
const recentUnits = new Map<string, readonly TextUnit[]>();
const RECENT_INPUTS = 16;

export function unitsOf(input: string, rules: ExtractiveRules): readonly TextUnit[] {
  const key = `${rules.unit}${Number(rules.alwaysKeep.headers)}${input}`;
  let units = recentUnits.get(key);
  if (units === undefined) {
    units = segmentText(input, rules.unit, { headings: rules.alwaysKeep.headers });
    if (recentUnits.size >= RECENT_INPUTS) recentUnits.delete(recentUnits.keys().next().value as string);
    recentUnits.set(key, units);
  }
  return units;
}

export function isCuttable(unit: TextUnit | undefined): boolean {
  return unit?.kind === 'sentence' || unit?.kind === 'line';
}

/**
 * The first line of an error result, or undefined: a line starting with `Error` (any case), a `…Error` or
 * `…Exception` class name, `Traceback`, `panic:` or `fatal`, or a non-2xx status (`HTTP/1.1 404 Not
 * Found`, `status: 500`, `503 Service Unavailable`).
 */
export function errorFirstLine(text: string): string | undefined {
  const start = text.length - text.trimStart().length;
  const newline = text.indexOf('\n', start);
  const line = text.slice(start, newline < 0 ? text.length : newline).trimEnd();
  return startsWithErrorWord(line) || ERROR_CLASS_LINE.test(line) || isErrorStatus(STATUS_LINE.exec(line)?.[1])
    ? line
    : undefined;
}

const ERROR_CLASS_LINE = /^(?:[A-Za-z_$][\w.$]*)?(?:Error|Exception)\b/u;
const STATUS_LINE = /^(?:HTTP\/[\d.]+\s+|status(?:[ _]?code)?\s*[:=]?\s*)?([1-5]\d\d)\b(?![\d.,])/iu;

/** HTTP statuses run from 100 to 599; every class but 2xx (success) reads as an error. */
export const HTTP_STATUSES = { first: 100, last: 599, successClass: 2 } as const;

export function isErrorStatus(code: string | number | undefined): boolean {
  const status = Number(code);
  return (
    code !== undefined &&
    Number.isInteger(status) &&
    status >= HTTP_STATUSES.first &&
    status <= HTTP_STATUSES.last &&
    Math.floor(status / 100) !== HTTP_STATUSES.successClass
  );
}

export function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const itemKey = key(item);
    const group = groups.get(itemKey);
    if (group) group.push(item);
    else groups.set(itemKey, [item]);
  }
  return groups;
}
