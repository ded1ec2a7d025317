/**
 * The prompt-cache model: given each request of a session as the provider receives it (token segments in
 * the provider's order), the tokens a provider's cache would serve (read), store at a write price (write)
 * and leave to the full input price (uncached), under the rules of `cache-rules.ts`. The state per key is
 * the previous request's segments with the running hash at each segment end, and the cache entries as
 * hashes of prefixes, so a call hashes only the tokens from the first segment that changed.
 */
import type { PromptCacheRules } from './cache-rules.js';

/** One segment of a serialized request: a unit the provider tokenizes on its own (a tool, a message part). */
export interface CacheSegment {
  /** The segment's text; segments are compared by it, so equal texts must have equal tokens. */
  text: string;
  /** Its token ids. */
  tokens: ArrayLike<number>;
  /** A `cache_control` breakpoint at the end of the segment, with its time to live (breakpoint caching). */
  breakpoint?: 'short' | 'long';
}

/** What the model says of one request. */
export interface PromptCacheUsage {
  /** The rule set applied ({@link PromptCacheRules.name}). */
  rules: string;
  /** Tokens of the serialized request. */
  promptTokens: number;
  /** Tokens read from the cache. */
  readTokens: number;
  /** Tokens written to the cache (billed at a write price; 0 under automatic prefix caching). */
  writeTokens: number;
  /** The part of `writeTokens` written with the long time to live (Anthropic's 1 hour). */
  writeLongTtlTokens: number;
  /** Tokens neither read nor written: billed at the input price. */
  uncachedTokens: number;
  /**
   * The position of the first token that differs from the previous request of the same key (its length
   * when the request extends it unchanged; 0 on the first request).
   */
  firstChangedToken: number;
}

interface CacheEntry {
  expiresAt: number;
  ttlMs: number;
}

interface KeyState {
  texts: string[];
  tokens: ArrayLike<number>[];
  /** Token offset at the end of each segment. */
  ends: number[];
  /** The two halves of the running hash at the end of each segment. */
  endHashLow: number[];
  endHashHigh: number[];
  /** The prefix hash at every multiple of the block size (automatic prefix caching). */
  blockHashes: number[];
  entries: Map<number, CacheEntry>;
}

/** Options of {@link PromptCache}. */
export interface PromptCacheOptions {
  /** Keys (sessions) kept; the least recently used is dropped past it (default 1,000). */
  maxKeys?: number;
  /** Cache entries kept per key; the oldest is dropped past it (default 200,000). */
  maxEntriesPerKey?: number;
}

const SEED_LOW = 0x811c9dc5;
const SEED_HIGH = 0x6a09e667;

/** The 53-bit key of a running hash. */
function prefixKey(low: number, high: number): number {
  return (high >>> 11) * 0x1_0000_0000 + (low >>> 0);
}

/**
 * A provider's prompt cache, modelled per key (a session): {@link observe} each request in call order with
 * the run's own clock, and it returns what the provider would read, write and bill uncached.
 *
 * @example
 * const cache = new PromptCache(promptCacheRulesFor('openai', 'gpt-4.1')!);
 * const usage = cache.observe('session-1', promptSegments(prompt, tools), Date.now());
 * usage.readTokens; // 0 on the first call, the cached prefix after
 */
export class PromptCache {
  private readonly states = new Map<string, KeyState>();
  private readonly maxKeys: number;
  private readonly maxEntries: number;

  constructor(
    readonly rules: PromptCacheRules,
    options: PromptCacheOptions = {},
  ) {
    this.maxKeys = options.maxKeys ?? 1000;
    this.maxEntries = options.maxEntriesPerKey ?? 200_000;
  }

  /** Forgets everything about `key`. */
  forget(key: string): void {
    this.states.delete(key);
  }

  /** Models one request of `key` made at `at` (ms, the run's clock) and remembers it for the next. */
  observe(key: string, segments: readonly CacheSegment[], at: number): PromptCacheUsage {
    const previous = this.states.get(key);
    if (previous) this.states.delete(key);
    const state = this.advance(previous, segments);
    this.states.set(key, state);
    if (this.states.size > this.maxKeys) this.states.delete(this.states.keys().next().value!);
    const promptTokens = state.ends.at(-1) ?? 0;
    const firstChangedToken = previous ? firstDifference(previous, state) : 0;
    const counts =
      this.rules.mechanism === 'automatic-prefix'
        ? this.automaticPrefix(state, promptTokens, at)
        : this.breakpoints(state, segments, at);
    this.trim(state.entries);
    return {
      rules: this.rules.name,
      promptTokens,
      ...counts,
      uncachedTokens: promptTokens - counts.readTokens - counts.writeTokens,
      firstChangedToken,
    };
  }

  /** The state of this request: the previous one's up to the first changed segment, hashed on from there. */
  private advance(previous: KeyState | undefined, segments: readonly CacheSegment[]): KeyState {
    let same = 0;
    if (previous) {
      const limit = Math.min(previous.texts.length, segments.length);
      while (same < limit && previous.texts[same] === segments[same]!.text) same += 1;
    }
    const keep = (values: number[] | undefined): number[] => (values ? values.slice(0, same) : []);
    const state: KeyState = {
      texts: previous ? previous.texts.slice(0, same) : [],
      tokens: previous ? previous.tokens.slice(0, same) : [],
      ends: keep(previous?.ends),
      endHashLow: keep(previous?.endHashLow),
      endHashHigh: keep(previous?.endHashHigh),
      blockHashes: [],
      entries: previous?.entries ?? new Map(),
    };
    let position = same > 0 ? state.ends[same - 1]! : 0;
    let low = same > 0 ? state.endHashLow[same - 1]! : SEED_LOW;
    let high = same > 0 ? state.endHashHigh[same - 1]! : SEED_HIGH;
    const block = this.rules.mechanism === 'automatic-prefix' ? this.rules.blockTokens : 0;
    if (block > 0 && previous) state.blockHashes = previous.blockHashes.slice(0, Math.floor(position / block));
    for (let index = same; index < segments.length; index += 1) {
      const { text, tokens } = segments[index]!;
      for (let at = 0; at < tokens.length; at += 1) {
        const token = tokens[at]!;
        low = Math.imul(low ^ token, 0x01000193);
        high = Math.imul((high << 5) ^ (high >>> 27) ^ token, 0x9e3779b1) + 0x7f4a7c15;
        position += 1;
        if (block > 0 && position % block === 0) state.blockHashes.push(prefixKey(low, high));
      }
      state.texts.push(text);
      state.tokens.push(tokens);
      state.ends.push(position);
      state.endHashLow.push(low);
      state.endHashHigh.push(high);
    }
    return state;
  }

  /** OpenAI's and Google's rule: the longest cached prefix in whole blocks, from the minimum length on. */
  private automaticPrefix(
    state: KeyState,
    promptTokens: number,
    at: number,
  ): Pick<PromptCacheUsage, 'readTokens' | 'writeTokens' | 'writeLongTtlTokens'> {
    const { minTokens, blockTokens, ttlMs } = this.rules;
    if (promptTokens < minTokens) return { readTokens: 0, writeTokens: 0, writeLongTtlTokens: 0 };
    const { entries, blockHashes } = state;
    let hitBlocks = 0;
    while (hitBlocks < blockHashes.length && live(entries.get(blockHashes[hitBlocks]!), at)) hitBlocks += 1;
    const readTokens = hitBlocks * blockTokens >= minTokens ? hitBlocks * blockTokens : 0;
    // Every prefix of this request is cached from now on, the ones it read refreshed.
    for (const hash of blockHashes) entries.set(hash, { expiresAt: at + ttlMs, ttlMs });
    return { readTokens, writeTokens: 0, writeLongTtlTokens: 0 };
  }

  /** Anthropic's rule: prefixes end at breakpoints; a hit is looked up at and shortly before each one. */
  private breakpoints(
    state: KeyState,
    segments: readonly CacheSegment[],
    at: number,
  ): Pick<PromptCacheUsage, 'readTokens' | 'writeTokens' | 'writeLongTtlTokens'> {
    const { minTokens, maxBreakpoints, lookbackBlocks, ttlMs } = this.rules;
    const longTtlMs = this.rules.longTtlMs ?? ttlMs;
    const marked: number[] = [];
    for (let index = 0; index < segments.length && marked.length < maxBreakpoints; index += 1)
      if (segments[index]!.breakpoint) marked.push(index);
    const { entries, ends } = state;
    const keyAt = (index: number): number => prefixKey(state.endHashLow[index]!, state.endHashHigh[index]!);
    let readEnd = -1;
    for (const breakpoint of marked)
      for (let index = Math.max(0, breakpoint - lookbackBlocks); index <= breakpoint; index += 1)
        if (
          ends[index]! >= minTokens &&
          (readEnd < 0 || ends[index]! > ends[readEnd]!) &&
          live(entries.get(keyAt(index)), at)
        )
          readEnd = index;
    const readTokens = readEnd < 0 ? 0 : ends[readEnd]!;
    let writeTokens = 0;
    let writeLongTtlTokens = 0;
    let written = readTokens;
    for (const breakpoint of marked) {
      const end = ends[breakpoint]!;
      const key = keyAt(breakpoint);
      const long = segments[breakpoint]!.breakpoint === 'long';
      const entry = entries.get(key);
      if (end <= readTokens) {
        // A breakpoint inside what was read is used by this request: its entry lives on.
        if (live(entry, at)) entries.set(key, { expiresAt: at + entry!.ttlMs, ttlMs: entry!.ttlMs });
        continue;
      }
      if (end < minTokens) continue;
      const tokens = end - written;
      writeTokens += tokens;
      if (long) writeLongTtlTokens += tokens;
      written = end;
      entries.set(key, { expiresAt: at + (long ? longTtlMs : ttlMs), ttlMs: long ? longTtlMs : ttlMs });
    }
    if (readEnd >= 0) {
      const entry = entries.get(keyAt(readEnd))!;
      entries.set(keyAt(readEnd), { expiresAt: at + entry.ttlMs, ttlMs: entry.ttlMs });
    }
    return { readTokens, writeTokens, writeLongTtlTokens };
  }

  private trim(entries: Map<number, CacheEntry>): void {
    while (entries.size > this.maxEntries) entries.delete(entries.keys().next().value!);
  }
}

function live(entry: CacheEntry | undefined, at: number): boolean {
  return entry !== undefined && entry.expiresAt >= at;
}

/** The first token position at which `next` differs from `previous`, walking from the first changed segment. */
function firstDifference(previous: KeyState, next: KeyState): number {
  let segment = 0;
  while (
    segment < previous.texts.length &&
    segment < next.texts.length &&
    previous.texts[segment] === next.texts[segment]
  )
    segment += 1;
  let position = segment > 0 ? next.ends[segment - 1]! : 0;
  const before = new TokenCursor(previous.tokens, segment);
  const after = new TokenCursor(next.tokens, segment);
  for (;;) {
    const oldToken = before.current();
    const newToken = after.current();
    if (oldToken === undefined || oldToken !== newToken) return position;
    position += 1;
    before.next();
    after.next();
  }
}

/** Walks the tokens of a list of segments from the start of one of them. */
class TokenCursor {
  private offset = 0;

  constructor(
    private readonly segments: readonly ArrayLike<number>[],
    private segment: number,
  ) {}

  /** The token under the cursor; undefined past the end. */
  current(): number | undefined {
    while (this.segment < this.segments.length && this.offset >= this.segments[this.segment]!.length) {
      this.segment += 1;
      this.offset = 0;
    }
    return this.segments[this.segment]?.[this.offset];
  }

  next(): void {
    this.offset += 1;
  }
}
