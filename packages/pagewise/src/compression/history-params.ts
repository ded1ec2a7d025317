/**
 * Fitted weights of the extractive history backend's turn ranking (see `turn-features.ts`). Written by
 * `bench/fit-history-weights.ts --write`; do not edit by hand.
 */
import type { TurnWeights } from './turn-features.js';

/** The shipped weights of the turn ranking. */
export const HISTORY_TURN_WEIGHTS: TurnWeights = {
  version: 1,
  features: ['relevance', 'recency', 'referenced', 'numeric', 'rare', 'novel', 'speaker', 'question'],
  weights: [1, 0.3, 0.5, 0.2, 0.2, 3, 0.5, -1],
  costExponent: 0,
  fittedOn: [
    'long chats: personal (tuning seeds)',
    'long chats: work (tuning seeds)',
    'long chats: support (tuning seeds)',
    'long chats: travel (tuning seeds)',
  ],
};
