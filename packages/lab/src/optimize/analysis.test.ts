import { describe, expect, it } from 'vitest';
import {
  analyzePair,
  compressionAnalysis,
  contrastivePairs,
  missingValues,
  openMapNormalizer,
  weighFields,
} from './analysis.js';
import type { FieldStats } from './field-diff.js';
import type { EpisodeTrace } from './trace.js';

const stats = (partial: Partial<FieldStats>): FieldStats => ({
  lost: 0,
  kept: 0,
  keptTokens: 0,
  lostValues: [],
  keptValues: [],
  ...partial,
});

function trace(taskId: string, over: Partial<EpisodeTrace> = {}): EpisodeTrace {
  return {
    taskId,
    mode: 'compressed',
    guidelineHash: 'g',
    success: true,
    answer: 'Done.\nAnswer: 1',
    peakPromptTokens: 100,
    cumulativePromptTokens: 300,
    compressorTokens: 0,
    costTokens: 300,
    agentCalls: 3,
    toolCalls: [],
    compressorCalls: 1,
    compressedInputTokens: 100,
    compressedOutputTokens: 50,
    fields: {},
    invented: 0,
    excerpts: [],
    promptValues: null,
    ...over,
  };
}

describe('contrastivePairs', () => {
  it('is exactly the tasks that succeed uncompressed and fail compressed', () => {
    const tasks = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, prompt: id }));
    const uncompressedRuns = new Map([
      ['a', trace('a', { mode: 'uncompressed' })],
      ['b', trace('b', { mode: 'uncompressed' })],
      ['c', trace('c', { mode: 'uncompressed', success: false })],
      ['d', trace('d', { mode: 'uncompressed' })],
    ]);
    const compressedRuns = new Map([
      ['a', trace('a', { success: false })],
      ['b', trace('b')],
      ['c', trace('c', { success: false })],
      ['e', trace('e', { success: false })],
    ]);
    expect(contrastivePairs(tasks, uncompressedRuns, compressedRuns).map((p) => p.task.id)).toEqual(['a']);
  });
});

describe('analyzePair', () => {
  const task = { id: 't', prompt: 'p' };
  const uncompressed = trace('t', {
    mode: 'uncompressed',
    toolCalls: [
      { toolName: 'get_user', input: '{"user_id":"u1"}' },
      { toolName: 'get_order', input: '{"order_id":"#W1"}' },
    ],
    promptValues: ['54.04', 'w1'],
  });

  it('finds lost facts and variables, re-discovery and drift, naming fields only', () => {
    const compressed = trace('t', {
      success: false,
      answer: 'I cannot tell.',
      toolCalls: [
        { toolName: 'get_user', input: '{"user_id":"u1"}' },
        { toolName: 'get_user', input: '{"user_id":"u1"}' },
      ],
      fields: {
        'items.[].price': stats({ lost: 1, lostValues: ['54.04'] }),
        orders: stats({ lost: 1, lostValues: ['w1'] }),
        'address.zip': stats({ lost: 1, lostValues: ['19122'] }),
      },
      promptValues: [],
    });
    const feedback = analyzePair({ task, uncompressed, compressed }, { facts: ['54.04', '19122'], forbidden: [] });
    expect(feedback.rootCauses).toEqual([
      'missing-critical-fact',
      'lost-variable',
      'unnecessary-rediscovery',
      'instruction-drift',
    ]);
    expect(feedback.lostFacts).toEqual([
      'items.[].price (held a fact of the gold answer)',
      'orders (held a value a later tool call used)',
    ]);
    expect(feedback.divergence).toBe(
      'At tool call 2, the uncompressed run called get_order; the compressed run called get_user again with the same arguments (a repeat).',
    );
    expect(JSON.stringify(feedback)).not.toMatch(/54\.04|19122|W1\b/);
  });

  it('does not blame a field whose value the last request still held elsewhere', () => {
    const compressed = trace('t', {
      success: false,
      fields: { 'items.[].price': stats({ lost: 1, lostValues: ['54.04'] }) },
      promptValues: ['54.04', 'w1'],
    });
    expect(missingValues({ uncompressed, compressed }, { facts: ['54.04'], forbidden: [] }).size).toBe(0);
    expect(analyzePair({ task, uncompressed, compressed }, { facts: ['54.04'], forbidden: [] }).rootCauses).toEqual([
      'other',
    ]);
  });
});

describe('weighFields', () => {
  it('weighs fields lost in failures above those lost as often in successes', () => {
    const uncompressedTrace = trace('a', { mode: 'uncompressed', promptValues: ['9'] });
    const failed = trace('a', {
      success: false,
      promptValues: [],
      fields: {
        'items.[].price': stats({ lost: 1, lostValues: ['9'] }),
        email: stats({ lost: 1, lostValues: ['x@y'] }),
      },
    });
    const ok = trace('b', { fields: { email: stats({ lost: 1 }) } });
    const weights = weighFields(
      [{ task: { id: 'a', prompt: '' }, uncompressed: uncompressedTrace, compressed: failed }],
      [ok],
      () => ({
        facts: ['9'],
        forbidden: [],
      }),
    );
    expect(weights.map((w) => w.rule)).toEqual(['items.price']);
    expect(weights[0]).toMatchObject({ factLoss: 1, lostInFailed: 1, lostInSucceeded: 0, weight: 3 });
  });
});

describe('openMapNormalizer', () => {
  it('folds attribute names into * and leaves fixed schemas alone', () => {
    const fields: Record<string, FieldStats> = {
      'items.[].options.color': stats({ kept: 20 }),
      'items.[].options.size': stats({ kept: 2 }),
      'items.[].options.armrest': stats({ kept: 1 }),
      'items.[].options.material': stats({ kept: 1 }),
      'address.address1': stats({ kept: 5 }),
      'address.city': stats({ kept: 5 }),
      'address.zip': stats({ kept: 5 }),
      'address.state': stats({ kept: 5 }),
    };
    const normalize = openMapNormalizer([trace('a', { fields })]);
    expect(normalize('items.[].options.armrest')).toBe('items.[].options.*');
    expect(normalize('address.city')).toBe('address.city');
  });
});

describe('compressionAnalysis', () => {
  it('drops what was never needed, as generally as it safely can, and keeps ids, states and facts', () => {
    const fields: Record<string, FieldStats> = {
      'address.address1': stats({ kept: 2, keptTokens: 20, keptValues: ['1 main st'] }),
      'address.city': stats({ kept: 2, keptTokens: 10, keptValues: ['springfield'] }),
      'address.zip': stats({ kept: 2, keptTokens: 4, keptValues: ['19122'] }),
      'user.email': stats({ kept: 1, keptTokens: 8, keptValues: ['a@b.c'] }),
      'payment.payment_method_id': stats({ kept: 1, keptTokens: 5, keptValues: ['pm_1'] }),
      'orders.[].status': stats({ kept: 8, keptTokens: 16, keptValues: ['pending', 'delivered'] }),
      'orders.[].note': stats({ kept: 1, keptTokens: 30, keptValues: ['fragile'] }),
    };
    const analysis = compressionAnalysis(
      [{ compressed: trace('a', { fields, answer: 'Answer: fragile' }), values: { facts: ['19122'], forbidden: [] } }],
      {
        ratio: 1,
        unit: 'auto',
        keepPatterns: [],
        dropPatterns: [],
        alwaysKeep: { numbers: true, identifiers: true, dates: true, urls: true, errors: true, headers: true },
        jsonKeepFields: [],
        jsonDropFields: [],
      },
    );
    // address.zip holds a fact, so `address` as a whole is not safe to drop; `user` holds only email.
    expect(analysis.unneeded.map((u) => u.rule)).toEqual(['address.address1', 'address.city', 'user']);
    expect(analysis.needed).toEqual(
      ['address.zip', 'orders.note', 'payment.payment_method_id', 'orders.status'].sort(),
    );
  });
});
