/**
 * Token budgets shared by the extractive compressor and the text baselines, so both are held to the
 * same limit measured the same way (the project tokenizer, o200k by default).
 */
import { hasUnspacedScript } from '../text/characters.js';
import { isWhitespaceChar } from '../text/whitespace.js';
import { countTokens } from '../tokens/tokenizer.js';

/**
 * The output budget in tokens for a ratio τ: ⌊τ · inputTokens⌋, or `maxTokens` when that is smaller.
 */
export function tokenBudget(inputTokens: number, ratio: number, maxTokens?: number): number {
  let byRatio = Math.floor(ratio * inputTokens);
  // The product can round up to an integer (0.7999999999999999 · 35 === 28): keep budget/input ≤ ratio.
  while (byRatio > 0 && byRatio / inputTokens > ratio) byRatio -= 1;
  return maxTokens === undefined ? byRatio : Math.max(0, Math.min(byRatio, Math.floor(maxTokens)));
}

/** The code-point boundaries of `text`, so a cut never splits a surrogate pair. */
function codePointEnds(text: string): number[] {
  const ends: number[] = [0];
  let at = 0;
  for (const ch of text) {
    at += ch.length;
    ends.push(at);
  }
  return ends;
}

/**
 * The largest index in `low..high` for which `fits` holds, by binary search: `fits` is taken to hold up to
 * some index and not after it (token counts of longer prefixes do not fall), and to hold at `low`, which the
 * caller has checked or which stands for "nothing" (returned when nothing above it fits). O(log n) calls.
 */
export function lastFitting(low: number, high: number, fits: (index: number) => boolean): number {
  let lo = low;
  let hi = high;
  while (lo < hi) {
    const mid = lo + Math.ceil((hi - lo) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The longest prefix of `text` with at most `maxTokens` tokens. BPE counts of prefixes grow with
 * length (up to merges at the cut), so a binary search over cut points finds it in O(log n) counts.
 */
export function headWithinTokens(text: string, maxTokens: number): string {
  if (countTokens(text) <= maxTokens) return text;
  if (maxTokens <= 0) return '';
  const ends = codePointEnds(text);
  const last = lastFitting(0, ends.length - 1, (at) => countTokens(text.slice(0, ends[at])) <= maxTokens);
  return text.slice(0, ends[last]);
}

/** The longest suffix of `text` with at most `maxTokens` tokens (see {@link headWithinTokens}). */
export function tailWithinTokens(text: string, maxTokens: number): string {
  if (countTokens(text) <= maxTokens) return text;
  if (maxTokens <= 0) return '';
  const ends = codePointEnds(text);
  // The same search from the end: the shortest start that fits is the most cut points back from the end.
  const last = ends.length - 1;
  const back = lastFitting(0, last, (fromEnd) => countTokens(text.slice(ends[last - fromEnd])) <= maxTokens);
  return text.slice(ends[last - back]);
}

/** A unit offered to {@link fillBudget}: its estimated cost and the units that must come with it. */
export interface BudgetItem {
  index: number;
  /** Estimated tokens it adds to the output (its separator included). */
  cost: number;
  /** Indices to keep with it (a sentence's headings), kept before it; they cost their own `cost`. */
  requires?: readonly number[];
}

/** What {@link fillBudget} kept: indices in the order they were taken, the rendered text, its tokens. */
export interface FilledBudget {
  kept: number[];
  text: string;
  tokens: number;
}

/**
 * The units {@link fillBudget} would take before measuring: `items` in the given order while their
 * estimated cost fits `budget` (an item that does not fit is skipped; a smaller one after it may still
 * fit), each preceded by the units it requires. Costs only, no rendering.
 */
export function planBudget(
  items: Iterable<BudgetItem>,
  budget: number,
  costOf: (index: number) => number = () => 0,
): { index: number; cost: number; group: number }[] {
  const taken = new Set<number>();
  const picked: { index: number; cost: number; group: number }[] = [];
  let used = 0;
  let group = 0;
  for (const item of items) {
    if (taken.has(item.index)) continue;
    const needed = (item.requires ?? []).filter((i) => !taken.has(i));
    const cost = needed.reduce((sum, i) => sum + costOf(i), item.cost);
    if (used + cost > budget) continue;
    for (const requiredIndex of needed) {
      taken.add(requiredIndex);
      picked.push({ index: requiredIndex, cost: costOf(requiredIndex), group });
    }
    taken.add(item.index);
    picked.push({ index: item.index, cost: item.cost, group });
    group += 1;
    used += cost;
  }
  return picked;
}

/**
 * Takes the units of {@link planBudget}, then renders and measures. BPE merges make the real count
 * differ slightly from the sum of parts, so when the rendered text is over budget the longest run of
 * first-taken units that renders within it is kept (a binary search, O(log n) renders): the result is
 * always within budget, and a unit goes with the units it brought along.
 */
export function fillBudget(
  items: Iterable<BudgetItem>,
  budget: number,
  render: (kept: readonly number[]) => string,
  costOf: (index: number) => number = () => 0,
): FilledBudget {
  const picked = planBudget(items, budget, costOf);
  const text = render(picked.map((p) => p.index));
  const tokens = countTokens(text);
  if (tokens <= budget) return { kept: picked.map((p) => p.index), text, tokens };
  // Where each group of picked units ends: a prefix of whole groups is a consistent selection.
  const ends: number[] = [0];
  picked.forEach((unit, position) => {
    if (picked[position + 1]?.group !== unit.group) ends.push(position + 1);
  });
  const measure = (groups: number): FilledBudget => {
    const kept = picked.slice(0, ends[groups]).map((p) => p.index);
    const out = render(kept);
    return { kept, text: out, tokens: countTokens(out) };
  };
  const measured = new Map<number, FilledBudget>();
  const measureOnce = (groups: number): FilledBudget =>
    measured.get(groups) ?? measured.set(groups, measure(groups)).get(groups)!;
  // No group at all always fits; the whole plan (the last end) did not.
  return measureOnce(lastFitting(0, ends.length - 2, (groups) => measureOnce(groups).tokens <= budget));
}

/** Most renders {@link refillBudget} spends on one call. */
export const REFILL_RENDERS = 3;

// Unused budget, as a share of it, worth another plan.
const REFILL_SLACK = 0.02;

/**
 * Plans again when `filled` left budget unused: estimated costs run above the rendered text (a separator
 * token merges into the next word or field, JSON brackets are shared), so a plan within the budget renders
 * short of it. Each round plans for more estimated tokens, scaled by how far this input's estimates ran over
 * its rendered text, renders once and keeps the plan if it is within `budget`; a plan over it makes the next
 * round plan for less. At most `maxRenders` renders; never worse than `filled`.
 */
export function refillBudget(
  filled: FilledBudget,
  items: readonly BudgetItem[],
  budget: number,
  render: (kept: readonly number[]) => string,
  costOf: (index: number) => number = () => 0,
  maxRenders = REFILL_RENDERS,
): FilledBudget {
  if (filled.tokens === 0) return filled;
  const scale = filled.kept.reduce((sum, i) => sum + costOf(i), 0) / filled.tokens;
  let best = filled;
  let planned = Math.max(budget + 1, Math.floor(budget * scale));
  let under = budget;
  let over = Number.POSITIVE_INFINITY;
  for (let round = 0; round < maxRenders && budget - best.tokens > budget * REFILL_SLACK; round += 1) {
    const kept = planBudget(items, planned, costOf).map((p) => p.index);
    if (kept.length <= best.kept.length && kept.every((i) => best.kept.includes(i))) break;
    const text = render(kept);
    const tokens = countTokens(text);
    if (tokens <= budget) {
      if (tokens > best.tokens) best = { kept, text, tokens };
      under = planned;
      planned = Math.min(Math.floor((planned + over) / 2), planned + Math.ceil((budget - tokens) * scale));
    } else {
      over = planned;
      planned = Math.max(under + 1, planned - Math.ceil((tokens - budget) * scale));
    }
    if (planned >= over || planned <= under) break;
  }
  return best;
}

/** Most renders {@link topUpBudget} spends on one call. */
export const TOP_UP_RENDERS = 6;

// A unit's estimate runs up to a token or so above what it adds to the rendered text (its separator merges
// into the next unit), so a unit estimated just over the room left may still fit.
const TOP_UP_MARGIN = 2;

/**
 * Fills what budget `filled` left unused with whole units: `items` in order (the ranking's), each one whose
 * estimated cost, with the units it requires, fits the room left, kept when the rendered text is still
 * within `budget`. At most `maxRenders` renders, so a large input stays cheap; a short unit (a code, an id,
 * a date) costs little and fits where a long one did not.
 */
export function topUpBudget(
  filled: FilledBudget,
  items: Iterable<BudgetItem>,
  budget: number,
  render: (kept: readonly number[]) => string,
  costOf: (index: number) => number = () => 0,
  maxRenders = TOP_UP_RENDERS,
): FilledBudget {
  const taken = new Set(filled.kept);
  let best = filled;
  let renders = 0;
  for (const item of items) {
    if (renders >= maxRenders || best.tokens >= budget) break;
    if (taken.has(item.index)) continue;
    const needed = (item.requires ?? []).filter((i) => !taken.has(i));
    const cost = needed.reduce((sum, i) => sum + costOf(i), item.cost);
    if (cost > budget - best.tokens + TOP_UP_MARGIN) continue;
    const kept = [...best.kept, ...needed, item.index];
    const text = render(kept);
    renders += 1;
    const tokens = countTokens(text);
    if (tokens > budget) continue;
    best = { kept, text, tokens };
    for (const index of [...needed, item.index]) taken.add(index);
  }
  return best;
}

// Built on the first CJK text, not when the module loads: a segmenter loads ICU's word-break data.
let cutSegmenter: Intl.Segmenter | undefined;

/**
 * The offsets at which `text` can be cut without cutting a word, number, id, date, code or URL: after a
 * run of non-space characters that whitespace follows, and between two words of CJK script. Always ends
 * with `text.length`.
 */
export function wordCutPoints(text: string): number[] {
  const points: number[] = [];
  for (let at = 1; at < text.length; at += 1) {
    if (isWhitespaceChar(text[at] ?? '') && !isWhitespaceChar(text[at - 1] ?? '')) points.push(at);
  }
  // Japanese, Chinese and Korean script: text without spaces, cut between words the segmenter finds.
  if (hasUnspacedScript(text)) {
    cutSegmenter ??= new Intl.Segmenter('ja', { granularity: 'word' });
    for (const { index } of cutSegmenter.segment(text)) {
      if (index > 0 && hasUnspacedScript(text[index - 1] ?? '') && hasUnspacedScript(text[index] ?? ''))
        points.push(index);
    }
    points.sort((a, b) => a - b);
  }
  points.push(text.length);
  return points;
}

/**
 * The longest prefix of `text` within `maxTokens` tokens that ends at a {@link wordCutPoints} offset: a
 * cut text still shows every value it shows whole ('' when not even the first word fits). What a
 * compressor quotes must never be a different value, as `-2580.0` cut to `-258` would be.
 */
export function headAtWordBoundary(text: string, maxTokens: number): string {
  if (countTokens(text) <= maxTokens) return text;
  if (maxTokens <= 0) return '';
  const points = wordCutPoints(text);
  const last = lastFitting(-1, points.length - 1, (at) => countTokens(text.slice(0, points[at])) <= maxTokens);
  return last < 0 ? '' : text.slice(0, points[last]).trimEnd();
}
