/**
 * Exact byte-pair encoding of one long pre-token in O(n log n). The tokenizer merges a pre-token by
 * scanning every pair for the lowest rank after each merge, which is quadratic: a run of 160k spaces, one
 * pre-token, takes most of a minute and blocks the event loop, so no deadline timer can fire. This module
 * applies the same merges in the same order (lowest rank first, leftmost among equal ranks) with a heap, so
 * its token count equals the tokenizer's while its work is bounded by the length of the piece.
 */
import { createRequire } from 'node:module';
import { SystemError } from '../errors.js';
import type { EncodingName } from './tokenizer.js';

const requireCjs = createRequire(import.meta.url);

/** A pre-token from this many characters is merged here instead of by the tokenizer. */
export const LONG_PIECE_CHARS = 256;

/** The part of gpt-tokenizer's merge engine used here: the rank of a byte string, if it is a token. */
interface RankLookup {
  getBpeRankFromBytes(bytes: Uint8Array): number | undefined;
}

// The tokenizer's own rank table, reached through its encoding object, so no second copy of megabytes is
// built. The property test in long-pieces.test.ts fails if a gpt-tokenizer update changes what it returns.
const lookups: Partial<Record<EncodingName, RankLookup>> = {};

function rankLookupFor(encoding: EncodingName): RankLookup {
  if (!lookups[encoding]) {
    const loaded = requireCjs(`gpt-tokenizer/cjs/encoding/${encoding}`) as {
      default?: { bytePairEncodingCoreProcessor?: Partial<RankLookup> };
    };
    const core = loaded.default?.bytePairEncodingCoreProcessor;
    if (typeof core?.getBpeRankFromBytes !== 'function') {
      throw new SystemError(
        'tokenizer-incompatible',
        `gpt-tokenizer's ${encoding} encoding has no rank lookup; install the gpt-tokenizer 4.x the package pins.`,
      );
    }
    lookups[encoding] = core as RankLookup;
  }
  return lookups[encoding];
}

const splitRegexes: Partial<Record<EncodingName, RegExp>> = {};

/** The tokenizer's own pre-token pattern (global), so pieces are cut exactly where it cuts them. */
export function preTokenPattern(encoding: EncodingName): RegExp {
  if (!splitRegexes[encoding]) {
    const constants = requireCjs('gpt-tokenizer/cjs/encodingParams/constants') as Record<string, RegExp>;
    const pattern = constants[encoding === 'o200k_base' ? 'O200K_TOKEN_SPLIT_REGEX' : 'CL100K_TOKEN_SPLIT_REGEX'];
    if (!pattern)
      throw new SystemError(
        'tokenizer-incompatible',
        `gpt-tokenizer has no pre-token pattern for ${encoding}; install the gpt-tokenizer 4.x the package pins.`,
      );
    splitRegexes[encoding] = new RegExp(
      pattern.source,
      pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`,
    );
  }
  return splitRegexes[encoding];
}

/** What one merge run cost: the heap operations, for tests that check the work stays bounded. */
export interface MergeStats {
  tokens: number;
  heapOperations: number;
}

// Ranks stay below 2^18 in both encodings, so a pair of ranks packs into one number key, and a heap entry
// (rank, offset) packs into one double that orders by rank, then offset.
const RANK_SPAN = 2 ** 18;
const OFFSET_SPAN = 2 ** 32;

/**
 * Merges one pre-token with the encoding's ranks and returns how many tokens it became, with the work it
 * took. Every byte is a token of its own in both encodings, so a piece always ends as known tokens.
 */
export function mergePiece(piece: string, encoding: EncodingName): MergeStats {
  const lookup = rankLookupFor(encoding);
  const bytes = new TextEncoder().encode(piece);
  const byteCount = bytes.length;
  if (byteCount <= 1) return { tokens: byteCount, heapOperations: 0 };
  // Parts form a linked list of byte offsets; `partRank[offset]` is the token of the part starting there and
  // `pairRank[offset]` the rank of that part joined with the next (-1: not a token).
  const next = new Int32Array(byteCount + 1);
  const prev = new Int32Array(byteCount + 1);
  const partRank = new Int32Array(byteCount);
  const pairRank = new Int32Array(byteCount);
  const alive = new Uint8Array(byteCount).fill(1);
  const byteRank = new Map<number, number>();
  for (let offset = 0; offset < byteCount; offset += 1) {
    next[offset] = offset + 1;
    prev[offset] = offset - 1;
    let rank = byteRank.get(bytes[offset]!);
    if (rank === undefined) {
      rank = lookup.getBpeRankFromBytes(bytes.subarray(offset, offset + 1)) ?? -1;
      if (rank < 0)
        throw new SystemError(
          'tokenizer-incompatible',
          `byte ${bytes[offset]} is not a token of ${encoding}; install the gpt-tokenizer 4.x the package pins.`,
        );
      byteRank.set(bytes[offset]!, rank);
    }
    partRank[offset] = rank;
  }
  next[byteCount] = byteCount;
  // A homogeneous run repeats a few pairs over and over: each distinct pair of tokens is looked up once.
  const pairs = new Map<number, number>();
  const rankAt = (start: number): number => {
    const mid = next[start]!;
    if (mid >= byteCount) return -1;
    const key = partRank[start]! * RANK_SPAN + partRank[mid]!;
    let rank = pairs.get(key);
    if (rank === undefined) {
      rank = lookup.getBpeRankFromBytes(bytes.subarray(start, next[mid]!)) ?? -1;
      pairs.set(key, rank);
    }
    return rank;
  };
  const heap: number[] = [];
  let heapOperations = 0;
  const push = (start: number): void => {
    const rank = rankAt(start);
    pairRank[start] = rank;
    if (rank < 0) return;
    heapPush(heap, rank * OFFSET_SPAN + start);
    heapOperations += 1;
  };
  for (let offset = 0; offset < byteCount; offset += 1) push(offset);
  let parts = byteCount;
  while (heap.length > 0) {
    const entry = heapPop(heap);
    heapOperations += 1;
    const at = entry % OFFSET_SPAN;
    const rank = (entry - at) / OFFSET_SPAN;
    // An entry is stale when its part was merged into its left neighbour or its pair changed since.
    if (!alive[at] || pairRank[at] !== rank) continue;
    const gone = next[at]!;
    alive[gone] = 0;
    next[at] = next[gone]!;
    if (next[at]! < byteCount) prev[next[at]!] = at;
    partRank[at] = rank;
    parts -= 1;
    push(at);
    if (prev[at]! >= 0) push(prev[at]!);
  }
  return { tokens: parts, heapOperations };
}

function heapPush(heap: number[], value: number): void {
  let slot = heap.length;
  heap.push(value);
  while (slot > 0) {
    const parent = (slot - 1) >> 1;
    const up = heap[parent]!;
    if (up <= value) break;
    heap[slot] = up;
    slot = parent;
  }
  heap[slot] = value;
}

function heapPop(heap: number[]): number {
  const top = heap[0]!;
  const last = heap.pop()!;
  const size = heap.length;
  if (size === 0) return top;
  let slot = 0;
  for (;;) {
    const left = 2 * slot + 1;
    if (left >= size) break;
    const right = left + 1;
    const child = right < size && heap[right]! < heap[left]! ? right : left;
    if (heap[child]! >= last) break;
    heap[slot] = heap[child]!;
    slot = child;
  }
  heap[slot] = last;
  return top;
}
