/**
 * The prompt-cache model: given each request of a session as the provider receives it (token segments in
 * the provider's order), the tokens a provider's cache would serve (read), store at a write price (write)
 * and leave to the full input price (uncached), under the rules of `cache-rules.ts`. The state per key is
 * latest request's segments with the running hash at each segment end (kept in place and cut back to the
 * first change), and the older cache entries as hashes of prefixes, so a call costs the messages and
 * tokens from its first change on, not the whole history.
 */
import type { LanguageModelV3FunctionTool, LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { PromptCacheRules } from './cache-rules.js';
import { messageSegments, toolSegments } from './prompt-segments.js';
import type { EncodingName } from './tokenizer.js';

/** One segment of a serialized request: a unit the provider tokenizes on its own (a tool, a message part). */
export interface CacheSegment {
  /** The segment's text; segments are compared by it, so equal texts must have equal tokens. */
  text: string;
  /** Its token ids. */
  tokens: ArrayLike<number>;
  /** A `cache_control` breakpoint at the end of the segment, with its time to live (breakpoint caching). */
  breakpoint?: 'short' | 'long';
}

/**
 * What a prompt shares with the previous prompt of the same source (the runner's kept history renders one
 * per step), so {@link PromptCache.observePrompt} need not compare a long history message by message:
 * `prompt[1..unchanged)` are the same message objects, at the same indexes, as in render `render - 1` of
 * source `source`.
 */
export interface PromptContinuity {
  /** The source's id, unique in the process. */
  source: number;
  /** The render's number in that source, from 1. */
  render: number;
  /** Messages from index 1 up to this one are the previous render's (0 or 1: nothing is known). */
  unchanged: number;
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

/** What is kept of a key: its latest request, changed in place from its first changed segment on. */
interface KeyState {
  /** The latest request's segments (shared with the per-part segment memo, so no tokens are copied). */
  segments: CacheSegment[];
  /** Token offset at the end of each segment. */
  ends: number[];
  /** The two halves of the running hash at the end of each segment. */
  endHashLow: number[];
  endHashHigh: number[];
  /** Indexes of the segments that carry a breakpoint, in order. */
  marks: number[];
  /** The latest request's prefix hash at every multiple of the block size (automatic prefix caching). */
  blocks: number[];
  /** When the latest request's prefixes expire; 0 when it was too short to be cached. */
  latestExpiresAt: number;
  /** Older prefixes: blocks (automatic) or breakpoint prefixes, by hash. */
  entries: Map<number, CacheEntry>;
  /** The latest prompt's messages and the segment count after each, for {@link PromptCache.observePrompt}. */
  messages: LanguageModelV3Message[];
  messageEnds: number[];
  tools: readonly LanguageModelV3FunctionTool[] | undefined;
  toolSegmentCount: number;
  /** The source and render of the latest prompt, when it came with a {@link PromptContinuity}. */
  source: number;
  render: number;
}

/** Options of {@link PromptCache}. */
export interface PromptCacheOptions {
  /** Keys (sessions) kept; the least recently used is dropped past it (default 1,000). */
  maxKeys?: number;
  /** Older cache entries kept per key; the oldest is dropped past it (default 200,000). */
  maxEntriesPerKey?: number;
}

const SEED_LOW = 0x811c9dc5;
const SEED_HIGH = 0x6a09e667;

/** The 53-bit key of a running hash. */
function prefixKey(low: number, high: number): number {
  return (high >>> 11) * 0x1_0000_0000 + (low >>> 0);
}

function emptyState(): KeyState {
  return {
    segments: [],
    ends: [],
    endHashLow: [],
    endHashHigh: [],
    marks: [],
    blocks: [],
    latestExpiresAt: 0,
    entries: new Map(),
    messages: [],
    messageEnds: [],
    tools: undefined,
    toolSegmentCount: 0,
    source: 0,
    render: 0,
  };
}

type CacheCounts = Pick<PromptCacheUsage, 'readTokens' | 'writeTokens' | 'writeLongTtlTokens'>;

/**
 * A provider's prompt cache, modelled per key (a session): {@link observe} (or {@link observePrompt}) each
 * request in call order with the run's own clock, and it returns what the provider would read, write and
 * bill uncached.
 *
 * @example
 * const cache = new PromptCache(promptCacheRulesFor('openai', 'gpt-4.1')!);
 * const usage = cache.observePrompt('session-1', prompt, tools, Date.now());
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

  /**
   * Models one request of `key`, given as segments, made at `at` (ms, the run's clock). The segments are
   * kept as given until the next request of `key`: treat them as read-only once passed.
   */
  observe(key: string, segments: readonly CacheSegment[], at: number): PromptCacheUsage {
    const state = this.take(key);
    state.messages.length = 0;
    state.messageEnds.length = 0;
    state.tools = undefined;
    state.source = 0;
    return this.commit(state, 0, segments, at);
  }

  /**
   * Models one request of `key` given as the AI SDK prompt and tools the provider receives (see
   * `promptSegments`). Messages that are the same objects as in the key's previous prompt (or, for a
   * system message, the same text) are not serialized again, so a step costs what changed. The messages
   * must be treated as read-only once passed, as the runner's rendered messages are. With `continuity`,
   * when the key's previous prompt was the render before it of the same source, the messages it vouches
   * for are not compared either (the first message, a system message built anew, still is).
   */
  observePrompt(
    key: string,
    prompt: LanguageModelV3Prompt,
    tools: readonly LanguageModelV3FunctionTool[],
    at: number,
    encoding: EncodingName = 'o200k_base',
    continuity?: PromptContinuity,
  ): PromptCacheUsage {
    const state = this.take(key);
    const tail: CacheSegment[] = [];
    let sameMessages = 0;
    if (state.tools !== undefined && sameTools(state.tools, tools)) {
      const follows =
        continuity !== undefined && continuity.source === state.source && continuity.render === state.render + 1;
      sameMessages = sharedMessages(state.messages, prompt, follows ? continuity.unchanged : 0);
    } else {
      toolSegments(tools, encoding, tail);
      state.messages.length = 0;
      state.toolSegmentCount = tail.length;
      state.tools = tools;
    }
    const same = sameMessages > 0 ? state.messageEnds[sameMessages - 1]! : state.toolSegmentCount - tail.length;
    state.messages.length = sameMessages;
    state.messageEnds.length = sameMessages;
    for (let index = sameMessages; index < prompt.length; index += 1) {
      messageSegments(prompt[index]!, encoding, tail);
      state.messages.push(prompt[index]!);
      state.messageEnds.push(same + tail.length);
    }
    state.source = continuity?.source ?? 0;
    state.render = continuity?.render ?? 0;
    return this.commit(state, same, tail, at);
  }

  private take(key: string): KeyState {
    const state = this.states.get(key) ?? emptyState();
    this.states.delete(key);
    this.states.set(key, state);
    if (this.states.size > this.maxKeys) this.states.delete(this.states.keys().next().value!);
    return state;
  }

  /**
   * The request is the state's first `same` segments followed by `tail`: cut the state back to the first
   * segment that differs, hash on from there, and apply the rules.
   */
  private commit(state: KeyState, same: number, tail: readonly CacheSegment[], at: number): PromptCacheUsage {
    const previous = state.segments;
    const hadRequest = previous.length > 0 || state.latestExpiresAt > 0;
    let skipped = 0;
    while (
      same + skipped < previous.length &&
      skipped < tail.length &&
      sameSegment(previous[same + skipped]!, tail[skipped]!)
    )
      skipped += 1;
    const keep = same + skipped;
    const keptEnd = keep > 0 ? state.ends[keep - 1]! : 0;
    const firstChangedToken = hadRequest ? keptEnd + commonTokens(previous, keep, tail, skipped) : 0;
    const previousBlocks = state.blocks.length;
    const previousExpiresAt = state.latestExpiresAt;
    const previousLive = previousExpiresAt >= at;
    const block = this.rules.mechanism === 'automatic-prefix' ? this.rules.blockTokens : 0;
    const keptBlocks = block > 0 ? Math.floor(keptEnd / block) : 0;
    if (block > 0 && state.latestExpiresAt > 0)
      for (let index = keptBlocks; index < previousBlocks; index += 1)
        this.remember(state.entries, state.blocks[index]!, state.latestExpiresAt, this.rules.ttlMs);
    cut(state, keep, keptBlocks);
    this.hash(state, tail, skipped, block);
    const promptTokens = state.ends.at(-1) ?? 0;
    const counts =
      this.rules.mechanism === 'automatic-prefix'
        ? this.automaticPrefix(state, promptTokens, at, {
            sharedBlocks: previousLive ? Math.min(previousBlocks, Math.floor(firstChangedToken / block)) : 0,
            keptBlocks,
            expiresAt: previousExpiresAt,
          })
        : this.breakpointPrefixes(state, at);
    return {
      rules: this.rules.name,
      promptTokens,
      ...counts,
      uncachedTokens: promptTokens - counts.readTokens - counts.writeTokens,
      firstChangedToken,
    };
  }

  /** Appends `segments` from `from` on to the state, hashing on from its end. */
  private hash(state: KeyState, segments: readonly CacheSegment[], from: number, block: number): void {
    const count = state.segments.length;
    let position = count > 0 ? state.ends[count - 1]! : 0;
    let low = count > 0 ? state.endHashLow[count - 1]! : SEED_LOW;
    let high = count > 0 ? state.endHashHigh[count - 1]! : SEED_HIGH;
    // The next block boundary: one comparison per token instead of a division.
    let boundary = block > 0 ? (Math.floor(position / block) + 1) * block : Infinity;
    for (let index = from; index < segments.length; index += 1) {
      const segment = segments[index]!;
      const tokens = segment.tokens;
      for (let at = 0; at < tokens.length; at += 1) {
        const token = tokens[at]!;
        low = Math.imul(low ^ token, 0x01000193);
        high = Math.imul((high << 5) ^ (high >>> 27) ^ token, 0x9e3779b1) + 0x7f4a7c15;
        position += 1;
        if (position === boundary) {
          state.blocks.push(prefixKey(low, high));
          boundary += block;
        }
      }
      if (segment.breakpoint) state.marks.push(state.segments.length);
      state.segments.push(segment);
      state.ends.push(position);
      state.endHashLow.push(low);
      state.endHashHigh.push(high);
    }
  }

  private remember(entries: Map<number, CacheEntry>, hash: number, expiresAt: number, ttlMs: number): void {
    entries.delete(hash);
    entries.set(hash, { expiresAt, ttlMs });
    if (entries.size > this.maxEntries) entries.delete(entries.keys().next().value!);
  }

  /**
   * OpenAI's and Google's rule: the longest cached prefix in whole blocks, from the minimum length on. The
   * blocks shared with the latest request are cached while it lives; past them, older entries are looked up.
   */
  private automaticPrefix(
    state: KeyState,
    promptTokens: number,
    at: number,
    previous: { sharedBlocks: number; keptBlocks: number; expiresAt: number },
  ): CacheCounts {
    const { minTokens, blockTokens, ttlMs } = this.rules;
    const { entries, blocks } = state;
    if (promptTokens < minTokens) {
      // Not cached itself: the previous request's prefix it shares stays cached as it was.
      if (previous.expiresAt > 0)
        for (let index = 0; index < Math.min(previous.keptBlocks, blocks.length); index += 1)
          this.remember(entries, blocks[index]!, previous.expiresAt, ttlMs);
      state.latestExpiresAt = 0;
      return { readTokens: 0, writeTokens: 0, writeLongTtlTokens: 0 };
    }
    let hitBlocks = previous.sharedBlocks;
    while (hitBlocks < blocks.length && live(entries.get(blocks[hitBlocks]!), at)) hitBlocks += 1;
    const readTokens = hitBlocks * blockTokens >= minTokens ? hitBlocks * blockTokens : 0;
    // Every prefix of this request is cached from now on, the ones it read refreshed.
    state.latestExpiresAt = at + ttlMs;
    return { readTokens, writeTokens: 0, writeLongTtlTokens: 0 };
  }

  /** Anthropic's rule: prefixes end at breakpoints; a hit is looked up at and shortly before each one. */
  private breakpointPrefixes(state: KeyState, at: number): CacheCounts {
    const { minTokens, maxBreakpoints, lookbackBlocks, ttlMs } = this.rules;
    const longTtlMs = this.rules.longTtlMs ?? ttlMs;
    const marked = state.marks.slice(0, maxBreakpoints);
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
      const entry = entries.get(key);
      if (end <= readTokens) {
        // A breakpoint inside what was read is used by this request: its entry lives on.
        if (live(entry, at)) this.remember(entries, key, at + entry!.ttlMs, entry!.ttlMs);
        continue;
      }
      if (end < minTokens) continue;
      const long = state.segments[breakpoint]!.breakpoint === 'long';
      const tokens = end - written;
      writeTokens += tokens;
      if (long) writeLongTtlTokens += tokens;
      written = end;
      this.remember(entries, key, at + (long ? longTtlMs : ttlMs), long ? longTtlMs : ttlMs);
    }
    if (readEnd >= 0) {
      const entry = entries.get(keyAt(readEnd))!;
      this.remember(entries, keyAt(readEnd), at + entry.ttlMs, entry.ttlMs);
    }
    return { readTokens, writeTokens, writeLongTtlTokens };
  }
}

/** Cuts the state back to its first `keep` segments and `keepBlocks` blocks, in place. */
function cut(state: KeyState, keep: number, keepBlocks: number): void {
  state.segments.length = keep;
  state.ends.length = keep;
  state.endHashLow.length = keep;
  state.endHashHigh.length = keep;
  state.blocks.length = Math.min(state.blocks.length, keepBlocks);
  while (state.marks.length > 0 && state.marks[state.marks.length - 1]! >= keep) state.marks.pop();
}

function sameTools(
  left: readonly LanguageModelV3FunctionTool[],
  right: readonly LanguageModelV3FunctionTool[],
): boolean {
  if (left === right) return true;
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}

/**
 * How many leading messages of `next` are the same as `previous`'s: identity first, in a tight loop (a
 * long history's messages are the same objects from call to call), the system-message test only where
 * the objects differ. `next[1..vouched)` are known to be the same: past the first message, the comparison
 * starts there.
 */
function sharedMessages(
  previous: readonly LanguageModelV3Message[],
  next: LanguageModelV3Prompt,
  vouched: number,
): number {
  const limit = Math.min(previous.length, next.length);
  let index = 0;
  if (vouched > 1 && limit > 0 && (previous[0] === next[0] || sameMessage(previous[0]!, next[0]!)))
    index = Math.min(vouched, limit);
  for (;;) {
    while (index < limit && previous[index] === next[index]) index += 1;
    if (index < limit && sameMessage(previous[index]!, next[index]!)) index += 1;
    else return index;
  }
}

/** Segments that tokenize alike and carry the same breakpoint. */
function sameSegment(left: CacheSegment, right: CacheSegment): boolean {
  return left.text === right.text && left.breakpoint === right.breakpoint;
}

/** The same message: the same object, or a system message of the same text (the runner builds it anew). */
function sameMessage(left: LanguageModelV3Message, right: LanguageModelV3Message): boolean {
  if (left === right) return true;
  return (
    left.role === 'system' &&
    right.role === 'system' &&
    left.content === right.content &&
    left.providerOptions === right.providerOptions
  );
}

function live(entry: CacheEntry | undefined, at: number): boolean {
  return entry !== undefined && entry.expiresAt >= at;
}

/** How many tokens the previous request's segments from `start` on share with `fresh` from `from` on. */
function commonTokens(
  previous: readonly CacheSegment[],
  start: number,
  fresh: readonly CacheSegment[],
  from: number,
): number {
  let oldSegment = start;
  let oldOffset = 0;
  let newSegment = from;
  let newOffset = 0;
  let count = 0;
  for (;;) {
    while (oldSegment < previous.length && oldOffset >= previous[oldSegment]!.tokens.length) {
      oldSegment += 1;
      oldOffset = 0;
    }
    while (newSegment < fresh.length && newOffset >= fresh[newSegment]!.tokens.length) {
      newSegment += 1;
      newOffset = 0;
    }
    if (oldSegment >= previous.length || newSegment >= fresh.length) return count;
    if (previous[oldSegment]!.tokens[oldOffset] !== fresh[newSegment]!.tokens[newOffset]) return count;
    count += 1;
    oldOffset += 1;
    newOffset += 1;
  }
}
