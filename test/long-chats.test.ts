/**
 * The generated long chats (bench/compression-eval/long-chats.ts) and their suite set: the generator is
 * deterministic, each graded value is in the chat exactly where the fact states it, a superseded fact is graded
 * on its newest value only, and the baselines run at the tokens the compressor reached.
 */
import { describe, expect, it } from 'vitest';
import {
  generateLongChat,
  holdsValue,
  LONG_CHAT_DOMAINS,
  LONG_CHAT_SEEDS,
  messageText,
} from '../bench/compression-eval/long-chats.js';
import { longChatItems } from '../bench/compression-eval/suite.js';
import {
  historyCompression,
  lastTurns,
  messagesTokens,
  randomTurns,
  runLongChats,
} from '../bench/compression-eval/long-chat-run.js';

const tuning = LONG_CHAT_DOMAINS.flatMap((domain) =>
  LONG_CHAT_SEEDS.tune.map((seed) => generateLongChat(domain, seed)),
);

describe('generated long chats', () => {
  it('are the same for the same style and seed, and differ across seeds', () => {
    const again = generateLongChat('travel', LONG_CHAT_SEEDS.tune[0]);
    const first = tuning.find((chat) => chat.domain === 'travel' && chat.seed === LONG_CHAT_SEEDS.tune[0]);
    expect(again).toEqual(first);
    const other = generateLongChat('travel', LONG_CHAT_SEEDS.tune[1]);
    expect(other.messages.map(messageText)).not.toEqual(again.messages.map(messageText));
  });

  it('keep tuning and test seeds apart', () => {
    const test = new Set<number>(LONG_CHAT_SEEDS.test);
    expect(LONG_CHAT_SEEDS.tune.filter((seed) => test.has(seed))).toEqual([]);
  });

  it('are long multi-session chats, dated, alternating user and assistant, ending with the user', () => {
    for (const chat of tuning) {
      const tokens = messagesTokens(chat.messages);
      expect([chat.domain, tokens >= 10_000 && tokens <= 20_000]).toEqual([chat.domain, true]);
      const dated = chat.messages.filter((m) => /^\[\w+day \d{1,2} \w+ \d{4}, \d{1,2}:\d{2}\]/u.test(messageText(m)));
      expect(dated.length).toBe(chat.sessions + 1);
      chat.messages.forEach((message, index) => expect(message.role).toBe(index % 2 === 0 ? 'user' : 'assistant'));
      expect(chat.messages[chat.messages.length - 1]?.role).toBe('user');
    }
  });

  it('hold each graded value exactly in the messages that state or restate it', () => {
    for (const chat of tuning) {
      const texts = chat.messages.map(messageText);
      for (const fact of chat.facts.filter((f) => f.asked)) {
        const latest = fact.values[fact.values.length - 1] ?? '';
        const holding = texts.flatMap((text, index) => (holdsValue(text, latest) ? [index] : []));
        expect([fact.slot, holding]).toEqual([fact.slot, [...fact.latestIn].sort((a, b) => a - b)]);
      }
    }
  });

  it('track superseded facts: the earlier values come first, and only the newest is graded', () => {
    const superseded = tuning.flatMap((chat) =>
      chat.facts.filter((fact) => fact.asked && fact.values.length > 1).map((fact) => ({ chat, fact })),
    );
    // Every style supersedes some of its facts.
    expect(new Set(superseded.map(({ chat }) => chat.domain))).toEqual(new Set(LONG_CHAT_DOMAINS));
    const items = longChatItems();
    for (const { chat, fact } of superseded) {
      const texts = chat.messages.map(messageText);
      expect(Math.max(...fact.supersededIn)).toBeLessThan(Math.min(...fact.latestIn));
      const older = fact.values.slice(0, -1);
      for (const at of fact.supersededIn) expect(older.some((value) => holdsValue(texts[at] ?? '', value))).toBe(true);
      const item = items.find((i) => i.id === `long-${chat.domain}-${chat.seed}`);
      // The old statements alone keep nothing of this fact; the new ones keep it.
      const oldOnly = fact.supersededIn.map((at) => texts[at]).join('\n');
      const newOnly = fact.latestIn.map((at) => texts[at]).join('\n');
      expect(item?.kept(oldOnly) ?? -1).toBeLessThan(item?.kept(newOnly) ?? -1);
    }
  });

  it('restate facts in assistant turns, right away and in later sessions', () => {
    const restated = tuning.flatMap((chat) =>
      chat.facts.flatMap((fact) => fact.latestIn.filter((at) => chat.messages[at]?.role === 'assistant')),
    );
    expect(restated.length).toBeGreaterThan(tuning.length);
  });
});

describe('the long-chat suite set', () => {
  const items = longChatItems();

  it('has every style on both sides of the split, and grades the whole chat as complete and nothing as nothing', () => {
    for (const split of ['tune', 'test'] as const) {
      expect(new Set(items.filter((i) => i.split === split).map((i) => i.domain))).toEqual(new Set(LONG_CHAT_DOMAINS));
    }
    for (const item of items) {
      expect(item.evidenceCount).toBeGreaterThan(0);
      expect(item.kept(item.messages.map(messageText).join('\n'))).toBe(item.evidenceCount);
      expect(item.kept('')).toBe(0);
      // The compressor's guide is the current message, never a later question.
      for (const question of item.questions) expect(item.task).not.toContain(question);
    }
  });

  it('fits the baselines to the budget with whole messages', () => {
    const [item] = items;
    if (!item) throw new Error('no long chat');
    const budget = Math.floor(messagesTokens(item.messages) / 4);
    for (const kept of [lastTurns(item.messages, budget), randomTurns(item.messages, budget, 3)]) {
      expect(messagesTokens(kept)).toBeLessThanOrEqual(budget);
      expect(messagesTokens(kept)).toBeGreaterThan(budget * 0.9);
      for (const message of kept) expect(item.messages).toContain(message);
    }
    expect(lastTurns(item.messages, budget).at(-1)).toBe(item.messages.at(-1));
  });

  it('runs the baselines at the tokens the compressor reached', async () => {
    const sample = items.filter((i) => i.split === 'tune').slice(0, 2);
    const figures = await runLongChats(sample, [{ name: 'pagewise', compress: historyCompression() }], {
      ratios: [0.5],
    });
    expect(figures).toHaveLength(1);
    const methods = figures[0]?.methods ?? [];
    const ours = methods[0];
    for (const method of methods) {
      expect(method.meanRatio).toBeCloseTo(ours?.meanRatio ?? -1, 6);
      expect(method.recall).toBeGreaterThanOrEqual(0);
      expect(method.recall).toBeLessThanOrEqual(1);
    }
    // The current message passes through whole, outside the basis the ratio applies to.
    expect(ours?.meanRatio ?? 1).toBeLessThanOrEqual(0.52);
  });
});
