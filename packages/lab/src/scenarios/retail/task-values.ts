/**
 * The values of a retail task for the guideline optimizer: the facts its answer depends on and the
 * texts no guideline may contain. The gold answer finds lost facts; it never writes a guideline.
 */
import type { ScenarioTask, ScenarioTaskValues } from '../../bench/scenario.js';
import { canonicalValue, jsonScalars, uniqueValues } from '../../util/canonical-value.js';
import { parseRetailPrompt } from './prompts.js';

/**
 * retail-tool-use: the customers (names, zips), the product asked about, and every value of the gold
 * answer (order ids, user ids, names, amounts; amounts are stored in cents and compared in dollars).
 */
export function retailTaskValues(task: ScenarioTask): ScenarioTaskValues {
  const facts: string[] = [];
  const forbidden: string[] = [];
  const request = parseRetailPrompt(task.prompt);
  for (const customer of request?.customers ?? []) {
    facts.push(canonicalValue(customer.firstName), canonicalValue(customer.lastName), canonicalValue(customer.zip));
    forbidden.push(`${customer.firstName} ${customer.lastName}`, customer.zip);
  }
  if (request?.productName) {
    facts.push(canonicalValue(request.productName));
    forbidden.push(request.productName);
  }
  const gold: { key: string | undefined; value: string | number | boolean }[] = [];
  jsonScalars((task as { gold?: unknown }).gold, undefined, gold);
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
  return { facts: uniqueValues(facts), forbidden: uniqueValues(forbidden) };
}
