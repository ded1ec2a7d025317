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
    2.935265, 0.432274, 1.006389, 0.29934, 0.346654, 0.108098, 0.279868, -0.001567, 0.112012, 1.027633, 0.089926,
    0.038344, 0.654259, 0.384356, 0.495612, 0.469422, -0.239878, -0.925904,
  ],
  bias: -4.712485,
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
