import { describe, expect, it } from 'vitest';
import {
  DEFAULT_HISTORY_GUIDELINE,
  DEFAULT_OBSERVATION_GUIDELINE,
} from '../../../pagewise/src/compression/default-guidelines.js';
import { checkCandidate, forbiddenValues, leakedValues } from './candidate-check.js';
import { retailTaskValues } from '../scenarios/retail/task-values.js';

describe('leakedValues', () => {
  it('finds whole values, ids with or without their #, and ignores small counts', () => {
    const forbidden = ['#W2611340', 'Water Bottle', '54.04', '12', 'Yusuf Rossi'];
    expect(leakedValues('Keep order W2611340 and the water bottle.', forbidden)).toEqual(['#W2611340', 'Water Bottle']);
    expect(leakedValues('amounts like 54.04 matter; keep 12 fields', forbidden)).toEqual(['54.04']);
    expect(leakedValues('keep 154.045 and W26113401', forbidden)).toEqual([]);
    expect(leakedValues('the customer Yusuf Rossi', forbidden)).toEqual(['Yusuf Rossi']);
  });

  it('takes the gold values, ids and names of a retail task', () => {
    const task = {
      id: 't',
      prompt:
        'Look up these customers by name and zip code: Yusuf Rossi (zip 19122).\nQuestion: what is the most expensive single item they ever bought, ignoring cancelled orders? End your reply with one line: Answer: <product name>, $<price paid>, order <order id>',
      gold: { template: 'most-expensive-item', orderId: '#W2611340', productName: 'Water Bottle', priceCents: 5404 },
    };
    const values = retailTaskValues(task);
    expect(values.forbidden).toEqual(
      expect.arrayContaining(['Yusuf Rossi', '19122', '#W2611340', 'Water Bottle', '54.04']),
    );
    expect(values.facts).toEqual(
      expect.arrayContaining(['yusuf', 'rossi', '19122', 'w2611340', 'water bottle', '54.04']),
    );
    expect(values.forbidden).not.toContain('most-expensive-item');
  });
});

describe('checkCandidate', () => {
  const incumbent = DEFAULT_OBSERVATION_GUIDELINE;

  it('accepts a rule edit that keeps the template', () => {
    expect(
      checkCandidate({ ...incumbent, rules: { ...incumbent.rules, ratio: 1 } }, incumbent, ['#W2611340']),
    ).toBeUndefined();
  });

  it('refuses a candidate that drops a placeholder', () => {
    const template = incumbent.template.replace('{{task}}', 'the task');
    expect(checkCandidate({ ...incumbent, template }, incumbent, [])).toMatch(/drops the placeholder \{\{task\}\}/);
  });

  it('refuses a candidate holding a training value, in its template, rules or description', () => {
    expect(
      checkCandidate({ ...incumbent, template: `${incumbent.template}\nAlways keep order #W2611340.` }, incumbent, [
        '#W2611340',
      ]),
    ).toMatch(/task-specific value.*#W2611340/);
    expect(
      checkCandidate({ ...incumbent, rules: { ...incumbent.rules, keepPatterns: ['Water Bottle'] } }, incumbent, [
        'Water Bottle',
      ]),
    ).toMatch(/task-specific/);
    expect(checkCandidate({ ...incumbent, description: 'tuned on 54.04' }, incumbent, ['54.04'])).toMatch(
      /task-specific/,
    );
  });

  it('refuses a candidate for the other compressor', () => {
    expect(checkCandidate(DEFAULT_HISTORY_GUIDELINE, incumbent, [])).toMatch(/targets history/);
  });

  it('exempts values the starting guideline already holds', () => {
    // "status" is a word of the default template, not something copied from a task.
    expect(forbiddenValues([['status', '#W1234567']], incumbent)).toEqual(['#W1234567']);
  });
});
