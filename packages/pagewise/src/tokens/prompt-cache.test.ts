import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { promptCacheRulesFor, type PromptCacheRules } from './cache-rules.js';
import { PromptCache, type CacheSegment } from './prompt-cache.js';

const OPENAI = promptCacheRulesFor('openai.chat', 'gpt-4.1')!;
const SONNET = promptCacheRulesFor('anthropic.messages', 'claude-sonnet-4-5')!;

/** A segment whose text names its tokens, so equal texts have equal tokens. */
function segment(tokens: number[], breakpoint?: CacheSegment['breakpoint']): CacheSegment {
  return { text: tokens.join(','), tokens, ...(breakpoint ? { breakpoint } : {}) };
}

/** Cuts a token sequence into segments of the given lengths (the rest in a last one). */
function cut(tokens: number[], lengths: number[]): CacheSegment[] {
  const out: CacheSegment[] = [];
  let at = 0;
  for (const length of lengths) {
    if (at >= tokens.length) break;
    out.push(segment(tokens.slice(at, at + length)));
    at += length;
  }
  if (at < tokens.length) out.push(segment(tokens.slice(at)));
  return out;
}

const flat = (segments: readonly CacheSegment[]): number[] => segments.flatMap((s) => Array.from(s.tokens));

function commonPrefix(left: readonly number[], right: readonly number[]): number {
  let length = 0;
  while (length < left.length && length < right.length && left[length] === right[length]) length += 1;
  return length;
}

/** OpenAI's published rule, written out directly: the longest common prefix with any earlier request. */
function openAiReference(rules: PromptCacheRules, earlier: readonly number[][], tokens: readonly number[]): number {
  if (tokens.length < rules.minTokens) return 0;
  let longest = 0;
  for (const previous of earlier)
    if (previous.length >= rules.minTokens) longest = Math.max(longest, commonPrefix(previous, tokens));
  const blocks = Math.floor(longest / rules.blockTokens) * rules.blockTokens;
  return blocks >= rules.minTokens ? blocks : 0;
}

const tokenArb = fc.integer({ min: 0, max: 40 });
const sequenceArb = fc.array(tokenArb, { minLength: 900, maxLength: 2600 });
const lengthsArb = fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 12 });

describe('PromptCache, OpenAI rules', () => {
  it('caches all of an append-only session but its tail below the 128-token block', () => {
    fc.assert(
      fc.property(
        sequenceArb,
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 2, maxLength: 6 }),
        (tokens, steps) => {
          const cache = new PromptCache(OPENAI);
          let length = Math.min(tokens.length, steps[0]!);
          let previousLength = 0;
          let at = 0;
          for (const step of steps) {
            const segments = cut(tokens.slice(0, length), [300, 200, 500]);
            const usage = cache.observe('session', segments, (at += 1000));
            const expected = length >= 1024 && previousLength >= 1024 ? Math.floor(previousLength / 128) * 128 : 0;
            expect(usage.readTokens).toBe(expected);
            expect(usage.uncachedTokens).toBe(length - expected);
            expect(usage.firstChangedToken).toBe(previousLength);
            previousLength = length;
            length = Math.min(tokens.length, length + step);
          }
        },
      ),
    );
  });

  it('after a change at token k reads at most the 128-multiple below k, and exactly the published rule', () => {
    fc.assert(
      fc.property(
        sequenceArb,
        lengthsArb,
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 300 })), {
          minLength: 1,
          maxLength: 6,
        }),
        (tokens, lengths, changes) => {
          const cache = new PromptCache(OPENAI);
          const earlier: number[][] = [];
          let current = tokens;
          let at = 0;
          cache.observe('session', cut(current, lengths), at);
          earlier.push(current);
          for (const [round, [where, appended]] of changes.entries()) {
            const changeAt = Math.floor(where * current.length);
            // A token outside the alphabet of the sequence and new in each round, so the change is a change.
            const next = [...current.slice(0, changeAt), 1000 + round, ...current.slice(changeAt + 1)];
            for (let index = 0; index < appended; index += 1) next.push(index % 40);
            const usage = cache.observe('session', cut(next, lengths), (at += 1000));
            expect(usage.firstChangedToken).toBe(changeAt);
            expect(usage.readTokens).toBe(openAiReference(OPENAI, earlier, next));
            if (usage.readTokens > 0 && earlier.length === 1)
              expect(usage.readTokens).toBeLessThanOrEqual(Math.floor(changeAt / 128) * 128);
            expect(usage.readTokens + usage.writeTokens + usage.uncachedTokens).toBe(next.length);
            earlier.push(next);
            current = next;
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('does not depend on how the tokens are cut into segments', () => {
    fc.assert(
      fc.property(
        sequenceArb,
        lengthsArb,
        lengthsArb,
        fc.integer({ min: 0, max: 2000 }),
        (tokens, first, second, cutAt) => {
          const changed = [...tokens.slice(0, cutAt), 99, ...tokens.slice(cutAt)];
          const one = new PromptCache(OPENAI);
          const other = new PromptCache(OPENAI);
          one.observe('s', cut(tokens, first), 0);
          other.observe('s', cut(tokens, second), 0);
          expect(one.observe('s', cut(changed, first), 1).readTokens).toBe(
            other.observe('s', cut(changed, second), 1).readTokens,
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('expires a prefix not used within the time to live, measured in the caller clock', () => {
    const tokens = Array.from({ length: 2000 }, (_, index) => index % 97);
    const cache = new PromptCache(OPENAI);
    cache.observe('s', cut(tokens, [1000]), 0);
    expect(cache.observe('s', cut(tokens, [1000]), OPENAI.ttlMs).readTokens).toBe(1920);
    expect(cache.observe('s', cut(tokens, [1000]), 2 * OPENAI.ttlMs + 1).readTokens).toBe(0);
  });

  it('keeps sessions apart', () => {
    const tokens = Array.from({ length: 2000 }, (_, index) => index % 97);
    const cache = new PromptCache(OPENAI);
    cache.observe('one', cut(tokens, [700]), 0);
    expect(cache.observe('two', cut(tokens, [700]), 1).readTokens).toBe(0);
    expect(cache.observe('one', cut(tokens, [700]), 2).readTokens).toBe(1920);
  });
});

describe('PromptCache, Anthropic rules', () => {
  const long = (length: number, offset = 0): number[] => Array.from({ length }, (_, index) => (index + offset) % 89);

  it('writes the prefix up to a breakpoint at 1,024 tokens or more and reads it on the next call', () => {
    const cache = new PromptCache(SONNET);
    const request = [segment(long(1100), 'short'), segment(long(50, 7))];
    const first = cache.observe('s', request, 0);
    expect(first).toMatchObject({ readTokens: 0, writeTokens: 1100, uncachedTokens: 50 });
    const second = cache.observe('s', [...request, segment(long(30, 3))], 1000);
    expect(second).toMatchObject({ readTokens: 1100, writeTokens: 0, uncachedTokens: 80 });
  });

  it('caches nothing without a breakpoint, or below the minimum length', () => {
    const cache = new PromptCache(SONNET);
    const plain = [segment(long(3000))];
    cache.observe('s', plain, 0);
    expect(cache.observe('s', plain, 1)).toMatchObject({ readTokens: 0, writeTokens: 0, uncachedTokens: 3000 });
    const short = [segment(long(1000), 'short'), segment(long(500, 1))];
    cache.observe('t', short, 0);
    expect(cache.observe('t', short, 1)).toMatchObject({ readTokens: 0, writeTokens: 0, uncachedTokens: 1500 });
    const haiku = new PromptCache(promptCacheRulesFor('anthropic', 'claude-3-5-haiku-latest')!);
    const mid = [segment(long(1500), 'short')];
    haiku.observe('s', mid, 0);
    expect(haiku.observe('s', mid, 1).readTokens).toBe(0);
  });

  it('finds the previous breakpoint by lookback when the breakpoint moves forward, within 20 blocks', () => {
    const cache = new PromptCache(SONNET);
    const history = [segment(long(1200))];
    for (let turn = 0; turn < 30; turn += 1) history.push(segment(long(10, turn + 1)));
    const atTurn = (turns: number): CacheSegment[] =>
      history.slice(0, turns + 1).map((s, index) => (index === turns ? segment(Array.from(s.tokens), 'short') : s));
    expect(cache.observe('s', atTurn(2), 0)).toMatchObject({ readTokens: 0, writeTokens: 1220 });
    // Two blocks later: the entry at the old breakpoint is read, the new tail written.
    expect(cache.observe('s', atTurn(4), 1)).toMatchObject({ readTokens: 1220, writeTokens: 20 });
    // 21 blocks later: past the lookback, nothing is read.
    expect(cache.observe('s', atTurn(25), 2)).toMatchObject({ readTokens: 0, writeTokens: 1450 });
  });

  it('bills the long time to live apart and keeps such an entry past five minutes', () => {
    const cache = new PromptCache(SONNET);
    const request = [segment(long(1100), 'long'), segment(long(200, 5), 'short')];
    expect(cache.observe('s', request, 0)).toMatchObject({ writeTokens: 1300, writeLongTtlTokens: 1100 });
    const later = cache.observe('s', request, 10 * 60_000);
    expect(later).toMatchObject({ readTokens: 1100, writeTokens: 200, writeLongTtlTokens: 0 });
    expect(cache.observe('s', request, 10 * 60_000 + 61 * 60_000).readTokens).toBe(0);
  });

  it('honours at most four breakpoints', () => {
    const cache = new PromptCache(SONNET);
    const request = [1, 2, 3, 4, 5].map((index) => segment(long(1100, index), 'short'));
    expect(cache.observe('s', request, 0).writeTokens).toBe(4400);
  });

  it('reads only prefixes that end at a breakpoint written before, and accounts for every token', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 600 }), fc.boolean(), fc.integer({ min: 0, max: 3 })), {
          minLength: 2,
          maxLength: 14,
        }),
        fc.array(fc.integer({ min: 0, max: 13 }), { minLength: 1, maxLength: 4 }),
        (shape, changed) => {
          const cache = new PromptCache(SONNET);
          const written = new Set<string>();
          let at = 0;
          for (let round = 0; round <= changed.length; round += 1) {
            const segments = shape.map(([length, marked, variant], index) =>
              segment(
                long(length, index * 10 + (changed.slice(0, round).includes(index) ? variant + 50 : 0)),
                marked ? 'short' : undefined,
              ),
            );
            const usage = cache.observe('s', segments, (at += 1000));
            expect(usage.readTokens + usage.writeTokens + usage.uncachedTokens).toBe(usage.promptTokens);
            if (usage.readTokens > 0) {
              const prefix = flat(segments).slice(0, usage.readTokens).join(',');
              expect(written.has(prefix)).toBe(true);
              expect(usage.readTokens).toBeGreaterThanOrEqual(SONNET.minTokens);
            }
            let end = 0;
            segments.forEach((current, index) => {
              end += current.tokens.length;
              const breakpoints = segments.slice(0, index + 1).filter((x) => x.breakpoint).length;
              if (current.breakpoint && breakpoints <= 4 && end >= SONNET.minTokens)
                written.add(flat(segments).slice(0, end).join(','));
            });
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});
