import { describe, expect, it } from 'vitest';
import {
  DEFAULT_HISTORY_GUIDELINE,
  DEFAULT_OBSERVATION_GUIDELINE,
} from '../../../pagewise/src/compression/default-guidelines.js';
import { checkCandidate, dataValues, forbiddenValues, leakedValues, runValues } from './candidate-check.js';
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

describe('values of the training runs', () => {
  it('are ids, codes, numbers of four digits or more, amounts, dates and emails', () => {
    expect(dataValues('Order #W7736708 of yusuf.rossi@example.com: 2 items, $154.99.')).toEqual([
      '#W7736708',
      'yusuf.rossi@example.com',
      '154.99',
    ]);
    expect(dataValues('shipped 2024-05-01 with code K9100Q, phone 555-123-4567, 1200 units')).toEqual([
      '2024-05-01',
      'K9100Q',
      '555-123-4567',
      '1200',
    ]);
  });

  it('are not words, field names or short numbers a guideline may say', () => {
    const generic =
      'Keep 3 items and the top-10 ids; ratio 0.5, minScore 0.75; HTTP/1.1 404 errors; utf8, base64 and sha256 bodies; ' +
      'keep variants.*.item_id, order_id, payment_history.amount; at most 200 tokens; step 12 of 30.';
    expect(dataValues(generic)).toEqual([]);
  });

  it('are refused in a candidate, with where they were seen; generic revisions pass', () => {
    const incumbent = DEFAULT_OBSERVATION_GUIDELINE;
    const seen = runValues(
      {
        traces: ['get_order_details {"order_id":"#W7736708"}', 'Answer: Water Bottle, $54.04, order #W2611340'],
        feedback: ['{"lostFacts":["the order id #W7736708","the email a.b@shop.example"]}'],
      },
      incumbent,
    );
    expect(seen).toEqual([
      { value: '#W7736708', seenIn: 'a training trace' },
      { value: '54.04', seenIn: 'a training trace' },
      { value: '#W2611340', seenIn: 'a training trace' },
      { value: 'a.b@shop.example', seenIn: 'the feedback' },
    ]);
    const withTemplate = (line: string) => ({ ...incumbent, template: `${incumbent.template}\n${line}` });
    expect(checkCandidate(withTemplate('Always keep order #W7736708.'), incumbent, [], seen)).toMatch(
      /holds 1 value of the training runs \("#W7736708", seen in a training trace\); a guideline that names the training data/,
    );
    expect(checkCandidate(withTemplate('Keep W7736708 and a.b@shop.example.'), incumbent, [], seen)).toMatch(
      /holds 2 values of the training runs .*seen in a training trace and the feedback/,
    );
    // A keep pattern names the amount too, escaped for a regex or not.
    for (const pattern of ['54.04', '54\\.04'])
      expect(
        checkCandidate({ ...incumbent, rules: { ...incumbent.rules, keepPatterns: [pattern] } }, incumbent, [], seen),
      ).toMatch(/"54.04"/);
    expect(
      checkCandidate(
        withTemplate('Keep every order id (like #W followed by 7 digits), the 3 latest items and amounts in dollars.'),
        incumbent,
        [],
        seen,
      ),
    ).toBeUndefined();
  });

  it('exempt those the starting guideline holds', () => {
    const start = {
      ...DEFAULT_OBSERVATION_GUIDELINE,
      template: `${DEFAULT_OBSERVATION_GUIDELINE.template}\nKeep 2048.`,
    };
    expect(runValues({ traces: ['2048 rows, order #W1234567'], feedback: [] }, start)).toEqual([
      { value: '#W1234567', seenIn: 'a training trace' },
    ]);
  });
});
