/**
 * Used-later values and the replay: what counts as used, that the uncompressed replay keeps every used
 * value, that a strategy which drops an observation loses its values (and says what it kept instead),
 * and that tokens and recall are measured per strategy and tool.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ContextItem } from 'pagewise/context';
import { fifoHistory } from 'pagewise/context';
import { parseTraces } from './import.js';
import { analyzeTrace, replayTrace } from './replay.js';
import { replayTraces } from './run.js';
import { replayMarkdown } from './report.js';
import { defaultStrategies, type ReplayStrategy } from './strategies.js';
import { observedValues, usedLaterValues } from './values.js';

const fixture = (name: string): Promise<string> => readFile(path.join(import.meta.dirname, 'testdata', name), 'utf8');

describe('usedLaterValues', () => {
  const items: ContextItem[] = [
    { type: 'user', text: 'Cancel order W111 for me, I am Ana Lee.' },
    { type: 'assistant', text: '', toolCalls: [{ toolCallId: 'a', toolName: 'find', input: { name: 'Ana Lee' } }] },
    {
      type: 'tool-result',
      toolCallId: 'a',
      toolName: 'find',
      output: JSON.stringify({ user_id: 'ana_lee_42', orders: ['W111', 'W222'], tier: 'gold', balance: 12.5 }),
      isError: false,
    },
    {
      type: 'assistant',
      text: 'Your balance is $12.50.',
      toolCalls: [{ toolCallId: 'b', toolName: 'cancel', input: '{"user_id": "ana_lee_42", "order_id": "W111"}' }],
    },
  ];

  it('counts values the model wrote after reading them, not those the user gave first', () => {
    const uses = usedLaterValues(items);
    const used = uses.map((u) => [u.value.raw, u.value.field, u.usedIn]);
    expect(used).toContainEqual(['ana_lee_42', 'user_id', 'call cancel']);
    expect(used).toContainEqual(['12.5', 'balance', 'reply']);
    // W111 came from the user, W222 and the tier were never written again.
    expect(used.map((u) => u[0])).not.toContain('W111');
    expect(used.map((u) => u[0])).not.toContain('W222');
    expect(used.map((u) => u[0])).not.toContain('gold');
    expect(uses.every((u) => u.observationIndex === 2 && u.useIndex === 3)).toBe(true);
  });

  it('finds ids, dates, amounts and names in text observations', () => {
    const values = observedValues(
      'Card dbc_538bfb9cba (Gold Rewards Card) issued 06/15/2018, balance $842.15, mail a.b@c.com',
    );
    const byField = Object.fromEntries(values.map((v) => [v.raw, v.field]));
    expect(byField).toMatchObject({
      dbc_538bfb9cba: 'text:id',
      'Gold Rewards Card': 'text:name',
      '06/15/2018': 'text:date',
      '$842.15': 'text:amount',
      'a.b@c.com': 'text:email',
    });
  });
});

describe('replayTrace', () => {
  it('counts the tokens of tools named __proto__ and constructor under their names', async () => {
    const items: ContextItem[] = [{ type: 'user', text: 'Look it up.' }];
    for (const [id, toolName] of [
      ['a', '__proto__'],
      ['b', 'constructor'],
      ['c', 'constructor'],
    ] as const) {
      items.push({ type: 'assistant', text: '', toolCalls: [{ toolCallId: id, toolName, input: {} }] });
      items.push({ type: 'tool-result', toolCallId: id, toolName, output: `result ${id}`, isError: false });
    }
    items.push({ type: 'assistant', text: 'Done.', toolCalls: [] });
    const trace = { id: 't', format: 'openai-chat' as const, source: 't', system: '', items };
    const none = defaultStrategies().find((s) => s.name === 'none')!;
    const replay = await replayTrace(analyzeTrace(trace), none);
    expect(Object.getPrototypeOf(replay.toolTokens)).toBe(Object.prototype);
    expect(Object.keys(replay.toolTokens).sort()).toEqual(['__proto__', 'constructor']);
    for (const tokens of Object.values(replay.toolTokens)) expect(tokens).toBeGreaterThan(0);
  });
});

describe('replayTraces', () => {
  it('keeps every used value uncompressed, saves tokens with compression, and reports losses with what was kept', async () => {
    const traces = parseTraces(await fixture('openai-chat.jsonl'), 'chats.jsonl');
    const report = await replayTraces(traces);
    const by = Object.fromEntries(report.strategies.map((s) => [s.name, s]));
    expect(Object.keys(by)).toEqual([
      'none',
      'truncation',
      'fifo',
      'clear-tool-results',
      'acon-obs',
      'acon-hist',
      'acon-both',
    ]);
    expect(report.uses).toBeGreaterThan(5);
    expect(by.none!.recall).toBe(1);
    expect(by.none!.lost).toBe(0);
    expect(by.none!.tokensSaved).toBe(0);
    // The user-details observation is far above T_obs: both observation strategies shrink it.
    for (const name of ['truncation', 'acon-obs']) {
      expect(by[name]!.tokensSaved).toBeGreaterThan(0.2);
      const tool = by[name]!.tools.find((t) => t.tool === 'get_user_details');
      expect(tool!.tokensSaved).toBeGreaterThan(0.3);
    }
    // Head truncation cuts the orders list; every loss names its trace, tool, value and what was kept.
    expect(by.truncation!.lost).toBeGreaterThan(0);
    for (const loss of by.truncation!.worstLosses) {
      expect(loss.tool).toBe('get_user_details');
      expect(loss.keptInstead.length).toBeGreaterThan(0);
      expect(loss.keptInstead.toLowerCase()).not.toContain(loss.value.toLowerCase());
    }
    // Outcome weighting: the second trace has reward 0, so its losses do not count in the weighted recall.
    expect(report.tracesWithOutcome).toBe(2);
    expect(by.truncation!.weightedRecall).toBeDefined();
    const markdown = replayMarkdown(report);
    expect(markdown).toContain('| acon-obs |');
    expect(markdown).toContain('Worst losses');
  });

  it('a FIFO of one turn loses the values of observations it drops, and says they were dropped', async () => {
    const [trace] = parseTraces(await fixture('openai-chat-array.json'), 'one.json');
    const strategies: ReplayStrategy[] = [
      defaultStrategies()[0]!,
      {
        name: 'fifo(1)',
        kind: 'history',
        baseline: true,
        create: () => ({ observation: [], history: [fifoHistory({ lastTurns: 1, keepTask: false })] }),
      },
    ];
    const report = await replayTraces([trace!], { strategies });
    const fifo = report.strategies[1]!;
    expect(fifo.tokensSaved).toBeGreaterThan(0.3);
    expect(fifo.recall).toBeLessThan(1);
    expect(fifo.worstLosses.some((l) => l.keptInstead === '(dropped from the history)')).toBe(true);
  });

  it('reports progress after each trace', async () => {
    const traces = parseTraces(await fixture('openai-chat.jsonl'), 'chats.jsonl');
    const seen: string[] = [];
    await replayTraces(traces, {
      strategies: [defaultStrategies()[0]!],
      onProgress: (p) => seen.push(`${p.done}/${p.total} ${p.trace}`),
    });
    expect(seen).toEqual(['1/2 return-yoga-mat', '2/2 order-status']);
  });
});
