/**
 * Learning rules from traces: value shapes and field keys name kinds, never values; a rule is kept only
 * when the held-out replay loses fewer used values at no more tokens.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guidelineText } from '../optimize/candidate-check.js';
import { parseTraces } from './import.js';
import { fieldRule, learnFromTraces, valueShape } from './learn.js';

describe('valueShape and fieldRule', () => {
  it('turn values and paths into kinds', () => {
    expect(valueShape('submit_dispute_0589')).toBe('\\b[a-z]+_[a-z]+_\\d{4}\\b');
    expect(valueShape('txn_8d1aa1219382')).toBe('\\b[a-z]+_[a-z\\d]{12}\\b');
    expect(valueShape('$842.15')).toBe('\\$\\d{3}\\.\\d{2}\\b');
    expect(new RegExp(valueShape('$842.15')!, 'u').test('paid $311.40 on')).toBe(true);
    expect(valueShape('Gold Rewards Card')).toBeUndefined();
    expect(fieldRule('orders.[].items.[].item_id')).toBe('items.item_id');
    expect(fieldRule('payment_methods.[].id')).toBe('payment_methods.id');
    expect(fieldRule('*.status')).toBe('status');
    expect(fieldRule('text:id')).toBeUndefined();
  });
});

describe('learnFromTraces', () => {
  it('keeps a rule that recovers held-out values at no more tokens, and names no value', async () => {
    const [line] = (await readFile(path.join(import.meta.dirname, 'testdata', 'openai-chat.jsonl'), 'utf8')).split(
      '\n',
    );
    // Eight customers of the same shop: the same conversation with other ids and amounts.
    const records = Array.from({ length: 8 }, (_, index) =>
      line!
        .replaceAll('gift_card_9911020', `gift_card_99110${20 + index}`)
        .replaceAll('credit_card_4421397', `credit_card_44213${10 + index}`)
        .replaceAll('"id": "return-yoga-mat"', `"id": "customer-${index}"`),
    );
    const traces = parseTraces(records.join('\n'), 'shop.jsonl');
    const result = await learnFromTraces(traces, { holdout: 0.5 });
    expect(result.holdout).toHaveLength(4);
    expect(result.before.lost).toBeGreaterThan(0);
    const accepted = result.rules.filter((r) => r.accepted);
    expect(accepted.length).toBeGreaterThan(0);
    expect(result.after.lost).toBeLessThan(result.before.lost);
    expect(result.after.cumulativeTokens).toBeLessThanOrEqual(result.before.cumulativeTokens);
    expect(result.guideline.version).toBe(2);
    // Every rule was learned from training traces only, and the guideline holds none of their values.
    for (const rule of result.rules) for (const id of rule.learnedFrom.traces) expect(result.train).toContain(id);
    const text = guidelineText(result.guideline).toLowerCase();
    for (const value of ['gift_card_9911020', 'mei_kovacs_8020', '#w4846744', 'credit_card_4421397'])
      expect(text).not.toContain(value);
  });
});
