/**
 * The incremental prompt-cache model against a reference written straight from the rules: every request
 * serialized and tokenized whole, every cached prefix kept as its token string, nothing carried over from
 * the previous request but its tokens. Random sessions with random edits at random places must get the same
 * figures from both, call by call, under OpenAI's, Anthropic's and Google's rules.
 */
import type { LanguageModelV3FunctionTool, LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { promptCacheRulesFor, type PromptCacheRules } from './cache-rules.js';
import { PromptCache, type CacheSegment, type PromptCacheUsage } from './prompt-cache.js';
import { promptSegments } from './prompt-segments.js';

/** The rules applied directly: each request on its own, prefixes looked up by their tokens. */
class ReferenceCache {
  private readonly latest = new Map<string, number[]>();
  /** Automatic prefix caching: when each block prefix (by its tokens) stops being cached. */
  private readonly blocks = new Map<string, Map<string, number>>();
  /** Breakpoint caching: each prefix written at a breakpoint, with its time to live. */
  private readonly entries = new Map<string, Map<string, { expiresAt: number; ttlMs: number }>>();

  constructor(private readonly rules: PromptCacheRules) {}

  observe(key: string, segments: readonly CacheSegment[], at: number): PromptCacheUsage {
    const tokens = segments.flatMap((s) => Array.from(s.tokens));
    const previous = this.latest.get(key);
    let firstChangedToken = 0;
    if (previous)
      while (
        firstChangedToken < Math.min(previous.length, tokens.length) &&
        previous[firstChangedToken] === tokens[firstChangedToken]
      )
        firstChangedToken += 1;
    this.latest.set(key, tokens);
    const counts =
      this.rules.mechanism === 'automatic-prefix'
        ? this.automatic(key, tokens, at)
        : this.breakpoints(key, segments, tokens, at);
    return {
      rules: this.rules.name,
      promptTokens: tokens.length,
      ...counts,
      uncachedTokens: tokens.length - counts.readTokens - counts.writeTokens,
      firstChangedToken,
    };
  }

  private automatic(key: string, tokens: number[], at: number) {
    const { minTokens, blockTokens, ttlMs } = this.rules;
    const cached = this.blocks.get(key) ?? new Map<string, number>();
    this.blocks.set(key, cached);
    const none = { readTokens: 0, writeTokens: 0, writeLongTtlTokens: 0 };
    if (tokens.length < minTokens) return none;
    const count = Math.floor(tokens.length / blockTokens);
    const prefix = (block: number) => tokens.slice(0, block * blockTokens).join(',');
    let hits = 0;
    while (hits < count && (cached.get(prefix(hits + 1)) ?? -1) >= at) hits += 1;
    for (let block = 1; block <= count; block += 1) cached.set(prefix(block), at + ttlMs);
    const read = hits * blockTokens;
    return { ...none, readTokens: read >= minTokens ? read : 0 };
  }

  private breakpoints(key: string, segments: readonly CacheSegment[], tokens: number[], at: number) {
    const { minTokens, maxBreakpoints, lookbackBlocks, ttlMs } = this.rules;
    const longTtlMs = this.rules.longTtlMs ?? ttlMs;
    const entries = this.entries.get(key) ?? new Map<string, { expiresAt: number; ttlMs: number }>();
    this.entries.set(key, entries);
    const ends: number[] = [];
    for (const segment of segments) ends.push((ends.at(-1) ?? 0) + segment.tokens.length);
    const prefix = (index: number) => tokens.slice(0, ends[index]).join(',');
    const live = (index: number) => (entries.get(prefix(index))?.expiresAt ?? -1) >= at;
    const marked = segments.flatMap((s, index) => (s.breakpoint ? [index] : [])).slice(0, maxBreakpoints);
    // The longest prefix written before that ends at a breakpoint or up to `lookbackBlocks` blocks before one.
    let readTokens = 0;
    let readAt = -1;
    for (const breakpoint of marked)
      for (let index = Math.max(0, breakpoint - lookbackBlocks); index <= breakpoint; index += 1)
        if (ends[index]! >= minTokens && ends[index]! > readTokens && live(index)) {
          readTokens = ends[index]!;
          readAt = index;
        }
    let writeTokens = 0;
    let writeLongTtlTokens = 0;
    let written = readTokens;
    for (const breakpoint of marked) {
      const end = ends[breakpoint]!;
      if (end <= readTokens) {
        const entry = entries.get(prefix(breakpoint));
        if (live(breakpoint)) entries.set(prefix(breakpoint), { expiresAt: at + entry!.ttlMs, ttlMs: entry!.ttlMs });
        continue;
      }
      if (end < minTokens) continue;
      const long = segments[breakpoint]!.breakpoint === 'long';
      writeTokens += end - written;
      if (long) writeLongTtlTokens += end - written;
      written = end;
      entries.set(prefix(breakpoint), { expiresAt: at + (long ? longTtlMs : ttlMs), ttlMs: long ? longTtlMs : ttlMs });
    }
    if (readAt >= 0) {
      const entry = entries.get(prefix(readAt))!;
      entries.set(prefix(readAt), { expiresAt: at + entry.ttlMs, ttlMs: entry.ttlMs });
    }
    return { readTokens, writeTokens, writeLongTtlTokens };
  }
}

const OPENAI = promptCacheRulesFor('openai', 'gpt-4.1')!;
const SONNET = promptCacheRulesFor('anthropic', 'claude-sonnet-4-5')!;
const FLASH = promptCacheRulesFor('google', 'gemini-2.5-flash')!;
const PRO = promptCacheRulesFor('google', 'gemini-2.5-pro')!;
/** The same mechanisms at a small scale, so short random sessions cross many blocks and minimums. */
const SMALL_AUTOMATIC: PromptCacheRules = { ...OPENAI, name: 'small-automatic', minTokens: 128, blockTokens: 16 };
const SMALL_BREAKPOINTS: PromptCacheRules = { ...SONNET, name: 'small-breakpoints', minTokens: 30, lookbackBlocks: 3 };
const RULES = [OPENAI, SONNET, FLASH, PRO, SMALL_AUTOMATIC, SMALL_BREAKPOINTS];

type Ttl = CacheSegment['breakpoint'];
const whereArb = fc.double({ min: 0, max: 1, noNaN: true });
const ttlArb = fc.constantFrom<Ttl>('short', 'long', undefined);

/** One edit of a request: its units (segments or messages) appended, replaced, moved, marked or cut. */
type Edit =
  | { kind: 'append'; count: number }
  | { kind: 'replace' | 'insert'; where: number; variant: number }
  | { kind: 'delete' | 'truncate'; where: number }
  | { kind: 'mark'; where: number; ttl: Ttl }
  /** Appends and moves the last breakpoint to the new end, as the runner's hints do each step. */
  | { kind: 'grow'; count: number; ttl: Ttl }
  /** Sends an earlier request of the key again. */
  | { kind: 'revert'; back: number };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 4 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('grow' as const), count: fc.integer({ min: 1, max: 6 }), ttl: ttlArb }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('mark' as const), where: whereArb, ttl: ttlArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom('replace' as const, 'insert' as const),
      where: whereArb,
      variant: fc.nat(5),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constantFrom('delete' as const, 'truncate' as const), where: whereArb }),
  },
  // Cut short, below the minimum length, to be reverted back above it.
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('truncate' as const),
      where: fc.double({ min: 0, max: 0.15, noNaN: true }),
    }),
  },
  // An earlier request again; the last one again reads its breakpoints and refreshes those inside the read.
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('revert' as const), back: fc.integer({ min: 1, max: 3 }) }) },
);
const stepArb = fc.record({
  edits: fc.array(editArb, { minLength: 1, maxLength: 2 }),
  key: fc.constantFrom('a', 'a', 'a', 'b'),
  restoreMs: fc.option(fc.integer({ min: 0, max: 4 * 60_000 }), { freq: 3, nil: undefined }),
  // Within and past the five-minute lifetime, exactly at it, and short of the hour.
  gapMs: fc.oneof(fc.integer({ min: 0, max: 7 * 60_000 }), fc.constantFrom(3 * 60_000, 5 * 60_000, 5 * 60_000 + 1)),
});
interface Session {
  seed: number[];
  /** `restoreMs`: the request before the edits is sent again that long after the edited one. */
  steps: { edits: Edit[]; key: string; gapMs: number; restoreMs: number | undefined }[];
}

const sessionArb: fc.Arbitrary<Session> = fc.record({
  seed: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 3, maxLength: 40 }),
  steps: fc.array(stepArb, { minLength: 1, maxLength: 14 }),
});

/** How a test builds, marks and reads the breakpoint of one unit of a request. */
interface Units<T> {
  make(n: number): T;
  mark(unit: T, ttl: Ttl): T;
  marked(unit: T): boolean;
}

/** Applies an edit to a request, new units made from fresh numbers or from a few shared ones. */
function edited<T>(list: readonly T[], edit: Edit, units: Units<T>, fresh: () => number, earlier: readonly T[][]): T[] {
  if (edit.kind === 'revert') return earlier[Math.max(0, earlier.length - edit.back)] ?? list.slice();
  const next = list.slice();
  const at = 'where' in edit ? Math.min(next.length, Math.floor(edit.where * (next.length + 1))) : next.length;
  switch (edit.kind) {
    case 'append':
      for (let index = 0; index < edit.count; index += 1) next.push(units.make(fresh()));
      break;
    case 'grow': {
      const last = next.findLastIndex((unit) => units.marked(unit));
      if (last >= 0) next[last] = units.mark(next[last]!, undefined);
      for (let index = 0; index < edit.count; index += 1) next.push(units.make(fresh()));
      next[next.length - 1] = units.mark(next[next.length - 1]!, edit.ttl ?? 'short');
      break;
    }
    case 'replace':
      if (at < next.length) next[at] = units.make(edit.variant === 0 ? fresh() : edit.variant);
      break;
    case 'insert':
      next.splice(at, 0, units.make(edit.variant === 0 ? fresh() : edit.variant));
      break;
    case 'delete':
      next.splice(at, 1);
      break;
    case 'mark':
      if (at < next.length) next[at] = units.mark(next[at]!, edit.ttl);
      break;
    case 'truncate':
      next.length = at;
  }
  return next;
}

/** The requests of a random session, each key's edits applied to its own previous request. */
function session<T>({ seed, steps }: Session, units: Units<T>): { key: string; at: number; request: T[] }[] {
  let counter = 2000;
  const fresh = () => (counter += 1);
  const sent = new Map<string, T[][]>();
  // Every key starts from the same request, its units the same objects.
  const first = seed.map((n) => units.make(n));
  let at = 0;
  return steps.flatMap(({ edits, key, gapMs, restoreMs }) => {
    const earlier = sent.get(key) ?? [];
    sent.set(key, earlier);
    const before = earlier.at(-1) ?? first;
    let request = before;
    for (const edit of edits) request = edited(request, edit, units, fresh, earlier);
    earlier.push(request);
    const calls = [{ key, at: (at += gapMs), request }];
    if (restoreMs !== undefined) {
      earlier.push(before);
      calls.push({ key, at: (at += restoreMs), request: before });
    }
    return calls;
  });
}

/** What the sessions exercised, so a test that compares only empty figures fails. */
const seen = { reads: 0, writes: 0, longWrites: 0, changes: 0 };

/** Feeds both models the same calls; every call's figures must agree. */
function agree(
  rules: PromptCacheRules,
  calls: readonly {
    key: string;
    at: number;
    segments: CacheSegment[];
    usage: (cache: PromptCache) => PromptCacheUsage;
  }[],
): void {
  const model = new PromptCache(rules);
  const reference = new ReferenceCache(rules);
  for (const call of calls) {
    const expected = reference.observe(call.key, call.segments, call.at);
    expect(call.usage(model)).toEqual(expected);
    if (expected.readTokens > 0) seen.reads += 1;
    if (expected.writeTokens > 0) seen.writes += 1;
    if (expected.writeLongTtlTokens > 0) seen.longWrites += 1;
    if (expected.firstChangedToken > 0 && expected.firstChangedToken < expected.promptTokens) seen.changes += 1;
  }
}

/** Segments of a number: tokens derived from it, some empty, some equal between numbers. */
const segmentUnits: Units<CacheSegment> = {
  make: (seed) => {
    const length = seed % 7 === 0 ? 0 : 1 + ((seed * 37) % 90);
    const tokens = Array.from({ length }, (_, index) => (index * 3 + (seed % 5 === 0 ? 0 : seed)) % 50);
    return { text: tokens.join(','), tokens };
  },
  mark: ({ text, tokens }, ttl) => (ttl ? { text, tokens, breakpoint: ttl } : { text, tokens }),
  marked: (segment) => segment.breakpoint !== undefined,
};

describe('PromptCache against the reference', () => {
  it.each(RULES.map((rules) => [rules.name, rules] as const))(
    'agrees on random sessions of segments, edited anywhere: %s',
    (_, rules) => {
      fc.assert(
        fc.property(sessionArb, (generated) => {
          const calls = session(generated, segmentUnits).map(({ key, at, request }) => ({
            key,
            at,
            segments: request,
            usage: (cache: PromptCache) => cache.observe(key, request, at),
          }));
          agree(rules, calls);
        }),
        { numRuns: 300 },
      );
    },
  );
});

const WORDS = ['alpha', ' beta', ' gamma', ' delta', ',', ' epsilon', '\n', ' zeta', ' 42', ' eta'];
const words = (seed: number, count: number): string =>
  Array.from({ length: count }, (_, index) => WORDS[(seed * 7 + index * (seed % 3 === 0 ? 1 : 3)) % WORDS.length]).join(
    '',
  );
const ephemeral = (ttl: Ttl) => ({
  anthropic: { cacheControl: { type: 'ephemeral', ...(ttl === 'long' ? { ttl: '1h' } : {}) } },
});

/** Messages of every role from a number: text parts, tool calls and results, some with part breakpoints. */
const messageUnits: Units<LanguageModelV3Message> = {
  make: (seed) => {
    const text = words(seed, 5 + ((seed * 13) % 120));
    const part = seed % 11 === 0 ? { providerOptions: ephemeral(seed % 2 ? 'long' : 'short') } : {};
    switch (seed % 4) {
      case 0:
        return {
          role: 'user',
          content: [
            { type: 'text', text, ...part },
            ...(seed % 3 ? [] : [{ type: 'text' as const, text: words(seed + 1, 9) }]),
          ],
        };
      case 1:
        return {
          role: 'assistant',
          content: [
            ...(seed % 5 ? [{ type: 'text' as const, text }] : []),
            {
              type: 'tool-call',
              toolCallId: `c${seed}`,
              toolName: 'lookup',
              input: { q: words(seed, 3), n: seed % 9 },
              ...part,
            },
          ],
        };
      case 2:
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: `c${seed}`,
              toolName: 'lookup',
              output: { type: 'text', value: text },
              ...part,
            },
          ],
        };
      default:
        return { role: 'system', content: text };
    }
  },
  mark: (message, ttl) => {
    const { providerOptions: _, ...rest } = message;
    return (ttl ? { ...rest, providerOptions: ephemeral(ttl) } : rest) as LanguageModelV3Message;
  },
  marked: (message) => message.providerOptions !== undefined,
};

const TOOLS: LanguageModelV3FunctionTool[] = [0, 1, 2].map((index) => ({
  type: 'function',
  name: `tool${index}`,
  description: words(index, 30),
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  ...(index === 2 ? { providerOptions: ephemeral('short') } : {}),
}));

describe('PromptCache against the reference, by hand', () => {
  it('refreshes a breakpoint inside the prefix read, so it outlives its first five minutes', () => {
    const segment = (offset: number, length: number): CacheSegment => {
      const tokens = Array.from({ length }, (_, index) => (index + offset) % 89);
      return { text: tokens.join(','), tokens, breakpoint: 'short' };
    };
    const first = [segment(0, 1100), segment(1, 200)];
    const changed = [first[0]!, segment(2, 200)];
    const calls = [first, first, changed].map((segments, index) => ({
      key: 's',
      at: index * 3 * 60_000,
      segments,
      usage: (cache: PromptCache) => cache.observe('s', segments, index * 3 * 60_000),
    }));
    agree(SONNET, calls);
    const cache = new PromptCache(SONNET);
    expect(calls.map((call) => call.usage(cache).readTokens)).toEqual([0, 1300, 1100]);
  });
});

describe('PromptCache.observePrompt with continuity, by hand', () => {
  it('trusts only a continuity that follows on from the key own previous prompt', () => {
    const p1 = Array.from({ length: 12 }, (_, index) => messageUnits.make(index * 4 + 1));
    const p2 = p1.map((message, index) => (index === 5 ? messageUnits.make(1001) : message));
    const plain = new PromptCache(OPENAI);
    const vouched = new PromptCache(OPENAI);
    plain.observePrompt('a', p1, TOOLS, 0);
    vouched.observePrompt('a', p1, TOOLS, 0, 'o200k_base', { source: 1, render: 1, unchanged: 0 });
    // Render 2 of the same source went to another key; render 3 shares all of it, not all of render 1.
    vouched.observePrompt('b', p2, TOOLS, 1, 'o200k_base', { source: 1, render: 2, unchanged: 1 });
    const expected = plain.observePrompt('a', p2, TOOLS, 2);
    expect(expected.firstChangedToken).toBeLessThan(expected.promptTokens);
    expect(vouched.observePrompt('a', p2, TOOLS, 2, 'o200k_base', { source: 1, render: 3, unchanged: 12 })).toEqual(
      expected,
    );
    // Nor one of another source, even right after.
    const other = new PromptCache(OPENAI);
    other.observePrompt('a', p1, TOOLS, 0, 'o200k_base', { source: 1, render: 1, unchanged: 0 });
    expect(other.observePrompt('a', p2, TOOLS, 2, 'o200k_base', { source: 2, render: 2, unchanged: 12 })).toEqual(
      expected,
    );
  });
});

describe('PromptCache.observePrompt against the reference', () => {
  const rules = [OPENAI, SONNET, FLASH, SMALL_AUTOMATIC, SMALL_BREAKPOINTS];
  // With continuity, one source renders the prompts of both keys in turn (two agents on one history): what a
  // prompt shares with the render before it, found here message by message, is vouched for.
  it.each(rules.flatMap((r) => [false, true].map((vouched) => [r.name, vouched, r] as const)))(
    'agrees on random prompts, edited anywhere: %s, with continuity %s',
    (_, vouched, rules) => {
      fc.assert(
        fc.property(sessionArb, fc.array(fc.nat(3), { minLength: 20, maxLength: 20 }), (generated, toolChoices) => {
          let last: LanguageModelV3Prompt = [];
          const calls = session(generated, messageUnits).map(({ key, at, request }, index) => {
            // The runner builds its system message anew at every call: same text, another object.
            const prompt = request.map((m) => (m.role === 'system' ? { ...m } : m));
            const choice = toolChoices[index % toolChoices.length]!;
            // The same tools, the same tools in a new array, one fewer, or none.
            const tools = choice === 0 ? TOOLS : choice === 1 ? [...TOOLS] : choice === 2 ? TOOLS.slice(1) : [];
            let unchanged = 1;
            while (unchanged < Math.min(prompt.length, last.length) && prompt[unchanged] === last[unchanged])
              unchanged += 1;
            last = prompt;
            const continuity = vouched ? { source: 1, render: index + 1, unchanged } : undefined;
            return {
              key,
              at,
              segments: promptSegments(prompt, tools),
              usage: (cache: PromptCache) => cache.observePrompt(key, prompt, tools, at, 'o200k_base', continuity),
            };
          });
          agree(rules, calls);
        }),
        { numRuns: 100 },
      );
    },
  );
});

describe('the sessions above', () => {
  it('was fed sessions that read, write, write for an hour and change mid-request', () => {
    expect(Math.min(seen.reads, seen.writes, seen.longWrites, seen.changes)).toBeGreaterThan(20);
  });
});
