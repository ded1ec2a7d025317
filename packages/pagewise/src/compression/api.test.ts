import type { ModelMessage } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors.js';
import { countTokens } from '../tokens/tokenizer.js';
import { compressMessages, compressText } from './api.js';
import { extractiveBackend } from './extractive-backend.js';
import { compressExtractive } from './extractive.js';
import { DEFAULT_OBSERVATION_GUIDELINE } from './default-guidelines.js';

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
  for (let day = 0; day < 30; day += 1) {
    messages.push({
      role: 'user',
      content: `Day ${day}: the weather was grey and the train was late again, as usual.`,
    });
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
      const calls = result.messages.flatMap((message) =>
        message.role === 'assistant' && Array.isArray(message.content)
          ? message.content.filter((p) => p.type === 'tool-call')
          : [],
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
    // A cap the kept turns alone exceed: the closest result, flagged; with strict, an error saying what to change.
    const over = await compressMessages(conversation(), { task: 't', maxTokens: 5 });
    expect(over.overTarget).toBe(true);
    expect(over.outputTokens).toBe(over.fixedTokens);
    await expect(compressMessages(conversation(), { task: 't', maxTokens: 5, strict: true })).rejects.toThrow(
      /keepLastTurns/u,
    );
  });

  it('never throws on a long system prompt at targetRatio 0.5: the prompt is outside the basis', async () => {
    const policy = Array.from(
      { length: 120 },
      (_, i) => `Rule ${i}: confirm the order id and the payment method with the user before any change.`,
    ).join('\n');
    const messages: ModelMessage[] = [{ role: 'system', content: policy }, ...conversation().slice(1)];
    const result = await compressMessages(messages, { task: 'Answer the user.', targetRatio: 0.5, keepLastTurns: 2 });
    expect(result.fixedTokens).toBeGreaterThan(result.inputTokens / 2);
    expect(result.overTarget).toBe(false);
    expect(result.basisRatio).toBeLessThanOrEqual(0.5);
    expect(result.messages[0]).toEqual(messages[0]);
    expect(result.summary).toContain('Maya lives in Porto');
    await expect(compressMessages(messages, { task: 't', targetRatio: 0.5, strict: true })).resolves.toBeDefined();
  });

  it('flags a whole above targetRatio and says which parts were kept whole', async () => {
    const policy = Array.from(
      { length: 60 },
      (_, i) => `Rule ${i}: confirm the order id and the payment method with the user before any change.`,
    ).join('\n');
    const messages: ModelMessage[] = [{ role: 'system', content: policy }, ...conversation().slice(1)];
    const result = await compressMessages(messages, { task: 'Answer the user.', targetRatio: 0.5, keepLastTurns: 1 });
    // The summary met its target; the whole did not, because of the system prompt kept whole.
    expect(result.overTarget).toBe(false);
    expect(result.ratio).toBeGreaterThan(0.5);
    expect(result.ratioAboveTarget).toBe(true);
    expect(result.keptWhole.systemTokens).toBe(countTokens(policy));
    expect(result.keptWhole.lastTurns).toBe(1);
    expect(result.keptWhole.systemTokens + result.keptWhole.lastTurnsTokens).toBe(result.fixedTokens);
    expect(result.warning).toContain(`ratio ${result.ratio.toFixed(2)} is above targetRatio 0.5`);
    expect(result.warning).toContain(`the system messages (${result.keptWhole.systemTokens} tokens)`);
    expect(result.warning).toMatch(/Lower keepLastTurns, shorten the system prompt, or set maxTokens/u);

    // Without the long system prompt the whole meets the target: no flag, no warning.
    const plain = await compressMessages(conversation(), { task: 'Answer the user.', targetRatio: 0.5 });
    expect(plain.ratio).toBeLessThanOrEqual(0.5);
    expect(plain.ratioAboveTarget).toBe(false);
    expect(plain.warning).toBeUndefined();
  });

  it('never throws without strict, and meets the target or says it did not', async () => {
    const base = conversation();
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 400 }),
        fc.integer({ min: 2, max: base.length }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.option(fc.nat({ max: 1500 }), { nil: undefined }),
        fc.nat({ max: 4 }),
        async (policyWords, length, targetRatio, maxTokens, keepLastTurns) => {
          const messages: ModelMessage[] = [
            { role: 'system', content: 'Follow the policy. '.repeat(policyWords) },
            ...base.slice(1, length),
          ];
          const result = await compressMessages(messages, {
            task: 'Answer the user.',
            targetRatio,
            keepLastTurns,
            ...(maxTokens === undefined ? {} : { maxTokens }),
          });
          expect(result.outputTokens).toBeLessThanOrEqual(result.inputTokens);
          if (!result.overTarget) {
            expect(result.basisRatio <= targetRatio || result.compressedTurns === 0).toBe(true);
            if (maxTokens !== undefined) expect(result.outputTokens).toBeLessThanOrEqual(maxTokens);
          }
          expect(result.messages.slice(0, 1)).toEqual(messages.slice(0, 1));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('the scoring option', () => {
  it('runs the learned scorer in compressText, as compressExtractive does with the same rules', async () => {
    const query = 'What were Online sales in 2019?';
    const learned = await compressText(page, { query, targetRatio: 0.4, scoring: 'learned' });
    const inputTokens = countTokens(page);
    const expected = compressExtractive(page, {
      query,
      rules: { ...DEFAULT_OBSERVATION_GUIDELINE.rules, ratio: 0.4 },
      maxTokens: Math.floor(0.4 * inputTokens),
      scoring: 'learned',
    });
    expect(learned.text).toBe(expected.text);
    expect(learned.keptUnits).toBe(expected.kept);
    const heuristic = await compressText(page, { query, targetRatio: 0.4, scoring: 'heuristic' });
    expect(heuristic.text).toBe((await compressText(page, { query, targetRatio: 0.4 })).text);
    // The two scorers choose differently here, so the option is seen to take effect.
    expect(learned.text).not.toBe(heuristic.text);
  });

  it('scores the tool results compressMessages summarizes with the chosen scorer', async () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Fetch the annual report.' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'r1', toolName: 'fetch_report', input: { year: 2019 } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'r1',
            toolName: 'fetch_report',
            output: { type: 'text', value: page },
          },
        ],
      },
      { role: 'user', content: 'What were Online sales in 2019?' },
    ];
    const options = { task: 'What were Online sales in 2019?', targetRatio: 0.4, keepLastTurns: 1 };
    const viaOption = await compressMessages(messages, { ...options, scoring: 'learned' });
    const viaBackend = await compressMessages(messages, {
      ...options,
      backend: extractiveBackend({ scoring: 'learned' }),
    });
    expect(viaOption.summary).toBe(viaBackend.summary);
    // The two scorers keep different parts of the report here, so the option is seen to take effect.
    const hand = await compressMessages(messages, options);
    expect(viaOption.summary).not.toBe(hand.summary);
  });

  it('refuses an unknown scoring, and scoring with a backend other than the extractive one', async () => {
    const bad = { query: 'q', scoring: 'fitted' as 'learned' };
    await expect(compressText(page, bad)).rejects.toThrow(/scoring must be 'heuristic' or 'learned'/u);
    await expect(
      compressText(page, { query: 'q', scoring: 'learned', backend: extractiveBackend() }),
    ).rejects.toBeInstanceOf(ConfigurationError);
    // Checked up front, even when nothing needs compressing.
    await expect(
      compressMessages([{ role: 'user', content: 'Hi' }], {
        task: 't',
        scoring: 'learned',
        backend: extractiveBackend(),
      }),
    ).rejects.toThrow(/extractive backend only/u);
  });
});
