import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventSchema, parseStoredEvent, parseStoredState, parseStoredValue } from './event-schema.js';

const KINDS = ['user', 'model', 'tool-result', 'transfer', 'escalate', 'compaction', 'other', 'toString'];
const KEYS = [
  'kind',
  'id',
  'invocationId',
  'author',
  'timestamp',
  'delta',
  'reads',
  'increments',
  'tokens',
  'text',
  'toolCalls',
  'usage',
  'finishReason',
  'toolCallId',
  'toolName',
  'output',
  'isError',
  'from',
  'to',
  'reason',
  'fromEventId',
  'toEventId',
  'summary',
  'guideline',
  'extra',
  'constructor',
];
const scalar = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -3, max: 3 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -5, max: 5 }),
  fc.boolean(),
  fc.constant(null),
);
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 3 }), tie('value'), { maxKeys: 3 }),
  ),
})).value;
const toolCall = fc.record(
  {
    toolCallId: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()),
    toolName: fc.string({ maxLength: 3 }),
    input: json,
    x: json,
  },
  { requiredKeys: [] },
);
const usage = fc.record(
  {
    promptTokens: fc.oneof(fc.integer(), fc.string()),
    completionTokens: fc.integer(),
    providerPromptTokens: fc.oneof(fc.integer(), fc.string()),
    other: fc.integer(),
  },
  { requiredKeys: [] },
);
const fieldValue = fc.oneof(
  json,
  fc.constantFrom(...KINDS),
  fc.array(toolCall, { maxLength: 3 }),
  usage,
  fc.dictionary(
    fc.string({ maxLength: 3 }),
    fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double({ noNaN: true, noDefaultInfinity: true }), json),
    { maxKeys: 3 },
  ),
);

/** Events that are mostly well-formed: each kind's fields, some missing, some of the wrong type, some extra. */
const candidate = fc
  .tuple(fc.constantFrom(...KINDS), fc.dictionary(fc.constantFrom(...KEYS), fieldValue, { maxKeys: 8 }), fc.boolean())
  .map(([kind, fields, complete]) => {
    const base: Record<string, unknown> = complete
      ? {
          kind,
          id: 'e',
          invocationId: 'i',
          author: 'a',
          timestamp: 1,
          text: 't',
          toolCalls: [],
          toolCallId: 'c',
          toolName: 'n',
          output: 'o',
          isError: false,
          from: 'a',
          to: 'b',
          reason: 'r',
          fromEventId: 'x',
          toEventId: 'y',
          summary: 's',
        }
      : { kind };
    // A complete record of one kind carries only that kind's fields, so it can be exact.
    const own = eventSchema.options.find((o) => o.shape.kind.value === kind);
    if (own) for (const key of Object.keys(base)) if (!(key in own.shape)) delete base[key];
    return { ...base, ...fields };
  });

/** Model events with well-formed tool calls, some carrying an extra key, some missing one. */
const modelEvent = fc.record({
  kind: fc.constant('model'),
  id: fc.string({ maxLength: 3 }),
  invocationId: fc.string({ maxLength: 3 }),
  author: fc.string({ maxLength: 3 }),
  timestamp: fc.integer(),
  text: fc.string({ maxLength: 3 }),
  toolCalls: fc.array(
    fc.record(
      { toolCallId: fc.string({ maxLength: 3 }), toolName: fc.string({ maxLength: 3 }), input: json, x: json },
      { requiredKeys: ['toolCallId', 'toolName'] },
    ),
    { maxLength: 3 },
  ),
});

describe('parseStoredEvent', () => {
  it('answers exactly as the zod schema does, for valid, invalid and extra-key records', () => {
    fc.assert(
      fc.property(candidate, (value) => {
        const text = JSON.stringify(value);
        const reference = eventSchema.safeParse(JSON.parse(text));
        if (reference.success) expect(parseStoredEvent(text)).toStrictEqual(reference.data);
        else expect(() => parseStoredEvent(text)).toThrow();
      }),
      { numRuns: 3000 },
    );
  });

  it('answers as the zod schema does for model events and their tool calls', () => {
    fc.assert(
      fc.property(modelEvent, (value) => {
        const text = JSON.stringify(value);
        const reference = eventSchema.safeParse(JSON.parse(text));
        if (reference.success) expect(parseStoredEvent(text)).toStrictEqual(reference.data);
        else expect(() => parseStoredEvent(text)).toThrow();
      }),
      { numRuns: 1000 },
    );
  });

  it('returns an exact record as parsed, and strips keys the schema does not know', () => {
    const exact = {
      kind: 'user',
      id: 'e',
      invocationId: 'i',
      author: 'a',
      timestamp: 1,
      text: 'hi',
      delta: { a: [1, { b: null }] },
    };
    expect(parseStoredEvent(JSON.stringify(exact))).toStrictEqual(exact);
    expect(parseStoredEvent(JSON.stringify({ ...exact, extra: 1 }))).toStrictEqual(exact);
    expect(() => parseStoredEvent(JSON.stringify({ ...exact, reads: { k: -1 } }))).toThrow();
  });

  it('refuses token counts and read versions that are not safe non-negative integers, as zod does', () => {
    const exact = { kind: 'user', id: 'e', invocationId: 'i', author: 'a', timestamp: 1, text: 't' };
    for (const bad of [2 ** 60, 1e300, -1, 1.5]) {
      for (const key of ['tokens', 'reads']) {
        const text = JSON.stringify({ ...exact, [key]: { o200k_base: bad } });
        expect(() => eventSchema.parse(JSON.parse(text))).toThrow();
        expect(() => parseStoredEvent(text)).toThrow();
      }
    }
    const counted = { ...exact, tokens: { o200k_base: 12, cl100k_base: 0 } };
    expect(parseStoredEvent(JSON.stringify(counted))).toStrictEqual(counted);
  });
});

describe('parseStoredState and parseStoredValue', () => {
  it('keep a key named __proto__ as a field, at the top and nested', () => {
    const text = '{"__proto__": {"__proto__": 1, "x": [2]}, "a": 2}';
    for (const parsed of [parseStoredState(text), parseStoredValue(text)] as Record<string, unknown>[]) {
      expect(parsed).toStrictEqual(JSON.parse(text));
      expect(Object.keys(parsed)).toEqual(['__proto__', 'a']);
      expect(Object.keys(parsed['__proto__'] as object)).toEqual(['__proto__', 'x']);
      expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    }
    expect(parseStoredValue('[{"__proto__": 1}]')).toStrictEqual(JSON.parse('[{"__proto__": 1}]'));
  });

  it('refuse what is not a state object or a JSON value', () => {
    expect(() => parseStoredState('[1]')).toThrow();
    expect(() => parseStoredState('"text"')).toThrow();
    expect(parseStoredValue('"text"')).toBe('text');
    expect(parseStoredState('{"a": {"b": null}}')).toStrictEqual({ a: { b: null } });
  });
});
