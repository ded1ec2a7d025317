import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEvent, encodeEvent } from './event-codec.js';
import type { SessionEvent } from './types.js';

const id = fc.oneof(
  fc.uuid().map((u) => u.toLowerCase()),
  fc.string({ maxLength: 30 }),
  fc.constant('~x'),
);
const json = fc.jsonValue({ maxDepth: 2 });
const common = {
  id,
  invocationId: id,
  author: fc.string({ maxLength: 10 }),
  timestamp: fc.integer({ min: 0, max: 2 ** 42 }),
};
const optional = {
  tokens: fc.dictionary(fc.constantFrom('o200k_base', 'cl100k_base'), fc.nat()),
  delta: fc.dictionary(fc.string({ maxLength: 8 }), json),
  reads: fc.dictionary(fc.string({ maxLength: 8 }), fc.nat()),
  increments: fc.dictionary(fc.string({ maxLength: 8 }), fc.integer()),
};
const event: fc.Arbitrary<SessionEvent> = fc.oneof(
  fc.record(
    { ...common, ...optional, kind: fc.constant('user'), text: fc.string() },
    {
      requiredKeys: ['id', 'invocationId', 'author', 'timestamp', 'kind', 'text'],
    },
  ),
  fc.record(
    {
      ...common,
      ...optional,
      kind: fc.constant('model'),
      text: fc.string(),
      toolCalls: fc.array(fc.record({ toolCallId: id, toolName: fc.string({ maxLength: 8 }), input: json })),
      usage: fc.record({ promptTokens: fc.nat(), completionTokens: fc.nat() }),
      finishReason: fc.constantFrom('stop', 'tool-calls'),
    },
    { requiredKeys: ['id', 'invocationId', 'author', 'timestamp', 'kind', 'text', 'toolCalls'] },
  ),
  fc.record(
    {
      ...common,
      ...optional,
      kind: fc.constant('tool-result'),
      toolCallId: id,
      toolName: fc.string({ maxLength: 8 }),
      output: fc.string(),
      isError: fc.boolean(),
    },
    {
      requiredKeys: [
        'id',
        'invocationId',
        'author',
        'timestamp',
        'kind',
        'toolCallId',
        'toolName',
        'output',
        'isError',
      ],
    },
  ),
  fc.record(
    {
      ...common,
      ...optional,
      kind: fc.constant('compaction'),
      fromEventId: id,
      toEventId: id,
      summary: fc.string(),
      guideline: fc.string(),
    },
    { requiredKeys: ['id', 'invocationId', 'author', 'timestamp', 'kind', 'fromEventId', 'toEventId', 'summary'] },
  ),
) as fc.Arbitrary<SessionEvent>;

describe('event codec', () => {
  it('reads back exactly the event it stored, in the compact form, on random events', () => {
    fc.assert(
      fc.property(event, (e) => {
        const text = encodeEvent(e);
        expect(text.startsWith('[')).toBe(true);
        // What the JSON object form reads back (JSON has no -0, for one).
        expect(decodeEvent(text)).toEqual(JSON.parse(JSON.stringify(e)));
      }),
      { numRuns: 500 },
    );
  });

  it('stores an event that does not fit the layout as its JSON object, and reads it back', () => {
    const odd = {
      kind: 'model',
      id: 'a',
      invocationId: 'i',
      author: 'x',
      timestamp: 1,
      text: '',
      toolCalls: [{ toolCallId: 'c', toolName: 't', input: 1, extra: true }],
    };
    const text = encodeEvent(odd as unknown as SessionEvent);
    expect(text.startsWith('{')).toBe(true);
    expect(JSON.parse(text)).toEqual(odd);
  });

  it('keeps a tool result with two UUIDs under twice the size of its output', () => {
    const output = JSON.stringify({ id: 'r1', status: 'delivered', total: 101, note: 'x'.repeat(120) });
    const e: SessionEvent = {
      kind: 'tool-result',
      id: randomUUID(),
      invocationId: randomUUID(),
      author: 'a',
      timestamp: Date.now(),
      toolCallId: 'call-1',
      toolName: 'record',
      output,
      isError: false,
      tokens: { o200k_base: 40 },
    };
    const compact = Buffer.byteLength(encodeEvent(e));
    expect(compact).toBeLessThan(Buffer.byteLength(JSON.stringify(e)));
    expect(compact).toBeLessThan(2 * Buffer.byteLength(output));
  });

  it('refuses a compact row that does not validate, naming the field', () => {
    expect(() => decodeEvent('["r","a","i","x",1,null,"c","t",5,0]')).toThrow(/output/);
    expect(() => decodeEvent('["?","a"]')).toThrow(/kind code/);
  });
});
