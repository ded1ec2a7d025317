/**
 * The values of a task: the facts its answer depends on (to find which ones a compressor lost) and the
 * texts no guideline may contain (ids, full names, amounts, product names). The gold answer is used to
 * find lost facts, never to write a guideline: candidates only ever get key names and patterns, and the
 * leak check rejects any candidate that holds one of these values.
 */
import type { BenchScenario, ScenarioTask, ScenarioTaskValues } from '../bench/scenario.js';
import { canonicalValue, jsonScalars, uniqueValues } from '../util/canonical-value.js';

/** See the module comment (the same shape as a scenario's `taskValues`). */
export type TaskValues = ScenarioTaskValues;

/** Computes the values of a scenario's task. */
export type TaskValuesFn = (task: ScenarioTask) => TaskValues;

/**
 * A scenario without its own: the scalars of the task's `gold` when it has one, else of the whole task but its
 * id and prompt (strings of 3 to 200 characters; long texts are prose, not values).
 */
export function genericTaskValues(task: ScenarioTask): TaskValues {
  const { id: _id, prompt: _prompt, ...rest } = task;
  const source = (task as { gold?: unknown }).gold ?? rest;
  const found: { key: string | undefined; value: string | number | boolean }[] = [];
  jsonScalars(source, undefined, found);
  const facts: string[] = [];
  const forbidden: string[] = [];
  for (const { value } of found) {
    if (typeof value === 'boolean') continue;
    if (typeof value === 'string' && (value.length < 3 || value.length > 200)) continue;
    facts.push(canonicalValue(value));
    forbidden.push(String(value));
  }
  return { facts: uniqueValues(facts), forbidden: uniqueValues(forbidden) };
}

/** The task-values function of a scenario: its own `taskValues`, else {@link genericTaskValues}. */
export function taskValuesFor(scenario: Pick<BenchScenario, 'taskValues'>): TaskValuesFn {
  return scenario.taskValues ?? genericTaskValues;
}
