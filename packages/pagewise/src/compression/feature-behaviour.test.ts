import { describe, expect, it } from 'vitest';
import { compressExtractive, compressWithProbe } from './extractive.js';
import { FEATURE_NAMES, FEATURES_VERSION, type FeatureName, type ScorerParams } from './features.js';
import { DEFAULT_EXTRACTIVE_RULES } from './rules.js';

// One behaviour test per feature: weighted up, the units the compressor keeps hold more of it than weighted down.

/** Scorer parameters weighing one feature only. */
function weighing(feature: FeatureName, weight: number): ScorerParams {
  return {
    version: FEATURES_VERSION,
    features: FEATURE_NAMES,
    weights: FEATURE_NAMES.map((name) => (name === feature ? weight : 0)),
    bias: 0,
    fittedOn: [],
    seed: 0,
    l2: 0,
  };
}

const PAGE = [
  '# Park renovation',
  '',
  'The committee met on a rainy afternoon in the old town hall. Members discussed the benches at length.',
  'Nobody could agree on whether the fountain should stay, and the meeting closed late.',
  'The council named the fountain after Sequoyah.',
  '',
  '# Sequoyah',
  '',
  'Sequoyah created a writing system. He was honoured across the region.',
  '',
  '## Budget',
  '',
  '| item | units | price |',
  '| --- | --- | --- |',
  '| bench | 12 | 340 |',
  '| fountain | 1 | 8200 |',
  '',
  '- order the benches before May',
  '- ask the mayor about the playground',
  'Contractor: Baumann GmbH',
  'Ticket: W4806309 opened on 2024-05-01 at https://example.org/t/W4806309',
  'Error: permit request denied by the district office.',
  'The fountain costs 8,200 euros, the benches 4,080 euros, the lamps 2,850 euros and the paths 12,400 euros.',
  'A very long closing remark follows here that goes on about the weather, the mood of the members, the tea that was served, the late bus home and many other small things that nobody will ever need again.',
  'The committee met on a rainy afternoon in the old town hall.',
  'Members will vote next spring.',
].join('\n');

const RECORDS = JSON.stringify({
  customer_id: 'c_1001',
  name: 'Ada Park',
  // Longer than a list kept whole: its entries are units of their own.
  visits: Array.from({ length: 40 }, (_, day) => `visit on day ${day + 1} of the spring season`),
  orders: Array.from({ length: 6 }, (_, order) => ({
    order_id: `#W48063${order}${order}`,
    title: `spring order ${order}`,
    event: order % 3 === 0 ? 'delivery failed at the gate' : 'delivered on the porch',
    status: order === 2 ? 'error: payment declined' : 'delivered',
    total: 100 + order * 37.5,
    note: `left at the side door of house number ${order} after a long wait in the rain`,
    items: [`item_${order}a`, `item_${order}b`],
    customer_id: 'c_1001',
  })),
});

/** Mean value of `feature` over the units of `input` whose text `output` holds. */
function keptMean(input: string, query: string, feature: FeatureName, weight: number): number {
  const at = FEATURE_NAMES.indexOf(feature);
  const rules = { ...DEFAULT_EXTRACTIVE_RULES, ratio: 0.35 };
  const options = { query, rules, scoring: 'learned' as const, params: weighing(feature, weight) };
  let units: { text: string; features: number[] }[] = [];
  compressWithProbe(input, options, (scored) => (units = [...scored]));
  const output = compressExtractive(input, options).text;
  // JSON units are `key: value`: the output holds the value beside its key, or as an entry of its list.
  const holds = (text: string) =>
    output.includes(text) ||
    output.includes(text.replace(/^([^:]+): /u, '"$1":')) ||
    (text.includes(': "') && output.includes(text.slice(text.indexOf(': "') + 2)));
  const kept = units.filter((unit) => holds(unit.text));
  expect(kept.length).toBeGreaterThan(0);
  return kept.reduce((sum, unit) => sum + (unit.features[at] ?? 0), 0) / kept.length;
}

const TEXT_FEATURES: [FeatureName, string][] = [
  ['relevance', 'playground mayor'],
  ['container', 'Sequoyah writing system'],
  ['linked', 'who was the fountain named after'],
  ['position', 'park'],
  ['lead', 'park'],
  ['tableRow', 'park'],
  ['listItem', 'park'],
  ['labelled', 'park'],
  ['identifier', 'park'],
  ['error', 'park'],
  ['numeric', 'park'],
  ['keyMatch', 'who is the contractor'],
  ['protectedKinds', 'park'],
  ['length', 'park'],
  ['repeat', 'park'],
];

const JSON_FEATURES: [FeatureName, string][] = [
  ['relevance', 'gate'],
  ['container', 'payment declined'],
  ['position', 'order'],
  ['listItem', 'order'],
  ['labelled', 'order'],
  ['identifier', 'order'],
  ['idInRecord', 'payment declined'],
  ['error', 'order'],
  ['numeric', 'order'],
  ['keyMatch', 'order total'],
  ['protectedKinds', 'order'],
  ['length', 'order'],
];

describe('each unit feature moves what is kept', () => {
  it.each(TEXT_FEATURES)('text: %s weighted up keeps more of it than weighted down', (feature, query) => {
    expect(keptMean(PAGE, query, feature, 8)).toBeGreaterThan(keptMean(PAGE, query, feature, -8));
  });

  it.each(JSON_FEATURES)('JSON: %s weighted up keeps more of it than weighted down', (feature, query) => {
    expect(keptMean(RECORDS, query, feature, 8)).toBeGreaterThan(keptMean(RECORDS, query, feature, -8));
  });

  it('JSON: repeat weighted up keeps more copies of a repeated field than weighted down', () => {
    const rules = { ...DEFAULT_EXTRACTIVE_RULES, ratio: 0.35 };
    const copies = (weight: number) =>
      compressExtractive(RECORDS, {
        query: 'order',
        rules,
        scoring: 'learned',
        params: weighing('repeat', weight),
      }).text.split('"customer_id":"c_1001"').length - 1;
    expect(copies(8)).toBeGreaterThan(copies(-8));
  });

  it('heading: an outline unit comes only with a unit under it, so its own weight moves nothing', () => {
    const rules = { ...DEFAULT_EXTRACTIVE_RULES, ratio: 0.35 };
    const output = (weight: number) =>
      compressExtractive(PAGE, { query: 'park', rules, scoring: 'learned', params: weighing('heading', weight) }).text;
    expect(output(8)).toBe(output(-8));
  });

  it('json: a constant within one input, it moves scores against minScore only', () => {
    const rules = { ...DEFAULT_EXTRACTIVE_RULES, ratio: 0.9, minScore: 0.9 };
    const up = compressExtractive(RECORDS, { query: 'order', rules, scoring: 'learned', params: weighing('json', 8) });
    const down = compressExtractive(RECORDS, {
      query: 'order',
      rules,
      scoring: 'learned',
      params: weighing('json', -8),
    });
    expect(up.kept).toBeGreaterThan(down.kept);
    const prose = compressExtractive(PAGE, { query: 'park', rules, scoring: 'learned', params: weighing('json', 8) });
    expect(prose.kept).toBeLessThan(up.kept);
  });
});
