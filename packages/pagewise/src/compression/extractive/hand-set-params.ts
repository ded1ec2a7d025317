/**
 * The hand-set scorer of the extractive compressor (v0) as a parameter file over the unit features of
 * `features.ts`: the weights the scorer was written with, read by the same scoring path as fitted weights
 * (`unitScore`), with a linear link so that scores, and `minScore`, stay on the scale they were set on.
 * Relevance to the query is normalized to [0, 1]; every other weight is a bonus on that scale.
 */
import { FEATURES_VERSION, FEATURE_NAMES, featureVector, type ScorerParams } from './features.js';

/**
 * Weight of a unit's paragraph (of a field's records) relevance: a unit of the paragraph the query is about
 * rises above an equally matching unit elsewhere.
 */
export const CONTAINER_WEIGHT = 0.8;

/**
 * Weight of the second hop: a paragraph a well-ranked unit names is lifted about as much as one the query
 * matches outright.
 */
export const LINKED_WEIGHT = 0.8;

/** Lead sentences introduce their paragraph's subject (the lead heuristic of summarization). */
export const LEAD_WEIGHT = 0.4;

/**
 * Weight of protected content (numbers, ids, dates, URLs, errors, headings). The feature counts at most two
 * kinds, halved, so a unit full of numbers gains at most this much and does not outrank relevance.
 */
export const PROTECTED_WEIGHT = 0.2;

/**
 * Ids are what the agent passes to its next tool call, so an id field weighs as much as full relevance to
 * the query: the ids of the record the task is about come first, and the ids of other records still outrank
 * their non-id fields, but not the relevant record's other fields (the `idInRecord` feature shrinks with
 * its record's relevance, down to a floor).
 */
export const ID_WEIGHT = 1;

/**
 * Weight of a text unit (a sentence, a line) that holds an id-shaped token: an order number, a handle, a
 * `snake_case` name such as a tool's. What the agent passes to its next call, or calls, is written so in
 * prose too: the sentence of a policy or a manual that names the tool to call or the record to act on rises
 * above a somewhat more relevant one that names none. Half of {@link ID_WEIGHT}, a prior rather than a fit: a
 * text unit holds other words besides the id, a JSON id field only the id. The suite's tuning splits, read
 * before the test splits, are in docs/compression-on-real-data.md.
 */
export const TEXT_ID_WEIGHT = 0.5;

/**
 * Weight of a field name the task uses (`price` when the task asks for the price paid; ids have their own
 * weight): the same for every record's field of that name, where BM25 over whole leaves ranks it below a
 * leaf that repeats more query words (an order id) and can leave it below unrelated protected values. Text
 * units' `Label:` lines do not get it: their label is already part of the text BM25 scores.
 */
export const KEY_MATCH_WEIGHT = 0.5;

/** The hand-set scorer: the extractive compressor's default (`scoring: 'heuristic'`). */
export const HAND_SET_PARAMS: ScorerParams = {
  version: FEATURES_VERSION,
  features: FEATURE_NAMES,
  link: 'linear',
  weights: featureVector({
    relevance: 1,
    container: CONTAINER_WEIGHT,
    linked: LINKED_WEIGHT,
    lead: LEAD_WEIGHT,
    identifier: TEXT_ID_WEIGHT,
    protectedKinds: PROTECTED_WEIGHT,
  }),
  jsonWeights: featureVector({
    relevance: 1,
    container: CONTAINER_WEIGHT,
    idInRecord: ID_WEIGHT,
    keyMatch: KEY_MATCH_WEIGHT,
    protectedKinds: PROTECTED_WEIGHT,
  }),
  bias: 0,
  fittedOn: [],
  seed: 0,
  l2: 0,
};
