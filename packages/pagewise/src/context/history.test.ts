import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../session/types.js';
import { countTokens } from '../tokens/tokenizer.js';
import { eventsToItems, groupTurns, shareItems, withTokenCounts } from './history.js';
import { itemText, measureRequest } from './request.js';

let eventCount = 0;
const base = () => ({ id: `e${++eventCount}`, invocationId: 'i', author: 'a', timestamp: 0 });
const user = (text: string): SessionEvent => ({ ...base(), kind: 'user', author: 'user', text });
const model = (text: string, calls: string[] = []): SessionEvent => ({
  ...base(),
  kind: 'model',
  text,
  toolCalls: calls.map((id) => ({ toolCallId: id, toolName: 't', input: { id } })),
});
const result = (id: string): SessionEvent => ({
  ...base(),
  kind: 'tool-result',
  toolCallId: id,
  toolName: 't',
  output: `out ${id}`,
  isError: false,
});
const compaction = (from: SessionEvent, to: SessionEvent, summary: string): SessionEvent => ({
  ...base(),
  kind: 'compaction',
  fromEventId: from.id,
  toEventId: to.id,
  summary,
});

/** The conversion without any cache: a fresh array each time. */
const fresh = (events: SessionEvent[]) => eventsToItems([...events]);

describe('eventsToItems', () => {
  it('converts user, model and tool-result events, skipping empty model responses and control events', () => {
    const events: SessionEvent[] = [
      user('go'),
      model('', ['a']),
      result('a'),
      model(''),
      { ...base(), kind: 'transfer', from: 'a', to: 'b' },
      model('done'),
    ];
    const items = eventsToItems(events);
    expect(items.map((i) => i.type)).toEqual(['user', 'assistant', 'tool-result', 'assistant']);
    expect(items.map((i) => i.eventId)).toEqual([events[0]!.id, events[1]!.id, events[2]!.id, events[5]!.id]);
  });

  it('replaces a compacted range with its summary, the latest overlapping compaction winning', () => {
    const events = [user('one'), model('', ['a']), result('a'), user('two'), model('', ['b']), result('b')];
    const first = compaction(events[0]!, events[2]!, 'first summary');
    const later = compaction(events[0]!, events[5]!, 'accumulated');
    expect(eventsToItems([...events, first]).map((i) => i.type)).toEqual([
      'summary',
      'user',
      'assistant',
      'tool-result',
    ]);
    const items = eventsToItems([...events, first, later]);
    expect(items).toEqual([{ type: 'summary', text: 'accumulated', eventId: later.id }]);
  });

  it('converting an appended-to list gives the same items as converting it afresh, reusing earlier items', () => {
    const events: SessionEvent[] = [user('go')];
    const before = eventsToItems(events);
    for (let index = 0; index < 20; index++) events.push(model('', [`c${index}`]), result(`c${index}`));
    const after = eventsToItems(events);
    expect(after).toEqual(fresh(events));
    expect(after[0]).toBe(before[0]);
    // The caller owns the array it gets: changing it changes nothing later.
    after.length = 0;
    expect(eventsToItems(events)).toEqual(fresh(events));
  });

  it('a compaction appended later is applied to the whole list', () => {
    const events: SessionEvent[] = [user('go'), model('', ['a']), result('a'), model('', ['b']), result('b')];
    eventsToItems(events);
    events.push(compaction(events[1]!, events[2]!, 'looked a up'));
    const items = eventsToItems(events);
    expect(items.map((i) => i.type)).toEqual(['user', 'summary', 'assistant', 'tool-result']);
    expect(items).toEqual(fresh(events));
  });

  it('a list whose events were replaced in place (a reload) is converted again', () => {
    const events: SessionEvent[] = [user('first'), model('one')];
    eventsToItems(events);
    const reloaded = [user('other'), model('two'), user('three')];
    events.length = 0;
    events.push(...reloaded);
    expect(eventsToItems(events).map((i) => (i as { text: string }).text)).toEqual(['other', 'two', 'three']);
    events.length = 1;
    expect(eventsToItems(events).map((i) => (i as { text: string }).text)).toEqual(['other']);
  });
});

describe('groupTurns', () => {
  it('keeps each assistant turn with its results', () => {
    const items = eventsToItems([user('go'), model('', ['a', 'b']), result('a'), result('b'), model('done')]);
    expect(groupTurns(items).map((t) => t.map((i) => i.type))).toEqual([
      ['user'],
      ['assistant', 'tool-result', 'tool-result'],
      ['assistant'],
    ]);
  });
});

describe('token counts stored with events', () => {
  it('writes each event the count of its history item, the same as counting the item', () => {
    const events = withTokenCounts(
      [user('What changed in the third quarter?'), model('Looking.', ['q3']), result('q3')],
      'o200k_base',
    );
    const items = fresh(events.map((e) => ({ ...e })));
    expect(events.map((e) => e.tokens?.o200k_base)).toEqual(items.map((i) => countTokens(itemText(i), 'o200k_base')));
    expect(events.every((e) => e.tokens?.cl100k_base === undefined)).toBe(true);
  });

  it('keeps counts of other encodings and leaves events without an item alone', () => {
    const [counted] = withTokenCounts([user('Hello there, model.')], 'cl100k_base');
    const [again] = withTokenCounts([{ ...counted! }], 'o200k_base');
    expect(again!.tokens).toEqual({
      cl100k_base: countTokens('Hello there, model.', 'cl100k_base'),
      o200k_base: countTokens('Hello there, model.', 'o200k_base'),
    });
    const [empty, transfer] = withTokenCounts(
      [model(''), { ...base(), kind: 'transfer', from: 'a', to: 'b' } as SessionEvent],
      'o200k_base',
    );
    expect(empty!.tokens).toBeUndefined();
    expect(transfer!.tokens).toBeUndefined();
  });

  it("a loaded event's stored count stands for counting its text, per encoding", () => {
    // A count no tokenizer would give for this text shows which one the measure used.
    const loaded: SessionEvent = { ...user('four words of text'), tokens: { o200k_base: 977 } };
    const request = { instruction: [], items: fresh([loaded]), tools: [] };
    expect(measureRequest(request, 'o200k_base').total).toBe(977);
    expect(measureRequest(request, 'cl100k_base').total).toBe(countTokens('four words of text', 'cl100k_base'));
  });
});

describe('history items of appended events', () => {
  it("a store's copies of appended events reuse the items converted for them; a copy that differs does not", () => {
    const built = withTokenCounts([user('Find the totals.'), model('Looking.', ['c1']), result('c1')], 'o200k_base');
    const copies = built.map((e) => ({ ...e }));
    const changed = { ...built[2]!, output: 'another output' } as SessionEvent;
    shareItems(built, [copies[0]!, copies[1]!, changed]);
    const before = eventsToItems(built);
    const after = eventsToItems([copies[0]!, copies[1]!, changed]);
    expect(after[0]).toBe(before[0]);
    expect(after[1]).toBe(before[1]);
    expect(after[2]).not.toBe(before[2]);
    expect(after[2]).toMatchObject({ type: 'tool-result', output: 'another output' });
    // What is shared is exactly what converting the copies afresh gives.
    expect(after).toEqual(fresh([copies[0]!, copies[1]!, changed].map((e) => ({ ...e }))));
  });

  it('a copy with other stored token counts is converted, so its own counts stand', () => {
    const [built] = withTokenCounts([user('Count me.')], 'o200k_base');
    const copy: SessionEvent = { ...built!, tokens: { o200k_base: 977 } };
    shareItems([built!], [copy]);
    const request = { instruction: [], items: eventsToItems([copy]), tools: [] };
    expect(measureRequest(request, 'o200k_base').total).toBe(977);
  });
});
