import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors.js';
import { countTokens } from '../tokens/tokenizer.js';
import { compressMessages, compressText } from './api.js';

const page = [
  '# Annual report',
  'The group grew in every region this year. Demand was strong in the second half.',
  '| Segment | 2019 | 2018 |\n| --- | --- | --- |\n| Retail | 120 | 100 |\n| Wholesale | 80 | 85 |\n| Online | 45 | 30 |',
  ...Array.from(
    { length: 12 },
    (_, i) => `Paragraph ${i} discusses general matters of governance and staff training in detail.`,
  ),
].join('\n\n');

describe('compressText', () => {
  it('keeps the row the query asks for, with its label and headers, within the target ratio', async () => {
    const result = await compressText(page, { query: 'What were Online sales in 2019?', targetRatio: 0.5 });
    expect(result.ratio).toBeLessThanOrEqual(0.5);
    expect(result.outputTokens).toBe(countTokens(result.text));
    expect(result.text).toContain('| Online | 45 | 30 |');
    expect(result.text).toContain('| Segment | 2019 | 2018 |');
    expect(result.keptUnits).toBeGreaterThan(0);
    expect(result.totalUnits).toBeGreaterThan(result.keptUnits ?? 0);
  });

  it('holds a token cap and refuses bad budgets', async () => {
    const result = await compressText(page, { query: 'Online sales', maxTokens: 40 });
    expect(result.outputTokens).toBeLessThanOrEqual(40);
    await expect(compressText(page, { query: 'x', targetRatio: 2 })).rejects.toThrow(ConfigurationError);
    await expect(compressText(page, { query: 'x', maxTokens: -1 })).rejects.toThrow(/maxTokens/u);
  });
});

/** A conversation with facts early on, small talk, a tool call with its result, and a final question. */
function conversation(): ModelMessage[] {
  const messages: ModelMessage[] = [{ role: 'system', content: 'You are a helpful assistant.' }];
  messages.push({ role: 'user', content: 'My sister Maya lives in Porto. She works as a pilot.' });
  messages.push({ role: 'assistant', content: 'Noted, thanks for telling me about Maya.' });
  for (let i = 0; i < 30; i += 1) {
    messages.push({ role: 'user', content: `Day ${i}: the weather was grey and the train was late again, as usual.` });
    messages.push({ role: 'assistant', content: 'That sounds tiring. I hope tomorrow is calmer for you.' });
  }
  messages.push({
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Porto' } }],
  });
  messages.push({
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'weather',
        output: { type: 'text', value: 'Porto: sunny, 21°C' },
      },
    ],
  });
  messages.push({ role: 'user', content: 'Where does Maya live?' });
  return messages;
}

describe('compressMessages', () => {
  it('summarizes all but the last turns within the ratio, keeping what the question needs', async () => {
    const messages = conversation();
    const result = await compressMessages(messages, { task: 'Answer the user.', targetRatio: 0.5, keepLastTurns: 2 });
    expect(result.ratio).toBeLessThanOrEqual(0.52);
    expect(result.messages[0]).toEqual(messages[0]);
    expect(result.messages.slice(-3)).toEqual(messages.slice(-3));
    expect(result.summary).toContain('Maya lives in Porto');
    expect(result.compressedTurns).toBeGreaterThan(50);
    expect(result.keptTurns).toBe(2);
  });

  it('never separates a tool call from its result', async () => {
    const messages = conversation();
    for (const keepLastTurns of [0, 1, 2, 3]) {
      const result = await compressMessages(messages, { task: 'Answer the user.', targetRatio: 0.6, keepLastTurns });
      const calls = result.messages.flatMap((m) =>
        m.role === 'assistant' && Array.isArray(m.content) ? m.content.filter((p) => p.type === 'tool-call') : [],
      );
      const results = result.messages.flatMap((m) => (m.role === 'tool' ? m.content : []));
      expect(calls.map((c) => c.toolCallId)).toEqual(results.map((r) => ('toolCallId' in r ? r.toolCallId : '')));
    }
  });

  it('returns a short conversation unchanged and refuses a budget the kept turns exceed', async () => {
    const short: ModelMessage[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
    ];
    const same = await compressMessages(short, { task: 't', targetRatio: 1 });
    expect(same.messages).toEqual(short);
    expect(same.ratio).toBe(1);
    await expect(compressMessages(conversation(), { task: 't', maxTokens: 5 })).rejects.toThrow(/keepLastTurns/u);
  });
});
