import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../errors.js';
import { compressExtractive, compressWithProbe } from '../extractive.js';
import { EXTRACTIVE_PARAMS } from './fitted-params.js';
import {
  checkParams,
  FEATURE_NAMES,
  FEATURES_VERSION,
  featureVector,
  learnedScore,
  unitScore,
  weighedFeatures,
  type FeatureName,
  type LearnedParams,
} from './features.js';
import { HAND_SET_PARAMS } from './hand-set-params.js';
import { DEFAULT_EXTRACTIVE_RULES } from '../rules.js';

/** Parameters with one feature weighted, all others 0. */
function only(feature: FeatureName, weight: number): LearnedParams {
  return {
    version: FEATURES_VERSION,
    features: [...FEATURE_NAMES],
    weights: FEATURE_NAMES.map((name) => (name === feature ? weight : 0)),
    bias: 0,
    fittedOn: [],
    seed: 0,
    l2: 0,
  };
}

const PAGE = [
  'The committee met on a rainy afternoon in the old town hall.',
  'Members discussed the colour of the new benches at length.',
  'The budget for the park renovation is 48,250 euros in total.',
  'Several residents asked about the opening of the playground.',
  'Nobody could agree on whether the fountain should stay.',
  'The meeting closed late with a vote planned for next spring.',
].join(' ');

describe('unit features and the learned scorer', () => {
  it('writes features in the order of FEATURE_NAMES, a missing one as 0', () => {
    const vector = featureVector({ numeric: 0.5, relevance: 1 });
    expect(vector).toHaveLength(FEATURE_NAMES.length);
    expect(vector[FEATURE_NAMES.indexOf('numeric')]).toBe(0.5);
    expect(vector[FEATURE_NAMES.indexOf('relevance')]).toBe(1);
    expect(vector.filter((v) => v !== 0)).toHaveLength(2);
  });

  it('scores with the logistic function of the weighted features', () => {
    expect(learnedScore(only('numeric', 0), featureVector({ numeric: 1 }))).toBe(0.5);
    const up = learnedScore(only('numeric', 2), featureVector({ numeric: 1 }));
    expect(up).toBeCloseTo(1 / (1 + Math.exp(-2)), 12);
  });

  it('scores on a linear link when the parameters say so, and JSON fields with their own weights', () => {
    const vector = featureVector({ relevance: 0.5, keyMatch: 1 });
    const linear = { ...only('relevance', 1), link: 'linear' as const, bias: 0.25 };
    expect(unitScore(linear, vector)).toBe(0.75);
    expect(unitScore({ ...linear, link: 'logistic' }, vector)).toBeCloseTo(1 / (1 + Math.exp(-0.75)), 12);
    const jsonWeights = featureVector({ keyMatch: 2 });
    expect(unitScore({ ...linear, jsonWeights }, vector, true)).toBe(2.25);
    expect(unitScore({ ...linear, jsonWeights }, vector, false)).toBe(0.75);
  });

  it('keeps the sentence that names the tool to call over a slightly more relevant one that names none', () => {
    const manual = [
      'Mobile data lets the phone reach the internet away from Wi-Fi.',
      'If mobile data is not working at all, the phone shows no signal.',
      'If data is not working, turn it back on with toggle_data.',
      'Roaming charges apply when the phone uses mobile data abroad.',
      'Data plans renew on the first day of each billing cycle.',
      'Customers can check their remaining data in the account page.',
    ].join(' ');
    const ask = { query: 'My mobile data is not working.', rules: { ...DEFAULT_EXTRACTIVE_RULES, ratio: 0.3 } };
    expect(compressExtractive(manual, ask).text).toBe('If data is not working, turn it back on with toggle_data.');
    // The same weights without the identifier's: the sentence that repeats more of the query wins.
    const withoutIds = [...HAND_SET_PARAMS.weights];
    withoutIds[FEATURE_NAMES.indexOf('identifier')] = 0;
    const blind = compressExtractive(manual, {
      ...ask,
      scoring: 'learned',
      params: { ...HAND_SET_PARAMS, weights: withoutIds },
    });
    expect(blind.text).toBe('If mobile data is not working at all, the phone shows no signal.');
  });

  it('writes the hand-set scorer as a parameter file, weighing only what it reads', () => {
    expect(checkParams(HAND_SET_PARAMS)).toBe(HAND_SET_PARAMS);
    const weighed = weighedFeatures(HAND_SET_PARAMS);
    expect([...weighed.text].sort()).toEqual([
      'container',
      'identifier',
      'lead',
      'linked',
      'protectedKinds',
      'relevance',
    ]);
    expect([...weighed.json].sort()).toEqual(['container', 'idInRecord', 'keyMatch', 'protectedKinds', 'relevance']);
    // The default scoring reads this file: the same weights passed as parameters give the same output.
    const rules = { ...DEFAULT_EXTRACTIVE_RULES, ratio: 0.3 };
    const byDefault = compressExtractive(PAGE, { query: 'playground opening', rules });
    const byFile = compressExtractive(PAGE, {
      query: 'playground opening',
      rules,
      scoring: 'learned',
      params: HAND_SET_PARAMS,
    });
    expect(byFile.text).toBe(byDefault.text);
    // Without relevance in the file, the query no longer picks the playground sentence.
    const blind = compressExtractive(PAGE, {
      query: 'playground opening',
      rules,
      scoring: 'learned',
      params: { ...HAND_SET_PARAMS, weights: featureVector({ lead: 0.4 }) },
    });
    expect(byDefault.text).toContain('playground');
    expect(blind.text).not.toContain('playground');
  });

  it('refuses parameters of another version or feature set', () => {
    expect(() => checkParams({ ...only('numeric', 1), version: FEATURES_VERSION + 1 })).toThrow(/version/u);
    expect(() => checkParams({ ...only('numeric', 1), features: [...FEATURE_NAMES].reverse() })).toThrow(/features/u);
    expect(() => checkParams({ ...only('numeric', 1), bias: Number.NaN })).toThrow(/finite/u);
    expect(() => checkParams({ ...only('numeric', 1), jsonWeights: [1] })).toThrow(/one finite weight/u);
    expect(() => checkParams({ ...only('numeric', 1), link: 'probit' as 'linear' })).toThrow(/link must be/u);
    expect(() =>
      compressExtractive(PAGE, {
        query: 'park',
        rules: DEFAULT_EXTRACTIVE_RULES,
        scoring: 'learned',
        params: { ...only('numeric', 1), weights: [1] },
      }),
    ).toThrow(ConfigurationError);
    expect(() =>
      compressExtractive(PAGE, {
        query: 'park',
        rules: DEFAULT_EXTRACTIVE_RULES,
        scoring: 'fitted' as 'learned',
      }),
    ).toThrow(/scoring must be/u);
  });

  it('ships parameters that fit this feature set and say what they were fitted on', () => {
    expect(checkParams(EXTRACTIVE_PARAMS)).toBe(EXTRACTIVE_PARAMS);
    expect(EXTRACTIVE_PARAMS.fittedOn.length).toBeGreaterThan(0);
  });

  it('chooses units by the given weights: the numeric sentence in or out with the sign of its weight', () => {
    const rules = { ...DEFAULT_EXTRACTIVE_RULES, ratio: 0.3 };
    const budgetSentence = 'The budget for the park renovation is 48,250 euros in total.';
    const favoured = compressExtractive(PAGE, {
      query: 'meeting',
      rules,
      scoring: 'learned',
      params: only('numeric', 4),
    });
    const shunned = compressExtractive(PAGE, {
      query: 'meeting',
      rules,
      scoring: 'learned',
      params: only('numeric', -4),
    });
    expect(favoured.text).toContain(budgetSentence);
    expect(shunned.text).not.toContain(budgetSentence);
    expect(shunned.outputTokens).toBeGreaterThan(0);
  });

  it('chooses JSON fields by the given weights: ids first when `identifier` weighs most', () => {
    const orders = Array.from({ length: 12 }, (_, order) => ({
      order_id: `#W${1000 + order}`,
      note: `delivered to the side door of the blue house number ${order}`,
    }));
    const input = JSON.stringify({ orders });
    const rules = { ...DEFAULT_EXTRACTIVE_RULES, ratio: 0.3 };
    const ids = compressExtractive(input, { query: 'door', rules, scoring: 'learned', params: only('identifier', 4) });
    const notes = compressExtractive(input, {
      query: 'door',
      rules,
      scoring: 'learned',
      params: only('identifier', -4),
    });
    const count = (text: string, re: RegExp): number => text.match(re)?.length ?? 0;
    expect(count(ids.text, /#W1\d{3}/gu)).toBeGreaterThan(count(notes.text, /#W1\d{3}/gu));
  });

  it('marks a field repeating an earlier key and value, and a repeated sentence, as `repeat`', () => {
    const at = FEATURE_NAMES.indexOf('repeat');
    const input = JSON.stringify({
      user: { user_id: 'u_1234', name: 'Ada Park' },
      accounts: [
        { account_id: 'acc_1', user_id: 'u_1234', name: 'Savings' },
        { account_id: 'acc_2', user_id: 'u_1234', name: 'Checking' },
      ],
    });
    let units: { text: string; features: number[] }[] = [];
    compressWithProbe(input, { query: 'accounts', rules: DEFAULT_EXTRACTIVE_RULES }, (u) => (units = [...u]));
    const repeats = units.filter((u) => u.features[at] === 1).map((u) => u.text);
    expect(repeats).toEqual(['user_id: "u_1234"', 'user_id: "u_1234"']);
    expect(units.filter((u) => u.text === 'user_id: "u_1234"')[0]?.features[at]).toBe(0);

    const said = 'The fee is waived for members. ';
    let sentences: { text: string; features: number[] }[] = [];
    compressWithProbe(
      `${said}Other text follows here. ${said}`.repeat(2),
      { query: 'fee', rules: DEFAULT_EXTRACTIVE_RULES },
      (u) => (sentences = [...u]),
    );
    const flagged = sentences.filter((u) => u.features[at] === 1);
    expect(flagged.length).toBeGreaterThan(0);
    expect(flagged.length).toBeLessThan(sentences.length);
  });
});

// One behaviour test per feature: weighted up, the units the compressor keeps hold more of it than weighted down.

const BEHAVIOUR_PAGE = [
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
  const options = { query, rules, scoring: 'learned' as const, params: only(feature, weight) };
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
    expect(keptMean(BEHAVIOUR_PAGE, query, feature, 8)).toBeGreaterThan(keptMean(BEHAVIOUR_PAGE, query, feature, -8));
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
        params: only('repeat', weight),
      }).text.split('"customer_id":"c_1001"').length - 1;
    expect(copies(8)).toBeGreaterThan(copies(-8));
  });

  it('heading: an outline unit comes only with a unit under it, so its own weight moves nothing', () => {
    const rules = { ...DEFAULT_EXTRACTIVE_RULES, ratio: 0.35 };
    const output = (weight: number) =>
      compressExtractive(BEHAVIOUR_PAGE, { query: 'park', rules, scoring: 'learned', params: only('heading', weight) })
        .text;
    expect(output(8)).toBe(output(-8));
  });

  it('json: a constant within one input, it moves scores against minScore only', () => {
    const rules = { ...DEFAULT_EXTRACTIVE_RULES, ratio: 0.9, minScore: 0.9 };
    const up = compressExtractive(RECORDS, { query: 'order', rules, scoring: 'learned', params: only('json', 8) });
    const down = compressExtractive(RECORDS, {
      query: 'order',
      rules,
      scoring: 'learned',
      params: only('json', -8),
    });
    expect(up.kept).toBeGreaterThan(down.kept);
    const prose = compressExtractive(BEHAVIOUR_PAGE, {
      query: 'park',
      rules,
      scoring: 'learned',
      params: only('json', 8),
    });
    expect(prose.kept).toBeLessThan(up.kept);
  });
});
