/**
 * The features of a unit of a plain conversation (a message, or a sentence of a message too long to keep
 * whole) by which the extractive history backend chooses what a summary keeps. Each is in [0, 1]:
 *
 * | feature | what it says |
 * |:---|:---|
 * | `relevance` | BM25 of the unit to the task and the current objective, over the best unit |
 * | `recency` | index of its message / (messages − 1): 0 first, 1 last |
 * | `referenced` | a distinctive word of it (a name, a number, an id) comes up again in a later step or the objective |
 * | `numeric` | it holds a digit |
 * | `rare` | {@link rareWordScore}: its distinctive words, each weighted by how few messages hold it |
 * | `novel` | {@link novelShare}: share of its content words no other message uses |
 * | `speaker` | it was said by the user (1) rather than the assistant (0) |
 * | `question` | {@link isQuestionOnly}: it only asks (a request), states nothing |
 *
 * When the later question is not known (history is compressed before it is asked, with the user's current
 * message as its only guide), relevance says little, and what a later question needs is what was said once and
 * specifically, by the user: a name, a number, a code, rather than small talk or an answer that can be given
 * again. The score of a unit is Σ wᵢ·fᵢ with the weights of {@link TurnWeights}; units are taken best first by
 * score per token^`costExponent` while they fit, so that a long answer is kept only when it is worth its length.
 * The weights are fitted by `bench/fit-history-weights.ts` on generated long chats (docs/compression-on-real-data.md).
 */
import { endsWithAnyOf } from '../text/characters.js';
import { splitSentences } from '../text/sentences.js';
import { isStopword } from '../text/stopwords.js';

/** The feature names, in the order of a feature vector. */
export const TURN_FEATURE_NAMES = [
  'relevance',
  'recency',
  'referenced',
  'numeric',
  'rare',
  'novel',
  'speaker',
  'question',
] as const;

/** One feature's name. */
export type TurnFeatureName = (typeof TURN_FEATURE_NAMES)[number];

/** The parameters of the turn ranking, as `bench/fit-history-weights.ts` writes them. */
export interface TurnWeights {
  /** Incremented when the feature set or its meaning changes; weights of another version are refused. */
  version: number;
  /** The feature names the weights belong to, in order; must equal {@link TURN_FEATURE_NAMES}. */
  features: readonly string[];
  weights: readonly number[];
  /** Units are ranked by score / tokens^costExponent: 0 ranks by score alone, 1 by score per token. */
  costExponent: number;
  /** What the weights were fitted on. */
  fittedOn: readonly string[];
}

/** The version of the turn feature set this code computes. */
export const TURN_FEATURES_VERSION = 1;

/**
 * Checks that `weights` fit this feature set: the same version and names, one finite weight each, and a
 * cost exponent in [0, 1].
 *
 * @throws Error naming what does not fit.
 */
export function checkTurnWeights(weights: TurnWeights): TurnWeights {
  if (weights.version !== TURN_FEATURES_VERSION) {
    throw new Error(`turn weights: version ${weights.version}, expected ${TURN_FEATURES_VERSION}`);
  }
  if (
    weights.features.length !== TURN_FEATURE_NAMES.length ||
    weights.features.some((name, index) => name !== TURN_FEATURE_NAMES[index])
  ) {
    throw new Error(`turn weights: features ${weights.features.join(', ')} do not match this version`);
  }
  if (weights.weights.length !== TURN_FEATURE_NAMES.length || !weights.weights.every(Number.isFinite)) {
    throw new Error('turn weights: one finite weight per feature expected');
  }
  if (!(weights.costExponent >= 0 && weights.costExponent <= 1)) {
    throw new Error(`turn weights: costExponent must be in [0, 1], got ${weights.costExponent}`);
  }
  return weights;
}

/** A unit's score: Σ wᵢ·fᵢ over a vector in {@link TURN_FEATURE_NAMES} order. */
export function turnScore(weights: TurnWeights, vector: readonly number[]): number {
  let score = 0;
  for (let index = 0; index < vector.length; index += 1) score += (weights.weights[index] ?? 0) * (vector[index] ?? 0);
  return score;
}

// Below this a score counts as nothing: a unit is still ranked by its cost among those worth nothing.
const LEAST_SCORE = 1e-3;

/**
 * The key units are taken by, best first: the score per token^`costExponent`. A score at or below 0 ranks below
 * every positive one, the cheaper first.
 */
export function rankKey(weights: TurnWeights, score: number, tokens: number): number {
  return Math.max(score, LEAST_SCORE) / Math.max(1, tokens) ** weights.costExponent;
}

/**
 * How specific a unit is, for a later question nobody has asked yet: the sum, over its distinct distinctive words
 * (numbers, ids, capitalized names), of 1 / the number of messages holding the word, at most 1. A value said once
 * (a flight number, a new colleague's name) counts fully; a name that comes up in every other message, or a number
 * every recipe uses, barely.
 *
 * @param words the unit's distinctive words, as {@link wordTokens} normalizes them
 * @param messagesHolding how many messages of the history hold a word (at least 1 for a word of the unit)
 */
export function rareWordScore(words: readonly string[], messagesHolding: (word: string) => number): number {
  let sum = 0;
  for (const word of new Set(words)) sum += 1 / Math.max(1, messagesHolding(word));
  return Math.min(1, sum);
}

/**
 * How new a unit's words are to the conversation: the share of its distinct content words (stopwords left out)
 * that no other message uses. What is said once (an allergy, a new plan) is new there; small talk and answers
 * that come back in other words of the same kind are not. 0 for a unit of stopwords only.
 *
 * @param words the unit's words, as {@link wordTokens} normalizes them
 * @param messagesHolding how many messages of the history hold a word (1: only the unit's own)
 */
export function novelShare(words: readonly string[], messagesHolding: (word: string) => number): number {
  const content = [...new Set(words)].filter((word) => !isStopword(word));
  if (content.length === 0) return 0;
  return content.filter((word) => messagesHolding(word) <= 1).length / content.length;
}

/** Whether every sentence of `text` is a question: it asks for something and states nothing to remember. */
export function isQuestionOnly(text: string): boolean {
  const sentences = splitSentences(text)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
  return sentences.length > 0 && sentences.every((sentence) => endsWithAnyOf(sentence, '?？'));
}
