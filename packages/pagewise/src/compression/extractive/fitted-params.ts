/**
 * Fitted parameters of the extractive compressor's learned scorer (see `features.ts`). Written by
 * `npm run train:compressor` (bench/train-compressor.ts); do not edit by hand.
 */
import type { ScorerParams } from './features.js';

/** The shipped parameters: logistic-regression weights per feature, fitted on the suite's tuning splits. */
export const EXTRACTIVE_PARAMS: ScorerParams = {
  version: 3,
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
    2.876208, 0.556883, 1.026296, 0.393851, 0.354631, 0.134342, 0.272532, -0.033943, 0.169512, 1.052577, -0.075519,
    0.04249, 0.665088, 0.311878, 0.503994, 0.473959, -0.299129, -0.910484,
  ],
  bias: -4.828276,
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
