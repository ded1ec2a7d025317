/**
 * The values of a multi-objective QA task for the guideline optimizer: each answer and the titles of its
 * supporting paragraphs, which no guideline may contain.
 */
import type { ScenarioTask, ScenarioTaskValues } from '../../bench/scenario.js';
import { canonicalValue, uniqueValues } from '../../util/canonical-value.js';

/** multi-objective-qa: each question's answer and the titles of its supporting paragraphs. */
export function multiQaTaskValues(task: ScenarioTask): ScenarioTaskValues {
  const questions =
    (task as { questions?: { answer?: unknown; supporting?: { title?: unknown }[] }[] }).questions ?? [];
  const values: string[] = [];
  for (const q of questions) {
    if (typeof q.answer === 'string') values.push(q.answer);
    for (const s of q.supporting ?? []) if (typeof s.title === 'string') values.push(s.title);
  }
  return { facts: uniqueValues(values.map(canonicalValue)), forbidden: uniqueValues(values) };
}
