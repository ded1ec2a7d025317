/**
 * The values of a task: the facts its answer depends on (to find which ones a compressor lost) and the
 * texts no guideline may contain (ids, full names, amounts, product names). The gold answer is used to
 * find lost facts, never to write a guideline: candidates only ever get key names and patterns, and the
 * leak check rejects any candidate that holds one of these values.
 */
import type { ScenarioTask } from '../bench/scenario.js';
import { parseRetailPrompt } from '../scenarios/retail/prompts.js';
import { canonicalValue } from './field-diff.js';

/** See the module comment. */
export interface TaskValues {
  /** Canonical values (see `canonicalValue`) the task's answer depends on. */
  facts: string[];
  /** Texts as written that no guideline may contain. */
  forbidden: string[];
}

/** Computes the values of a scenario's task. */
export type TaskValuesFn = (task: ScenarioTask) => TaskValues;

function scalars(
  value: unknown,
  key: string | undefined,
  into: { key: string | undefined; value: string | number | boolean }[],
): void {
  if (Array.isArray(value)) for (const v of value) scalars(v, key, into);
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) scalars(v, k, into);
  else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    into.push({ key, value });
}

const unique = (values: readonly string[]): string[] => [...new Set(values.filter((v) => v.trim() !== ''))];

/**
 * retail-tool-use: the customers (names, zips), the product asked about, and every value of the gold
 * answer (order ids, user ids, names, amounts; amounts are stored in cents and compared in dollars).
 */
export function retailTaskValues(task: ScenarioTask): TaskValues {
  const facts: string[] = [];
  const forbidden: string[] = [];
  const request = parseRetailPrompt(task.prompt);
  for (const c of request?.customers ?? []) {
    facts.push(canonicalValue(c.firstName), canonicalValue(c.lastName), canonicalValue(c.zip));
    forbidden.push(`${c.firstName} ${c.lastName}`, c.zip);
  }
  if (request?.productName) {
    facts.push(canonicalValue(request.productName));
    forbidden.push(request.productName);
  }
  const gold: { key: string | undefined; value: string | number | boolean }[] = [];
  scalars((task as { gold?: unknown }).gold, undefined, gold);
  for (const { key, value } of gold) {
    if (key === 'template' || typeof value === 'boolean') continue;
    if (typeof value === 'number') {
      const dollars = key?.endsWith('Cents') ? value / 100 : value;
      facts.push(canonicalValue(dollars));
      forbidden.push(key?.endsWith('Cents') ? dollars.toFixed(2) : String(value));
    } else {
      facts.push(canonicalValue(value));
      forbidden.push(value);
    }
  }
  return { facts: unique(facts), forbidden: unique(forbidden) };
}

/** multi-objective-qa: each question's answer and the titles of its supporting paragraphs. */
export function multiQaTaskValues(task: ScenarioTask): TaskValues {
  const questions =
    (task as { questions?: { answer?: unknown; supporting?: { title?: unknown }[] }[] }).questions ?? [];
  const values: string[] = [];
  for (const q of questions) {
    if (typeof q.answer === 'string') values.push(q.answer);
    for (const s of q.supporting ?? []) if (typeof s.title === 'string') values.push(s.title);
  }
  return { facts: unique(values.map(canonicalValue)), forbidden: unique(values) };
}

/**
 * Any other scenario: the scalars of the task's `gold` when it has one, else of the whole task but its
 * id and prompt (strings of 3 to 200 characters; long texts are prose, not values).
 */
export function genericTaskValues(task: ScenarioTask): TaskValues {
  const { id: _id, prompt: _prompt, ...rest } = task;
  const source = (task as { gold?: unknown }).gold ?? rest;
  const found: { key: string | undefined; value: string | number | boolean }[] = [];
  scalars(source, undefined, found);
  const facts: string[] = [];
  const forbidden: string[] = [];
  for (const { value } of found) {
    if (typeof value === 'boolean') continue;
    if (typeof value === 'string' && (value.length < 3 || value.length > 200)) continue;
    facts.push(canonicalValue(value));
    forbidden.push(String(value));
  }
  return { facts: unique(facts), forbidden: unique(forbidden) };
}

const BY_SCENARIO: Record<string, TaskValuesFn> = {
  'retail-tool-use': retailTaskValues,
  'multi-objective-qa': multiQaTaskValues,
};

/** The task-values function of a scenario: a built-in one, else {@link genericTaskValues}. */
export function taskValuesFor(scenario: string): TaskValuesFn {
  return BY_SCENARIO[scenario] ?? genericTaskValues;
}
