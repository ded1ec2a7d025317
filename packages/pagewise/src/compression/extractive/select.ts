/**
 * The selection stage of the extractive compressor: scored candidates ranked and taken under the budget, forced
 * units first, each with the units it requires.
 */
import { countTokens } from '../../tokens/tokenizer.js';
import { fillBudget, refillBudget, topUpBudget } from '../token-budget.js';
import type { FilledBudget } from '../token-budget.js';

export interface Selected {
  text: string;
  outputTokens: number;
  kept: number;
  total: number;
  error?: true;
}

/** A candidate for selection: what it costs, how it ranks, and what must come with it. */
export interface Candidate {
  index: number;
  score: number;
  forced: boolean;
  dropped: boolean;
  /** False for units kept only with another (headings, table headers, speaker labels). */
  standalone: boolean;
  cost: number;
  /** Indices that must be kept with it (its headings, outermost first). */
  requires: readonly number[];
  /**
   * A heading offered on its own, as the outline of what was left out: it comes with any kept unit under
   * it anyway, so alone it only fills budget no content unit fits into.
   */
  outline?: boolean;
  /**
   * A field of the whole JSON object (an order's `status`), not of a part of it: among forced units these
   * come first, as they describe all of it and cost one field each, where a part's fields multiply by
   * the number of parts.
   */
  own?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Selection

export function rank(candidates: readonly Candidate[]): Candidate[] {
  return [...candidates].sort(
    (first, second) =>
      Number(second.forced) - Number(first.forced) ||
      Number(second.forced && second.own === true) - Number(first.forced && first.own === true) ||
      Number(first.outline === true) - Number(second.outline === true) ||
      second.score - first.score ||
      first.index - second.index,
  );
}

/** Ranks the eligible candidates and fills the budget with them, headings brought along. */
export function select(
  candidates: readonly Candidate[],
  minScore: number | undefined,
  budget: number,
  render: (kept: readonly number[]) => string,
): FilledBudget {
  const eligible = rank(
    candidates.filter((c) => !c.dropped && c.standalone && (c.forced || minScore === undefined || c.score >= minScore)),
  );
  const usable = (i: number): boolean => candidates[i]?.dropped !== true;
  const items = eligible.map((c) => ({ index: c.index, cost: c.cost, requires: c.requires.filter(usable) }));
  // Estimated costs add up to more than the rendered text (BPE merges across units, shared JSON
  // brackets), so an input whose eligible units all fit, such as one already compressed by the same
  // rules, would lose units to the estimate alone: measure it whole first when that is plausible.
  const all = [...new Set(items.flatMap((item) => [...item.requires, item.index]))];
  const estimate = all.reduce((sum, i) => sum + (candidates[i]?.cost ?? 0), 0);
  if (estimate > budget && estimate <= budget * ALL_FIT_SLACK) {
    const text = render(all);
    const tokens = countTokens(text);
    if (tokens <= budget) return { kept: all, text, tokens };
  }
  const costOf = (i: number): number => candidates[i]?.cost ?? 0;
  const filled = fillBudget(items, budget, render, costOf);
  // The first plan renders short of the budget: plan again for more, then top up with whole units that fit.
  return topUpBudget(refillBudget(filled, items, budget, render, costOf), items, budget, render, costOf);
}

// How far the estimate may exceed the budget for the whole-input measurement to be worth a try.
const ALL_FIT_SLACK = 1.5;
