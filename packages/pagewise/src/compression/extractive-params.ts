/**
 * Fitted parameters of the extractive compressor's learned scorer (see `features.ts`). Written by
 * `npm run train:compressor` (bench/train-compressor.ts); do not edit by hand.
 */
import type { LearnedParams } from './features.js';

/** The shipped parameters: logistic-regression weights per feature, fitted on the suite's tuning splits. */
export const EXTRACTIVE_PARAMS: LearnedParams = {
  version: 2,
  features: [
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
  ],
  weights: [
    3.041813, 0.277668, 1.006734, 0.199086, 0.364106, 0.112061, 0.406827, -0.038511, 0.120788, 1.123362, 0.358402,
    0.030166, 0.461089, 0.413931, 0.559243, 0.526026, -0.502144, -0.898777,
  ],
  bias: -4.6799,
  fittedOn: [
    'HotpotQA (tuning split)',
    'TAT-QA (markdown) (tuning split)',
    'TAT-QA (cell per line) (tuning split)',
    'Report pages (English) (tuning split)',
    'Report pages (Japanese) (tuning split)',
    'Generated chats (transcript) (tuning split)',
    'tau2 banking documents (tuning split)',
    'tau2 banking records (tuning split)',
    'tau2 telecom manuals (tuning split)',
    'tau-retail records (tuning split)',
  ],
  seed: 26,
  l2: 0.001,
};
