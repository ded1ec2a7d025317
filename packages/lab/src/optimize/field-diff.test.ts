import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compressExtractive } from '../../../pagewise/src/compression/extractive.js';
import { DEFAULT_OBSERVATION_RULES } from '../../../pagewise/src/compression/rules.js';
import {
  canonicalValue,
  containsWord,
  escapeRegExp,
  diffCompression,
  jsonLeaves,
  lineKind,
  mergeFieldStats,
  parentKeys,
  ruleForPath,
  ruleMatchesPath,
  splitJson,
  type FieldStats,
} from './field-diff.js';

describe('jsonLeaves', () => {
  it('generalizes array indices and id-like keys, never a field name', () => {
    const leaves = jsonLeaves({
      order_id: '#W1',
      items: [{ price: 54.04 }, { price: 10 }],
      variants: { '1008948180': { available: true }, '2222222222': { available: false } },
      payment_methods: { credit_card_9513926: { brand: 'visa' } },
      address: { address1: '1 Main St', zip: '12345' },
    });
    expect(leaves.map((l) => l.path)).toEqual([
      'order_id',
      'items.[].price',
      'items.[].price',
      'variants.*.available',
      'variants.*.available',
      'payment_methods.*.brand',
      'address.address1',
      'address.zip',
    ]);
    expect(leaves.map((l) => l.value)).toContain('w1');
  });

  it('reads numbers and amounts written as text alike', () => {
    expect(canonicalValue(54)).toBe('54');
    expect(canonicalValue(54.0)).toBe('54');
    expect(canonicalValue('54.00')).toBe('54');
    expect(canonicalValue(5404 / 100)).toBe('54.04');
    expect(canonicalValue(' #W0000001 ')).toBe('w0000001');
  });
});

describe('splitJson', () => {
  it('finds the JSON quoted inside a transcript and keeps the text around it', () => {
    const { values, rest } = splitJson('[result of get_order] {"a": {"b": 1}} then [call x] {"c": 2}');
    expect(values).toEqual([{ a: { b: 1 } }, { c: 2 }]);
    expect(rest).toContain('[result of get_order]');
    expect(rest).not.toContain('"a"');
  });
});

describe('diffCompression', () => {
  it('counts fields named __proto__ or constructor under their own paths, touching no prototype', () => {
    const diff = diffCompression('{"__proto__": "a1", "constructor": "b2", "x": "c3"}', '{"x": "c3"}');
    expect(Object.getPrototypeOf(diff.fields)).toBe(Object.prototype);
    expect(Object.keys(diff.fields)).toEqual(['__proto__', 'constructor', 'x']);
    expect(diff.fields['__proto__']).toMatchObject({ lost: 1, kept: 0, lostValues: ['a1'] });
    expect(diff.fields['constructor']).toMatchObject({ lost: 1, kept: 0, lostValues: ['b2'] });
    expect(diff.fields['x']).toMatchObject({ lost: 0, kept: 1 });
    const merged: Record<string, FieldStats> = {};
    mergeFieldStats(merged, diff.fields);
    mergeFieldStats(merged, diff.fields);
    expect(merged['__proto__']).toMatchObject({ lost: 2, lostValues: ['a1'] });
    expect(Object.hasOwn(Object.prototype, 'lost')).toBe(false);
    expect(Object.hasOwn(Object, 'lost')).toBe(false);
  });

  it('counts each kept and lost leaf, as a multiset', () => {
    const input = JSON.stringify({
      orders: [
        { status: 'pending', price: 1 },
        { status: 'pending', price: 2 },
      ],
    });
    const output = JSON.stringify({ orders: [{ status: 'pending' }] });
    const { fields, invented } = diffCompression(input, output);
    expect(fields['orders.[].status']).toMatchObject({ kept: 1, lost: 1 });
    expect(fields['orders.[].price']).toMatchObject({ kept: 0, lost: 2, lostValues: ['1', '2'] });
    expect(invented).toBe(0);
  });

  it('falls back to the text when the output holds no JSON, and counts invented values', () => {
    const input = JSON.stringify({ order_id: '#W7', price: 12.5 });
    expect(diffCompression(input, 'order W7 costs a lot').fields['price']).toMatchObject({ lost: 1 });
    expect(diffCompression(input, 'order W7 costs a lot').fields['order_id']).toMatchObject({ kept: 1 });
    expect(diffCompression(input, JSON.stringify({ order_id: '#W7', price: 99 })).invented).toBe(1);
  });

  it('counts lost text lines by their shape, never by their words', () => {
    const { fields } = diffCompression(
      'Status: shipped on the 4th of May\nA long line of prose that is dropped here.',
      'Status: shipped on the 4th of May',
    );
    expect(fields['line:key-value']).toMatchObject({ kept: 1, lost: 0 });
    expect(fields['line:prose']).toMatchObject({ lost: 1 });
    expect(lineKind('## Heading')).toBe('heading');
    expect(lineKind('- item one')).toBe('bullet');
    expect(lineKind('Error: not found')).toBe('error');
  });
});

describe('rules from paths', () => {
  it('names a field by its last keys up to a concrete one', () => {
    expect(ruleForPath('orders.[].items.[].price')).toBe('items.price');
    expect(ruleForPath('product.variants.*.available')).toBe('variants.*.available');
    expect(ruleForPath('status')).toBe('status');
    expect(ruleForPath('items.[].options.*')).toBe('items.options');
    expect(ruleForPath('line:prose')).toBeUndefined();
    expect(parentKeys('user.address.zip')).toEqual(['address', 'user']);
  });

  it('matches paths the way the extractive compressor matches keys', () => {
    const record = {
      items: [{ name: 'Mug', price: 12.5, note: 'x '.repeat(60) }],
      variants: { '123456': { available: true, price: 3 } },
    };
    const text = JSON.stringify(record, null, 2);
    for (const path of ['items.[].price', 'variants.*.available']) {
      const rule = ruleForPath(path) as string;
      expect(ruleMatchesPath(rule, path)).toBe(true);
      // Keeping the rule keeps the field even at a tiny budget.
      const kept = compressExtractive(text, {
        query: '',
        rules: { ...DEFAULT_OBSERVATION_RULES, ratio: 0.2, jsonKeepFields: [rule] },
      }).text;
      expect(diffCompression(text, kept).fields[path]).toMatchObject({ lost: 0 });
    }
    expect(ruleMatchesPath('items.price', 'variants.*.price')).toBe(false);
  });

  it('matches whole words only', () => {
    expect(containsWord('answer: mug, $12.50', '12.50')).toBe(true);
    expect(containsWord('payments were made', 'men')).toBe(false);
    expect(containsWord('total 54.04', '54')).toBe(false);
  });

  it('matches exactly where the word-boundary pattern matches (property test)', () => {
    const reference = (text: string, word: string) =>
      new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(word)}(?![\\p{L}\\p{N}]|\\.\\d)`, 'u').test(text);
    const piece = fc.constantFrom('a', 'é', '1', '.', ' ', '-', '𝐀', '12', 'mug', '$', ',', '\n');
    const text = fc.array(piece, { maxLength: 12 }).map((p) => p.join(''));
    fc.assert(
      fc.property(text, text, (haystack, needle) => {
        fc.pre(needle.length > 0);
        expect(containsWord(haystack, needle)).toBe(reference(haystack, needle));
      }),
      { numRuns: 3000 },
    );
  });
});
