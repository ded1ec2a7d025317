/**
 * Token counting with a real BPE tokenizer (gpt-tokenizer). Counts are cached by content, since the
 * same history messages are counted again at every step of a long run.
 */
import { createRequire } from 'node:module';

/** The BPE encodings pagewise can count with. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

interface Encoder {
  countTokens(text: string): number;
  encode(text: string, options?: { allowedSpecial?: Set<string> | 'all' }): number[];
}

// An encoding's tables (megabytes) load the first time it counts, not when the package is imported, so
// importing pagewise stays cheap and a process that never counts for GPT-4/3.5 never loads cl100k.
const requireCjs = createRequire(import.meta.url);
const encoders: Partial<Record<EncodingName, Encoder>> = {};

function encoderFor(name: EncodingName): Encoder {
  encoders[name] ??= requireCjs(`gpt-tokenizer/cjs/encoding/${name}`) as Encoder;
  return encoders[name];
}

/** Picks the encoding a model id uses: cl100k for GPT-3.5/GPT-4 (not 4o/4.1), o200k otherwise. */
export function encodingForModel(modelId: string): EncodingName {
  const id = modelId.toLowerCase();
  if (/gpt-3\.5|gpt-4(?!o|\.1|\.5)(-|$)|text-embedding-ada|davinci/.test(id)) return 'cl100k_base';
  return 'o200k_base';
}

const MAX_CACHE_CHARS = 64 * 1024 * 1024;

class TokenCache {
  private readonly map = new Map<string, number>();
  private chars = 0;

  get(key: string): number | undefined {
    return this.map.get(key);
  }

  set(key: string, value: number): void {
    if (key.length > MAX_CACHE_CHARS / 4) return;
    this.map.set(key, value);
    this.chars += key.length;
    // Evict oldest entries first: Map iterates in insertion order.
    while (this.chars > MAX_CACHE_CHARS) {
      const oldest = this.map.keys().next();
      if (oldest.done) break;
      this.chars -= oldest.value.length;
      this.map.delete(oldest.value);
    }
  }
}

const caches: Record<EncodingName, TokenCache> = { o200k_base: new TokenCache(), cl100k_base: new TokenCache() };

/**
 * Counts the tokens of `text` with the given encoding (o200k_base by default). Results are cached by
 * content: a string already counted costs one hash lookup.
 */
export function countTokens(text: string, encoding: EncodingName = 'o200k_base'): number {
  if (text.length === 0) return 0;
  const cache = caches[encoding];
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const n = countUncached(encoderFor(encoding), text);
  cache.set(text, n);
  return n;
}

// BPE merges within one pre-token cost time quadratic in its length, and a run of letters is one
// pre-token: 100k letters without a break take seconds. Such runs (never natural text) are counted in
// slices of LONG_RUN_SLICE characters, which may overcount by about one token per slice.
const LONG_RUN = /[\p{L}\p{M}]{2000,}/gu;
const HAS_LONG_RUN = /[\p{L}\p{M}]{2000,}/u;
const LONG_RUN_SLICE = 1000;

function countUncached(encoder: Encoder, text: string): number {
  if (!HAS_LONG_RUN.test(text)) return encoder.countTokens(text);
  let total = 0;
  let last = 0;
  for (const m of text.matchAll(LONG_RUN)) {
    total += encoder.countTokens(text.slice(last, m.index));
    for (let i = 0; i < m[0].length; i += LONG_RUN_SLICE)
      total += encoder.countTokens(m[0].slice(i, i + LONG_RUN_SLICE));
    last = m.index + m[0].length;
  }
  return total + encoder.countTokens(text.slice(last));
}

/** Encodes `text` to token ids (special tokens allowed), uncached; for tests and exact checks. */
export function encodeTokens(text: string, encoding: EncodingName = 'o200k_base'): number[] {
  return encoderFor(encoding).encode(text, { allowedSpecial: 'all' });
}
