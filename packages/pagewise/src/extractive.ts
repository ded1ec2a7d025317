/**
 * `pagewise/extractive`: the engine of the extractive backend, for tuning, training and evaluating it rather than
 * for plugging it into an agent (that is `extractiveBackend` of `pagewise/compression`). It holds the one-call
 * compressor with explicit rules, the rules' schema, the feature probe and the shape of the learned scorer's
 * parameters (what `npm run train:compressor` fits), and the text baselines it is compared with at equal ratio.
 */
export {
  compressExtractive,
  compressWithProbe,
  type ExtractiveResult,
  type FeatureProbe,
} from './compression/extractive.js';
export { parseExtractiveRules, type AlwaysKeep, type ExtractiveRules } from './compression/rules.js';
export {
  FEATURE_NAMES,
  FEATURES_VERSION,
  unitScore,
  type LearnedParams,
  type ScorerParams,
} from './compression/extractive/features.js';
export { HAND_SET_PARAMS } from './compression/extractive/hand-set-params.js';
export { randomUnits, truncateHead, truncateTail } from './compression/baselines-text.js';
