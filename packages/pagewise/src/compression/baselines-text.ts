/**
 * Text-level baselines for the compressors, held to the same budget ⌊τ · inputTokens⌋ and measured
 * with the same tokenizer, so a comparison at equal ratio is honest: keep the head, keep the tail,
 * keep random units, or drop the least informative words (an LLMLingua-like token dropper).
 */
import { countTokens } from '../tokens/tokenizer.js';
import { joinUnits, segmentText } from '../text/segment.js';
import { isStopword } from '../text/stopwords.js';
import { trimToLetterOrDigit } from '../text/characters.js';
import { wordRuns } from '../text/whitespace.js';
import { fillBudget, headWithinTokens, tailWithinTokens, tokenBudget } from './token-budget.js';
import { seededRandom } from '../util/random.js';

/** Keeps the first τ of the tokens of `text` (cut at a character boundary). */
export function truncateHead(text: string, ratio: number): string {
  return headWithinTokens(text, tokenBudget(countTokens(text), ratio));
}

/** Keeps the last τ of the tokens of `text` (cut at a character boundary). */
export function truncateTail(text: string, ratio: number): string {
  return tailWithinTokens(text, tokenBudget(countTokens(text), ratio));
}

/**
 * Keeps randomly chosen units (sentences or lines, cut as the extractive compressor cuts them) up to
 * τ of the tokens, in their original order. The same seed gives the same choice.
 */
export function randomUnits(text: string, ratio: number, seed: number): string {
  const units = segmentText(text, 'auto');
  const random = seededRandom(seed);
  const order = units.map((u) => u.index);
  // Fisher–Yates with the seeded generator.
  for (let index = order.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [order[index], order[other]] = [order[other] ?? 0, order[index] ?? 0];
  }
  const items = order.map((index) => ({ index, cost: countTokens(units[index]?.text ?? '') + 1 }));
  return fillBudget(items, tokenBudget(countTokens(text), ratio), (kept) => joinUnits(text, units, kept)).text;
}

/**
 * Keeps about τ of the tokens by dropping words, least informative first, in the spirit of LLMLingua:
 * a word's information is its self-information −log p(w) under the word frequencies of the text
 * itself (no language model), and stopwords rank below every other word. Kept words keep their
 * order; neighbours keep the whitespace between them.
 */
export function tokenDropLingua(text: string, ratio: number): string {
  const words = wordRuns(text);
  const counts = new Map<string, number>();
  const norm = words.map(({ word }) => trimToLetterOrDigit(word.toLowerCase()));
  for (const normalized of norm) counts.set(normalized, (counts.get(normalized) ?? 0) + 1);
  const information = norm.map((normalized) =>
    normalized === '' || isStopword(normalized) ? -1 : -Math.log((counts.get(normalized) ?? 1) / words.length),
  );
  // Most informative first; among equals, earlier words first.
  const order = words.map((_, i) => i).sort((a, b) => (information[b] ?? 0) - (information[a] ?? 0) || a - b);
  const render = (kept: readonly number[]): string => {
    let out = '';
    let previous: number | undefined;
    for (const wordIndex of [...kept].sort((a, b) => a - b)) {
      const word = words[wordIndex];
      if (!word) continue;
      if (previous !== undefined) {
        const before = words[previous];
        const gap = text.slice((before?.start ?? 0) + (before?.word.length ?? 0), word.start);
        // Neighbours keep their whitespace; across dropped words a line break survives, else one space.
        out += wordIndex === previous + 1 ? gap : gap.includes('\n') ? '\n' : ' ';
      }
      out += word.word;
      previous = wordIndex;
    }
    return out;
  };
  const items = order.map((index) => ({ index, cost: countTokens(` ${words[index]?.word ?? ''}`) }));
  return fillBudget(items, tokenBudget(countTokens(text), ratio), render).text;
}
