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
  for (const question of questions) {
    if (typeof question.answer === 'string') values.push(question.answer);
    for (const fact of question.supporting ?? []) if (typeof fact.title === 'string') values.push(fact.title);
  }
  return { facts: uniqueValues(values.map(canonicalValue)), forbidden: uniqueValues(values) };
}
