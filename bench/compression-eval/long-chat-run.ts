/**
 * Runs the long-chat set ({@link longChatItems}): each chat compressed whole as a history, with no question
 * known, by `compressMessages` (the path of the history compressor), at each of {@link LONG_CHAT_RATIOS}; the
 * baselines at the tokens each compression reached, chat by chat. Baselines: last turns (whole messages from the
 * end), random turns (whole messages in a seeded random order while they fit, the median of
 * {@link RANDOM_TURN_SEEDS} seeds), and truncate-head and truncate-tail of the `User:`/`Assistant:` transcript.
 */
import type { ModelMessage } from 'ai';
import { countTokens } from 'pagewise';
import { compressMessages, type CompressorBackend } from 'pagewise/compression';
import { truncateHead, truncateTail } from 'pagewise/extractive';
import { seededRandom } from 'pagewise/internal';
import { messageText } from './long-chats.js';
import type { LongChatItem } from './suite.js';
import type { SuiteSetFigures } from './suite-run.js';

/** The ratios each chat is compressed to. */
export const LONG_CHAT_RATIOS = [0.5, 0.25] as const;

/** Seeds of the random-turns baseline; its recall on a chat is the median over them. */
export const RANDOM_TURN_SEEDS = 5;

/** A history compressor under test: the compressed messages of a chat at a ratio. */
export type HistoryCompressor = (item: LongChatItem, ratio: number) => Promise<ModelMessage[]>;

/** Text of a message as the grader reads it: every text part. */
function textOf(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('\n');
}

/** Tokens of messages, counted as `compressMessages` counts them (message by message). */
export function messagesTokens(messages: readonly ModelMessage[]): number {
  return messages.reduce((sum, message) => sum + countTokens(textOf(message)), 0);
}

/**
 * The history compressor as a user runs it on a chat with no question: `compressMessages` with the current
 * message as the task, the default `keepLastTurns` (1) and guideline, at the ratio; `backend` replaces the
 * extractive backend (as when fitting its weights), `scoring` picks its scorer.
 */
export function historyCompression(
  options: { backend?: CompressorBackend; scoring?: 'heuristic' | 'learned' } = {},
): HistoryCompressor {
  return async (item, ratio) =>
    (
      await compressMessages(item.messages, {
        task: item.task,
        targetRatio: ratio,
        // A fixed fence boundary, so that every run of a chat costs the same tokens.
        boundary: () => 'longchat',
        ...(options.backend ? { backend: options.backend } : {}),
        ...(options.scoring ? { scoring: options.scoring } : {}),
      })
    ).messages;
}

/** Whole messages from the end while they fit `budget` tokens. */
export function lastTurns(messages: readonly ModelMessage[], budget: number): ModelMessage[] {
  const kept: ModelMessage[] = [];
  let used = 0;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const cost = countTokens(textOf(messages[index]!));
    if (used + cost > budget) break;
    used += cost;
    kept.unshift(messages[index]!);
  }
  return kept;
}

/** Whole messages taken in a seeded random order, each that still fits `budget`, in their original order. */
export function randomTurns(messages: readonly ModelMessage[], budget: number, seed: number): ModelMessage[] {
  const random = seededRandom(seed);
  const order = messages.map((_, index) => index);
  for (let index = order.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [order[index], order[other]] = [order[other] ?? 0, order[index] ?? 0];
  }
  const kept = new Set<number>();
  let used = 0;
  for (const index of order) {
    const cost = countTokens(textOf(messages[index]!));
    if (used + cost > budget) continue;
    used += cost;
    kept.add(index);
  }
  return messages.filter((_, index) => kept.has(index));
}

/** The chat as a `User:`/`Assistant:` transcript, for the text baselines. */
export function transcriptOf(messages: readonly ModelMessage[]): string {
  return messages.map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${messageText(m)}`).join('\n');
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.floor((sorted.length - 1) / 2)] ?? 0);
};

/** The name of a row: the set at a ratio, and the style when rows are per style. */
export function longChatRow(set: string, ratio: number, domain?: string): string {
  return `${set}${domain ? ` [${domain}]` : ''} (τ ${ratio})`;
}

/**
 * Per ratio (and per style with `byDomain`), the recall of each compressor and of each baseline at the tokens
 * the first compressor reached on the same chat.
 */
export async function runLongChats(
  items: readonly LongChatItem[],
  compressors: readonly { name: string; compress: HistoryCompressor }[],
  options: { ratios?: readonly number[]; byDomain?: boolean } = {},
): Promise<SuiteSetFigures[]> {
  interface Tally {
    domain: string;
    items: number;
    evidence: number;
    kept: Map<string, number>;
    ratios: Map<string, number[]>;
    times: number[];
  }
  const tallies = new Map<string, Tally>();
  for (const ratio of options.ratios ?? LONG_CHAT_RATIOS) {
    for (const item of items) {
      const row = longChatRow(item.set, ratio, options.byDomain ? item.domain : undefined);
      let tally = tallies.get(row);
      if (tally === undefined) {
        tally = { domain: item.domain, items: 0, evidence: 0, kept: new Map(), ratios: new Map(), times: [] };
        tallies.set(row, tally);
      }
      const current = tally;
      current.items += 1;
      current.evidence += item.evidenceCount;
      const add = (method: string, kept: number, achieved: number): void => {
        current.kept.set(method, (current.kept.get(method) ?? 0) + kept);
        current.ratios.set(method, [...(current.ratios.get(method) ?? []), achieved]);
      };
      const inputTokens = messagesTokens(item.messages);
      let reference = 0;
      for (const [index, { name, compress }] of compressors.entries()) {
        const start = performance.now();
        const output = await compress(item, ratio);
        if (index === 0) current.times.push((performance.now() - start) / (inputTokens / 1000));
        const tokens = messagesTokens(output);
        if (index === 0) reference = tokens;
        add(name, item.kept(output.map(textOf).join('\n')), tokens / inputTokens);
      }
      const achieved = reference / inputTokens;
      const transcript = transcriptOf(item.messages);
      const text = (messages: readonly ModelMessage[]): string => messages.map(textOf).join('\n');
      add('truncate-head', item.kept(truncateHead(transcript, achieved)), achieved);
      add('truncate-tail', item.kept(truncateTail(transcript, achieved)), achieved);
      const randomKept = Array.from({ length: RANDOM_TURN_SEEDS }, (_, seed) =>
        item.kept(text(randomTurns(item.messages, reference, seed + 1))),
      );
      add('random turns', median(randomKept), achieved);
      add('last turns', item.kept(text(lastTurns(item.messages, reference))), achieved);
    }
  }
  const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return [...tallies].map(([set, tally]) => ({
    set,
    domain: tally.domain,
    items: tally.items,
    evidence: tally.evidence,
    methods: [...tally.kept].map(([method, kept]) => ({
      method,
      recall: kept / Math.max(1, tally.evidence),
      meanRatio: mean(tally.ratios.get(method) ?? []),
    })),
    msPer1k: median(tally.times),
  }));
}
