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
      fc.property(event, (generated) => {
        const text = encodeEvent(generated);
        expect(text.startsWith('[')).toBe(true);
        // What the JSON object form reads back (JSON has no -0, for one).
        expect(decodeEvent(text)).toEqual(JSON.parse(JSON.stringify(generated)));
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
    const resultEvent: SessionEvent = {
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
    const compact = Buffer.byteLength(encodeEvent(resultEvent));
    expect(compact).toBeLessThan(Buffer.byteLength(JSON.stringify(resultEvent)));
    expect(compact).toBeLessThan(2 * Buffer.byteLength(output));
  });

  it('packs a UUID as its 16 bytes in base64url and leaves any other id as it is, as the stored form always has', () => {
    // The stored form defined by Node's own conversions; rows already written hold it.
    const reference = (value: string): string =>
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)
        ? `~${Buffer.from(value.replaceAll('-', ''), 'hex').toString('base64url')}`
        : value;
    const nearUuid = fc
      .uuid()
      .chain((uuid) =>
        fc
          .tuple(fc.nat(35), fc.constantFrom('-', 'g', 'A', 'F', '0', 'é', '\u0130', '~'))
          .map(([at, c]) => (uuid.slice(0, at) + c + uuid.slice(at + 1)).toLowerCase()),
      );
    const ids = fc.oneof(
      fc.uuid(),
      fc.uuid().map((u) => u.toLowerCase()),
      nearUuid,
      fc.string({ maxLength: 40 }),
    );
    fc.assert(
      fc.property(ids, ids, (eventId, invocationId) => {
        const stored = JSON.parse(
          encodeEvent({ kind: 'user', id: eventId, invocationId, author: 'a', timestamp: 1, text: '' }),
        ) as string[];
        for (const [column, value] of [
          [1, eventId],
          [2, invocationId],
        ] as const)
          expect(stored[column]).toBe(value.startsWith('~') ? `~${value}` : reference(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('packs the invocation id of each event, also when it changes between events', () => {
    const [firstId, secondId] = [randomUUID(), randomUUID()];
    const invocationIds = [firstId, firstId, secondId, 'plain', firstId, '~x', secondId];
    const stored = invocationIds.map(
      (invocationId) =>
        JSON.parse(encodeEvent({ kind: 'user', id: 'e', invocationId, author: 'a', timestamp: 1, text: '' }))[2],
    );
    expect(
      stored.map((packed: string) => decodeEvent(`["u","e",${JSON.stringify(packed)},"a",1,null,""]`).invocationId),
    ).toEqual(invocationIds);
    expect(stored[0]).toBe(stored[4]);
    expect(stored[0]).not.toBe(stored[2]);
  });

  it('refuses a compact row that does not validate, naming the field', () => {
    expect(() => decodeEvent('["r","a","i","x",1,null,"c","t",5,0]')).toThrow(/output/);
    expect(() => decodeEvent('["?","a"]')).toThrow(/kind code/);
  });
});
