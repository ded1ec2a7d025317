import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEvent, encodeEvent, encodeEventBody, uuidFromBytes, uuidToBytes } from './event-codec.js';
import type { ModelEvent, SessionEvent, ToolResultEvent } from './types.js';

const id = fc.oneof(
  fc.uuid().map((u) => u.toLowerCase()),
  fc.string({ maxLength: 30 }),
  fc.constant('~x'),
);
const json = fc.jsonValue({ maxDepth: 2 });
/** Any text: quotes, line breaks, NUL and unpaired surrogates included. */
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('{\n  "a": "b"\n}', 'x\u0000"y"'));
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
    { ...common, ...optional, kind: fc.constant('user'), text },
    {
      requiredKeys: ['id', 'invocationId', 'author', 'timestamp', 'kind', 'text'],
    },
  ),
  fc.record(
    {
      ...common,
      ...optional,
      kind: fc.constant('model'),
      text,
      toolCalls: fc.array(fc.record({ toolCallId: id, toolName: fc.string({ maxLength: 8 }), input: json })),
      usage: fc.record(
        {
          promptTokens: fc.nat(),
          completionTokens: fc.nat(),
          providerPromptTokens: fc.nat(),
          providerCompletionTokens: fc.nat(),
        },
        { requiredKeys: ['promptTokens', 'completionTokens'] },
      ),
      finishReason: fc.oneof(
        fc.constantFrom('stop', 'tool-calls', 'length', 'content-filter', 'error', 'other'),
        fc.string({ maxLength: 12 }),
      ),
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
      output: text,
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
      summary: text,
      guideline: fc.string(),
    },
    { requiredKeys: ['id', 'invocationId', 'author', 'timestamp', 'kind', 'fromEventId', 'toEventId', 'summary'] },
  ),
) as fc.Arbitrary<SessionEvent>;

/** An id as the compact row writes it (see the packing test below). */
const storedId = (value: string): string =>
  value.startsWith('~')
    ? `~${value}`
    : /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)
      ? `~${Buffer.from(value.replaceAll('-', ''), 'hex').toString('base64url')}`
      : value;

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

  it('reads back exactly the event whose body it stored without the identity, given the identity', () => {
    fc.assert(
      fc.property(event, (sample) => {
        const body = encodeEventBody(sample)!;
        const { id, invocationId, author, timestamp } = sample;
        expect(decodeEvent(body, { id, invocationId, author, timestamp })).toEqual(JSON.parse(JSON.stringify(sample)));
        // The body is the compact row less its identity, and holds none of it.
        const row = encodeEvent(sample);
        const ids = JSON.stringify([storedId(id), storedId(invocationId), author, timestamp]).slice(1, -1);
        expect(row.replace(`,${ids}`, '')).toBe(body);
      }),
      { numRuns: 500 },
    );
    const odd = { kind: 'user', id: 'a', invocationId: 'i', author: 'x', timestamp: 1, text: '', extra: 1 };
    expect(encodeEventBody(odd as unknown as SessionEvent)).toBeUndefined();
    expect(() => decodeEvent(JSON.stringify(odd), { id: 'a', invocationId: 'i', author: 'x', timestamp: 1 })).toThrow(
      /not a compact row/,
    );
  });

  it('turns a lowercase UUID into its 16 bytes and back, and no other id', () => {
    fc.assert(
      fc.property(fc.uuid(), (uuid) => {
        const bytes = uuidToBytes(uuid.toLowerCase())!;
        expect(bytes.toString('hex')).toBe(uuid.toLowerCase().replaceAll('-', ''));
        expect(uuidFromBytes(bytes)).toBe(uuid.toLowerCase());
      }),
    );
    for (const id of ['e', 'A0227B43-015E-4325-88ED-946851B0DD26', `~${'a'.repeat(35)}`])
      expect(uuidToBytes(id)).toBeUndefined();
    expect(() => uuidFromBytes(new Uint8Array(15))).toThrow(/15 bytes/);
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

  it('writes text JSON would escape after the array, as it is, and keeps text UTF-8 cannot hold in the array', () => {
    const base = {
      id: 'e',
      invocationId: 'i',
      author: 'a',
      timestamp: 1,
      toolCallId: 'c',
      toolName: 't',
      isError: false,
    };
    const pretty = JSON.stringify({ id: 'r1', note: 'say "hi"\tthen\\go' }, null, 2);
    const stored = encodeEvent({ ...base, kind: 'tool-result', output: pretty });
    expect(stored.slice(stored.indexOf('\n') + 1)).toBe(pretty);
    // Its quotes and line breaks cost nothing: the row is as long as one with an output of plain letters.
    expect(stored.length).toBe(encodeEvent({ ...base, kind: 'tool-result', output: 'x'.repeat(pretty.length) }).length);
    for (const output of ['a\u0000"b"', 'a\uD800"b"', 'plain text'])
      expect(encodeEvent({ ...base, kind: 'tool-result', output }).includes('\n')).toBe(false);
  });

  it('reads rows of the earlier compact form, and writes the same event in fewer bytes', () => {
    // As schema 6 and 7 databases hold them (test/fixtures/persisted/sqlite/schema-6.db).
    const earlier = [
      '["m","~wOTGHVOiS6mw4DJ4CL-ybQ","~0t_XVXN3SfasEbKj5dbSaA","secretary",1796410351435,16,"",[["call-1","note",{"text":"The board meets."}]],{"promptTokens":60,"completionTokens":15,"providerPromptTokens":120,"providerCompletionTokens":9},"tool-calls"]',
      '["r","~Pf9Bw-6SSSmGxJMNxIrV7Q","~0t_XVXN3SfasEbKj5dbSaA","secretary",1796410351437,4,"call-1","note","{\\n  \\"saved\\": 36\\n}",0,{"note":"The board meets."}]',
    ];
    const [model, result] = earlier.map((row) => decodeEvent(row)) as [ModelEvent, ToolResultEvent];
    expect(model.usage).toEqual({
      promptTokens: 60,
      completionTokens: 15,
      providerPromptTokens: 120,
      providerCompletionTokens: 9,
    });
    expect(model.finishReason).toBe('tool-calls');
    expect(model.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(result.output).toBe('{\n  "saved": 36\n}');
    earlier.forEach((row, index) => {
      const again = encodeEvent([model, result][index]!);
      expect(decodeEvent(again)).toEqual([model, result][index]);
      expect(again.length).toBeLessThan(row.length);
    });
  });

  it('refuses a compact row that does not validate, naming the field', () => {
    expect(() => decodeEvent('["r","a","i","x",1,null,"c","t",5,0]')).toThrow(/output/);
    expect(() => decodeEvent('["?","a"]')).toThrow(/kind code/);
    expect(() => decodeEvent('["m","a","i","x",1,null,"",[],null,9]')).toThrow(/finish reason code/);
    expect(() => decodeEvent('["t","a","i","x",1,null,"f","g"]\nstray')).toThrow(/no place/);
  });
});
