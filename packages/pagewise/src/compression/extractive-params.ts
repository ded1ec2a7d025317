/**
 * Fitted parameters of the extractive compressor's learned scorer (see `features.ts`). Written by
 * `npm run train:compressor` (bench/train-compressor.ts); do not edit by hand.
 */
import type { LearnedParams } from './features.js';

/** The shipped parameters: logistic-regression weights per feature, fitted on the suite's tuning splits. */
export const EXTRACTIVE_PARAMS: LearnedParams = {
  version: 1,
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
  ],
  weights: [
    2.970843, 0.197248, 1.094815, 0.244664, 0.430824, 0.128283, 0.312187, -0.179593, 0.094524, 1.590073, -0.461307,
    0.035883, 0.90091, 0.018741, 0.587464, 0.312767, 0.078178,
  ],
  bias: -4.727074,
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
