/**
 * Splits very large pages into frames of bounded token size, on line boundaries where possible, so a
 * 200k-token document can be read part by part.
 */
import { countTokens } from '../tokens/tokenizer.js';

const cache = new Map<string, string[]>();

/** Splits `body` into frames of at most `frameTokens` tokens (by lines; long lines by characters). */
export function splitFrames(body: string, frameTokens: number, cacheKey?: string): string[] {
  const key = cacheKey ? `${cacheKey}:${frameTokens}` : undefined;
  const hit = key ? cache.get(key) : undefined;
  if (hit) return hit;
  const frames: string[] = [];
  let current: string[] = [];
  let tokens = 0;
  const flush = () => {
    if (current.length) frames.push(current.join('\n'));
    current = [];
    tokens = 0;
  };
  for (const line of body.split('\n')) {
    const lineTokens = countTokens(line) + 1;
    if (lineTokens > frameTokens) {
      flush();
      // A single huge line: cut it by characters, about 3 characters a token, re-checked.
      let rest = line;
      while (rest.length > 0) {
        let size = Math.max(1, frameTokens * 3);
        let chunk = rest.slice(0, size);
        while (countTokens(chunk) > frameTokens && size > 1) {
          size = Math.floor(size * 0.8);
          chunk = rest.slice(0, size);
        }
        frames.push(chunk);
        rest = rest.slice(chunk.length);
      }
      continue;
    }
    if (tokens + lineTokens > frameTokens) flush();
    current.push(line);
    tokens += lineTokens;
  }
  flush();
  if (frames.length === 0) frames.push('');
  if (key) {
    if (cache.size > 256) cache.delete(cache.keys().next().value!);
    cache.set(key, frames);
  }
  return frames;
}
