/**
 * The features of a unit (a sentence, line, table row or JSON field) that the learned scorer of the
 * extractive compressor combines. Each is in [0, 1]; a feature that does not apply to a unit's format is 0.
 *
 * | feature | text units | JSON fields |
 * |:---|:---|:---|
 * | `relevance` | BM25 of the unit with its headings (headers, speaker) to the query, over the best unit | BM25 of key path and value, plus half the relevance to the context |
 * | `container` | BM25 of its paragraph, over the best paragraph (0 for a one-paragraph input) | mean BM25 of its outer and inner record |
 * | `linked` | best first-pass score of a unit elsewhere naming its section's title (entity link) | 0 |
 * | `position` | index / (units − 1): 0 first, 1 last (recency) | the same over fields |
 * | `lead` | first sentence of a prose paragraph of several units | 0 |
 * | `heading` | a markdown heading or `Title:` label | 0 |
 * | `tableRow` | a table row with its label | 0 |
 * | `listItem` | a line opening with `-`, `*`, `•` or `1.` | an item of a list |
 * | `labelled` | a `Label: value` line | a `name`/`title`/`label` field |
 * | `identifier` | holds an id-shaped token | an id field, or a list of ids |
 * | `idInRecord` | 0 | `identifier` times its record's relevance |
 * | `error` | error words (failed, denied, not found, …) | the same on `key: value` |
 * | `numeric` | share of its words holding a digit | the same on the value |
 * | `keyMatch` | share of a `Label:` line's label words the query uses | share of the key's words the query uses |
 * | `protectedKinds` | kinds of protected content (numbers, ids, dates, URLs, errors, headings), up to 2, halved | the same |
 * | `length` | log₂(1 + tokens) / 10, capped at 1 | the same |
 * | `json` | 0 | 1 |
 * | `repeat` | the same text as an earlier unit | the same key and value as an earlier field (a foreign key repeated in every row) |
 *
 * The learned score of a unit is σ(bias + Σ wᵢ·fᵢ), with the weights of {@link LearnedParams}, fitted by
 * `npm run train:compressor` on unit labels (holds gold evidence or not) of the suite's tuning splits.
 */
import { foldCase } from '../../text/ascii-fold.js';
import { hasDigit } from '../../text/characters.js';

/** The feature names, in the order of a feature vector. */
export const FEATURE_NAMES = [
  'relevance',
  'container',
  'linked',
  'position',
  'lead',
  'heading',
  'tableRow',
  'listItem',
  'labelled',
  'identifier',
  'idInRecord',
  'error',
  'numeric',
  'keyMatch',
  'protectedKinds',
  'length',
  'json',
  'repeat',
] as const;

/** One feature's name. */
export type FeatureName = (typeof FEATURE_NAMES)[number];

/** A unit's features by name; a missing one is 0. */
export type UnitFeatures = Partial<Record<FeatureName, number>>;

/**
 * The parameters of a unit scorer: one weight per feature, a bias, and how their weighted sum becomes the
 * score. The hand-set scorer ({@link HAND_SET_PARAMS}) and the fitted one (`npm run train:compressor`
 * writes `fitted-params.ts`) are both such a file, read by the one scoring path ({@link unitScore}).
 */
export interface ScorerParams {
  /** Incremented when the feature set or its meaning changes; a file of another version is refused. */
  version: number;
  /** The feature names the weights belong to, in order; must equal {@link FEATURE_NAMES}. */
  features: readonly string[];
  weights: readonly number[];
  bias: number;
  /**
   * How the weighted sum z becomes the score: `logistic` (the default) σ(z), a probability, as fitted
   * weights give it; `linear` z itself, on the scale hand-set weights are written in. `minScore` compares
   * against this score.
   */
  link?: 'logistic' | 'linear';
  /** Weights for JSON fields where they differ from text units' (same order); absent: {@link weights}. */
  jsonWeights?: readonly number[];
  /** The sets (and their splits) the weights were fitted on; empty for hand-set weights. */
  fittedOn: readonly string[];
  /** Seed of the unit sampling, and the L2 penalty (0 for hand-set weights). */
  seed: number;
  l2: number;
}

/**
 * The parameters of the learned scorer, as `npm run train:compressor` writes them.
 *
 * @deprecated Use {@link ScorerParams}: the hand-set scorer is a parameter file of the same shape.
 */
export type LearnedParams = ScorerParams;

/** The version of the feature set this code computes. */
export const FEATURES_VERSION = 3;

/** The features as a vector in {@link FEATURE_NAMES} order. */
export function featureVector(features: UnitFeatures): number[] {
  return FEATURE_NAMES.map((name) => features[name] ?? 0);
}

/**
 * Checks that `params` fit this feature set: the same version and names, one finite weight each (for JSON
 * fields too, where given), and a known link.
 *
 * @throws Error naming what does not fit.
 */
export function checkParams(params: ScorerParams): ScorerParams {
  if (params.version !== FEATURES_VERSION) {
    throw new Error(`compressor scorer params: version ${params.version}, expected ${FEATURES_VERSION}`);
  }
  if (params.features.length !== FEATURE_NAMES.length || params.features.some((f, i) => f !== FEATURE_NAMES[i])) {
    throw new Error(`compressor scorer params: features ${params.features.join(', ')} do not match this version`);
  }
  const weightSets = params.jsonWeights === undefined ? [params.weights] : [params.weights, params.jsonWeights];
  if (
    weightSets.some((weights) => weights.length !== FEATURE_NAMES.length) ||
    ![...weightSets.flat(), params.bias].every(Number.isFinite)
  ) {
    throw new Error('compressor scorer params: one finite weight per feature and a finite bias expected');
  }
  if (params.link !== undefined && params.link !== 'logistic' && params.link !== 'linear') {
    throw new Error(`compressor scorer params: link must be 'logistic' or 'linear', got ${String(params.link)}`);
  }
  return params;
}

/**
 * The score of a unit with feature vector `vector`: the link (see {@link ScorerParams.link}) of
 * bias + Σ wᵢ·fᵢ, with the JSON weights for a JSON field.
 */
export function unitScore(params: ScorerParams, vector: readonly number[], json = false): number {
  const weights = (json ? params.jsonWeights : undefined) ?? params.weights;
  let sum = params.bias;
  for (let at = 0; at < vector.length; at += 1) sum += (weights[at] ?? 0) * (vector[at] ?? 0);
  return params.link === 'linear' ? sum : 1 / (1 + Math.exp(-sum));
}

/**
 * σ(bias + w·x): the probability the fitted model gives that the unit holds evidence.
 *
 * @deprecated Use {@link unitScore}, which also reads hand-set (linear) parameters.
 */
export function learnedScore(params: ScorerParams, vector: readonly number[]): number {
  return unitScore({ ...params, link: 'logistic' }, vector);
}

/**
 * Which features `params` weigh, for text units and for JSON fields: a feature no weight reads need not be
 * computed (a feature probe reads them all).
 */
export function weighedFeatures(params: ScorerParams): {
  text: ReadonlySet<FeatureName>;
  json: ReadonlySet<FeatureName>;
} {
  const weighed = (weights: readonly number[]) => new Set(FEATURE_NAMES.filter((_, at) => (weights[at] ?? 0) !== 0));
  return { text: weighed(params.weights), json: weighed(params.jsonWeights ?? params.weights) };
}

const LIST_ITEM = /^\s*(?:[-*•+]|\d{1,3}[.)])\s+\S/u;
const LABEL_LINE = /^\s*([^:\n]{1,40}):\s*\S/u;
const WORDS = /[\p{L}\p{N}][\p{L}\p{N}._-]*/gu;
// What reads as a label before a colon but is a URL's scheme (`https://…`).
const URL_SCHEMES: ReadonlySet<string> = new Set(['http', 'https']);

/** Whether a text unit is a list item. */
export function isListItem(text: string): boolean {
  return LIST_ITEM.test(text);
}

/** The label of a `Label: value` line (not a URL's scheme), or undefined. */
export function lineLabel(text: string): string | undefined {
  const label = LABEL_LINE.exec(text)?.[1];
  return label === undefined || URL_SCHEMES.has(foldCase(label.trim())) ? undefined : label.trim();
}

/** Share of the words of `text` that hold a digit (0 for no words). */
export function numericDensity(text: string): number {
  const words = text.match(WORDS) ?? [];
  return words.length === 0 ? 0 : words.filter(hasDigit).length / words.length;
}

/** The `length` feature of a unit of `tokens` tokens. */
export function lengthFeature(tokens: number): number {
  return Math.min(1, Math.log2(1 + tokens) / 10);
}
