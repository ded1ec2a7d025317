import { describe, expect, it } from 'vitest';
import { Ledger } from '../tokens/ledger.js';
import { clearToolResults, fifoHistory, naiveHistory } from './processors.js';
import { findBrokenToolPair, type ContextItem, type ContextRequest, type ProcessorContext } from './request.js';

function history(turns: number): ContextItem[] {
  const items: ContextItem[] = [{ type: 'user', text: 'the task' }];
  for (let turn = 0; turn < turns; turn++) {
    items.push({ type: 'assistant', text: '', toolCalls: [{ toolCallId: `c${turn}`, toolName: 't', input: {} }] });
    items.push({
      type: 'tool-result',
      toolCallId: `c${turn}`,
      toolName: turn % 2 ? 'keep' : 't',
      output: `r${turn}`,
      isError: false,
    });
  }
  return items;
}

const ctx = (task = 'the task'): ProcessorContext => ({
  session: { appName: 'a', userId: 'u', sessionId: 's', state: {}, events: [], version: 0, createdAt: 0, updatedAt: 0 },
  invocationId: 'i',
  agentName: 'a',
  task,
  services: new Map(),
  signal: new AbortController().signal,
  ledger: new Ledger(),
  appendCompaction: async () => {},
});

const req = (items: ContextItem[]): ContextRequest => ({ instruction: [], items, tools: [] });

describe('naiveHistory', () => {
  it('leaves the request as it is', async () => {
    const request = req(history(3));
    const before = [...request.items];
    await naiveHistory.process(request, ctx());
    expect(request.items).toEqual(before);
  });
});

describe('fifoHistory', () => {
  it('keeps the last N turns whole, plus the task turn', async () => {
    const request = req(history(6));
    await fifoHistory({ lastTurns: 2 }).process(request, ctx());
    expect(request.items.map((i) => (i.type === 'tool-result' ? i.output : i.type))).toEqual([
      'user',
      'assistant',
      'r4',
      'assistant',
      'r5',
    ]);
    expect(findBrokenToolPair(request.items)).toBeUndefined();
  });

  it('can drop the task turn, and leaves short histories alone', async () => {
    const request = req(history(6));
    await fifoHistory({ lastTurns: 1, keepTask: false }).process(request, ctx());
    expect(request.items.map((i) => i.type)).toEqual(['assistant', 'tool-result']);
    const short = req(history(1));
    await fifoHistory({ lastTurns: 5 }).process(short, ctx());
    expect(short.items).toHaveLength(3);
  });

  it('refuses a turn count below one', () => {
    expect(() => fifoHistory({ lastTurns: 0 })).toThrow(RangeError);
  });
});

describe('clearToolResults', () => {
  it('replaces older results with the placeholder, keeping the last K and excluded tools', async () => {
    const request = req(history(6));
    await clearToolResults({ keepLast: 1, exclude: ['keep'], placeholder: '[cleared]' }).process(request, ctx());
    const outputs = request.items.filter((i) => i.type === 'tool-result').map((i) => (i as { output: string }).output);
    expect(outputs).toEqual(['[cleared]', 'r1', '[cleared]', 'r3', 'r4', 'r5']);
    expect(findBrokenToolPair(request.items)).toBeUndefined();
  });

  it('clears without changing the items it was given, and clears an item to the same object every step', async () => {
    const items = history(4);
    const processor = clearToolResults({ keepLast: 1 });
    const first = req([...items]);
    const second = req([...items]);
    await processor.process(first, ctx());
    await processor.process(second, ctx());
    expect(items[2]).toMatchObject({ output: 'r0' });
    expect(first.items[2]).not.toBe(items[2]);
    expect(second.items[2]).toBe(first.items[2]);
  });
});
