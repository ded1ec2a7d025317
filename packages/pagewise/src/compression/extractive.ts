/**
 * The extractive compressor: keeps the units of an observation or history (sentences, lines, JSON
 * fields) most relevant to the task, within a token budget, without an LLM. It is the cheap backend
 * of C_obs / C_hist and the baseline an LLM compressor has to beat.
 *
 * Selection policy, in this order:
 * 1. Units matching a keep pattern (for JSON also: fields under a `jsonKeepFields` key) come first,
 *    best score first (JSON: the object's own fields before those of its parts). Units matching a drop
 *    pattern (JSON: under a `jsonDropFields` key) are never kept, unless a keep rule also matches.
 * 2. Every other unit follows by score: BM25 relevance of the unit (with its headings' words) to the
 *    query (BM25+ as minisearch scores it), plus the relevance of its paragraph (JSON: its records; a field
 *    outside every record belongs to the whole object, as relevant as its best record), plus a lead bonus
 *    for the first sentence of a prose paragraph, plus a boost for each kind of protected content it
 *    holds (numbers, identifiers, dates, URLs, errors, headings). A protected unit thus beats an
 *    unprotected one of similar relevance, not a clearly more relevant one. JSON fields under an
 *    id-like key (`id`, `order_id`, `userId`, ...) get a boost worth full relevance: ids come before
 *    other fields of their record, and the relevant record's ids before all; a list of ids counts as one.
 *    A field chosen by rank comes with its record's id and name, and the id of the whole object (an
 *    order's `order_id` with an item of it). A short list of scalars (up to 32) is one unit: kept whole or
 *    not at all, since a cut list still reads as the whole one. Units scoring below `minScore` are dropped.
 * 3. Units are taken greedily in that order while they fit the budget (a unit that does not fit is
 *    skipped, smaller ones after it may still fit); a kept unit brings its heading along. The output
 *    lists kept units in their original order; JSON keeps its structure, arrays compacted.
 *
 * With `scoring: 'learned'` the score of step 2 is instead the probability a fitted logistic model gives
 * the unit's features (`extractive/features.ts`; parameters in `extractive/fitted-params.ts`, written by `npm run
 * train:compressor`); steps 1 and 3, and what a unit brings along, are the same.
 *
 * The pipeline, top to bottom, for text (`compressText`) and JSON (`compressJson`) alike:
 * 1. units: `extractive/units.ts` (sentences, lines, rows, headings, by `text/segment.ts`) or
 *    `extractive/json-leaves.ts` (scalar fields with their key paths and records);
 * 2. features: each unit's vector (`extractive/features.ts`), from query search (`extractive/search.ts`),
 *    protected content (`extractive/protected.ts`) and the entity links of `extractive/links.ts`;
 * 3. scores: `unitScore` over a parameter file, the hand-set one (`extractive/hand-set-params.ts`) or fitted
 *    weights (`extractive/fitted-params.ts`);
 * 4. selection under the budget: `extractive/select.ts` with the budget loop of `token-budget.ts`.
 *
 * Budget: ⌊ratio · inputTokens⌋, or `maxTokens` if smaller, measured on the final text with the
 * project tokenizer, so `outputTokens ≤ budget` always holds, with one exception: an input of at most
 * {@link TINY_INPUT_TOKENS} tokens (and within `maxTokens`) is returned unchanged, since compressing
 * it saves a few tokens and risks losing a whole fact.
 */
import { countTokens } from '../tokens/tokenizer.js';
import { ConfigurationError } from '../errors.js';
import { compilePatterns, parseExtractiveRules } from './rules.js';
import type { ExtractiveRules } from './rules.js';
import { bm25Index } from '../text/bm25.js';
import { hasIdentifier, isIdentifierToken } from '../text/identifiers.js';
import { isContentUnit, joinUnits } from '../text/segment.js';
import { collapseWhitespace } from '../text/whitespace.js';
import { withAcronymsSpelledOut } from '../text/acronyms.js';
import { stringifyJsonSource } from './json-source.js';
import { headAtWordBoundary, tokenBudget } from './token-budget.js';
import {
  checkParams,
  FEATURE_NAMES,
  featureVector,
  isListItem,
  lengthFeature,
  lineLabel,
  numericDensity,
  unitScore,
  weighedFeatures,
  type FeatureName,
  type ScorerParams,
} from './extractive/features.js';
import { EXTRACTIVE_PARAMS } from './extractive/fitted-params.js';
import { HAND_SET_PARAMS } from './extractive/hand-set-params.js';
import {
  BM25_TERMS,
  PIECE,
  type PreparedQuery,
  bm25Scores,
  keyMatchOf,
  normalized,
  searchQuery,
  searchesFor,
  weightedRelevance,
  wordsFor,
} from './extractive/search.js';
import {
  ID_KEY,
  type JsonContainer,
  type JsonLeaf,
  LABEL_KEY,
  MIN_ID_SHARE,
  compactJson,
  errorKeys,
  fieldMatcher,
  isRootId,
  jsonLeaves,
  keptJson,
  leafCost,
  parseJsonContainer,
  pathWords,
  recordLabels,
  recordRelevance,
  scalarText,
} from './extractive/json-leaves.js';
import { errorFirstLine, groupBy, isCuttable, unitsOf } from './extractive/units.js';
import { type Candidate, type Selected, rank, select } from './extractive/select.js';
import { requiredUnits, titleLinks } from './extractive/links.js';
import { MAX_PROTECTED_KINDS, PROTECTED_TESTS, protectedKinds, protectedKindsOfText } from './extractive/protected.js';

/** Inputs up to this many tokens are returned unchanged (see the module comment). */
export const TINY_INPUT_TOKENS = 32;

/** Options of {@link compressExtractive}. */
export interface ExtractiveOptions {
  /**
   * What the kept text must serve: the task, and the current objective. A {@link PreparedQuery} is the same query
   * prepared once for many calls (see `suffixQueries`).
   */
  query: string | PreparedQuery;
  /**
   * Text around the input that says what else matters, at a lower weight than `query`: the recent steps
   * when compressing an observation (an id the last step names picks the record it is about). In JSON
   * its relevance counts {@link CONTEXT_WEIGHT} of the query's, so words the history merely repeats
   * (an address, a country) do not outrank what the task asks for; prose reads it as part of the query.
   */
  context?: string;
  /**
   * Identifiers that other steps hold (an item id an earlier order names): in JSON, a record holding one
   * ranks above its siblings, as if the context named it; its fields do not gain beyond their record.
   */
  keys?: string;
  /** How much to keep and what to protect; validated on every call. */
  rules: ExtractiveRules;
  /** A hard cap in tokens; the budget is the smaller of this and `rules.ratio · inputTokens`. */
  maxTokens?: number;
  /**
   * How units are scored: `heuristic` (default), the hand-set weights of `extractive/hand-set-params.ts`; `learned`, the
   * logistic model over the same unit features (`features.ts`), with the fitted parameters the package ships
   * (`extractive/fitted-params.ts`, written by `npm run train:compressor`) or `params`. Both are read by one scoring
   * path. Keep and drop rules, error lines and what a unit brings along stay hard constraints either way;
   * with `learned`, `minScore` is a probability.
   */
  scoring?: 'heuristic' | 'learned';
  /** Parameters of the learned scorer in place of the shipped ones (training and evaluation). */
  params?: ScorerParams;
}

/**
 * Receives, per call, each scored unit's text (JSON: `key: value` as written), its feature vector and
 * whether it can be kept on its own: how `npm run train:compressor` reads the units it labels.
 */
export type FeatureProbe = (units: readonly { text: string; features: number[]; standalone: boolean }[]) => void;

/** The result of {@link compressExtractive}. */
export interface ExtractiveResult {
  text: string;
  /** Tokens of the input and of `text`, by the project tokenizer. */
  inputTokens: number;
  outputTokens: number;
  /**
   * Units kept (headings included; a unit cut to fit counts as kept) and units in the input. A tiny
   * input returned unchanged counts as one unit, kept.
   */
  kept: number;
  total: number;
  /**
   * Set when no whole unit fits the budget (nor a whole-word prefix of the best one): the input is then
   * returned whole, over the budget, since a cut inside a unit could change a value or hide an error.
   */
  irreducible?: true;
  /**
   * Set when the input is an error result (a first line starting with `Error` or naming an exception, a
   * non-2xx status, a top-level `error` field): its first line (JSON: its error and status fields) is kept
   * whole even where that exceeds the budget.
   */
  error?: true;
}

/**
 * Compresses `input` extractively: splits it into units, ranks them against `query` and keeps the
 * best ones within the budget (see the module comment for the policy). JSON input (an object or an
 * array) is compressed field by field and stays valid compact JSON.
 *
 * @example
 * const { text, outputTokens, inputTokens } = compressExtractive(observation, {
 *   query: `${task}\n${recentSteps}`,
 *   rules: DEFAULT_OBSERVATION_RULES,
 * });
 *
 * @throws ConfigurationError when `rules` is invalid (bad ratio, bad pattern), or `scoring` or `params` is.
 */
export function compressExtractive(input: string, options: ExtractiveOptions): ExtractiveResult {
  return compressWithProbe(input, options);
}

/**
 * {@link compressExtractive}, handing the scored units and their features to `probe` (training reads
 * them; an input returned unchanged for its size is not scored).
 */
export function compressWithProbe(input: string, options: ExtractiveOptions, probe?: FeatureProbe): ExtractiveResult {
  const rules = parseExtractiveRules(options.rules, { source: 'compressExtractive options.rules' });
  const inputTokens = countTokens(input);
  if (inputTokens <= TINY_INPUT_TOKENS && (options.maxTokens === undefined || inputTokens <= options.maxTokens)) {
    return { text: input, inputTokens, outputTokens: inputTokens, kept: 1, total: 1 };
  }
  const budget = tokenBudget(inputTokens, rules.ratio, options.maxTokens);
  const json = parseJsonContainer(input);
  const context = options.context?.trim() ?? '';
  const scorer = scorerOf(options);
  // Lossless first: the compact JSON or the text with spare whitespace collapsed says all the input says.
  // When it fits and no rule drops anything, nothing is dropped; otherwise units are chosen from it, so the
  // budget is spent on the tokens the output shows.
  const lossless = json === undefined ? collapseWhitespace(input) : compactJson(json);
  const losslessTokens = lossless === input ? inputTokens : countTokens(lossless);
  if (losslessTokens <= budget && losslessTokens < inputTokens && dropsNothing(rules)) {
    const total = json === undefined ? unitsOf(lossless, rules).length : jsonLeaves(json).length;
    const error = json === undefined ? errorFirstLine(input) !== undefined : errorKeys(json).size > 0;
    return {
      text: lossless,
      inputTokens,
      outputTokens: losslessTokens,
      kept: total,
      total,
      ...(error ? { error: true as const } : {}),
    };
  }
  const result =
    json === undefined
      ? compressPlainText(lossless, options.query, rules, budget, scorer, probe)
      : compressJson(
          json,
          { query: options.query, context, keys: options.keys?.trim() ?? '' },
          rules,
          budget,
          scorer,
          probe,
        );
  const whole = { text: input, inputTokens, outputTokens: inputTokens, kept: result.total, total: result.total };
  if (result.kept === 0 && result.total > 0 && inputTokens > 0) return { ...whole, irreducible: true };
  // Never longer than the input: a render that is (a cut-list marker, a join across a gap) shows it all.
  if (result.outputTokens >= inputTokens || result.text.length > input.length) {
    return result.error ? { ...whole, error: true } : whole;
  }
  return { ...result, inputTokens };
}

/**
 * What {@link compressExtractive} makes of `input` at `maxTokens: 0`, when that is known without running it
 * (undefined when it is not). No unit fits in no tokens, so the input comes back whole (irreducible), whatever
 * the query and the rules; only an error is kept at any budget (a text's error line, a JSON result's error
 * fields), and a text of whitespace alone collapses to nothing. Those are left to the pipeline. Callers that cut
 * many small entries to a common cap (a history summary over budget) skip the scoring of each.
 */
export function zeroBudgetResult(input: string): string | undefined {
  const json = parseJsonContainer(input);
  if (json !== undefined) return errorKeys(json).size > 0 ? undefined : input;
  const lossless = collapseWhitespace(input);
  if (lossless === '' || errorFirstLine(input) !== undefined || errorFirstLine(lossless) !== undefined)
    return undefined;
  return input;
}

/** Whether `rules` keep every unit when the budget allows: no drop pattern, no dropped field, no score floor. */
function dropsNothing(rules: ExtractiveRules): boolean {
  return rules.minScore === undefined && rules.dropPatterns.length === 0 && rules.jsonDropFields.length === 0;
}

/** The scorer parameters `options` ask for, checked: the hand-set ones, or fitted ones. */
function scorerOf(options: ExtractiveOptions): ScorerParams {
  const scoring = options.scoring ?? 'heuristic';
  if (scoring === 'heuristic') return HAND_SET_PARAMS;
  if (scoring !== 'learned') {
    throw new ConfigurationError(
      'invalid-scoring',
      `compressExtractive: scoring must be 'heuristic' or 'learned', got ${String(scoring)}`,
    );
  }
  try {
    return checkParams(options.params ?? EXTRACTIVE_PARAMS);
  } catch (error) {
    throw new ConfigurationError('invalid-learned-params', `compressExtractive: ${(error as Error).message}`);
  }
}

/**
 * Prose, logs, tables and chats; an error result keeps its first line whole, even over the budget, and the
 * rest is compressed into what budget is left.
 */
function compressPlainText(
  input: string,
  query: string | PreparedQuery,
  rules: ExtractiveRules,
  budget: number,
  scorer: ScorerParams,
  probe?: FeatureProbe,
): Selected {
  const first = errorFirstLine(input);
  if (first === undefined) return compressText(input, query, rules, budget, scorer, probe);
  const firstTokens = countTokens(first);
  const after = input.indexOf(first) + first.length;
  const rest = input.slice(after).trimStart();
  const head: Selected = { text: first, outputTokens: firstTokens, kept: 1, total: 1, error: true };
  // One token for the line break between the first line and the rest.
  const restBudget = budget - firstTokens - 1;
  if (rest === '' || restBudget <= 0) return { ...head, total: rest === '' ? 1 : 2 };
  const inner = compressText(rest, query, rules, restBudget, scorer, probe);
  const text = inner.kept > 0 ? `${first}\n${inner.text}` : first;
  const outputTokens = countTokens(text);
  if (outputTokens > Math.max(budget, firstTokens)) return { ...head, total: inner.total + 1 };
  return { text, outputTokens, kept: inner.kept + 1, total: inner.total + 1, error: true };
}

function compressText(
  input: string,
  query: string | PreparedQuery,
  rules: ExtractiveRules,
  budget: number,
  scorer: ScorerParams,
  probe?: FeatureProbe,
): Selected {
  const units = unitsOf(input, rules);
  const total = units.length;
  // A unit is scored with its headings' words: "He was the author of many books" is about the
  // paragraph's title, as a JSON value is about its key path.
  // A table row is scored with its column headers, a turn's sentence with its speaker, likewise.
  const requirements = units.map((u) => requiredUnits(units, u));
  // An acronym of the question ("R&D") is searched as the text spells it out too ("Research and development").
  const searched = searchesFor(typeof query === 'string' ? withAcronymsSpelledOut(query, input) : query);
  // Every unit's text is a piece of these texts, so a paragraph holds no term they lack.
  const unitIndex = bm25Index(
    units.map((u) => [...(requirements[u.index] ?? []).map((h) => units[h]?.text ?? ''), u.text].join(PIECE)),
    BM25_TERMS,
  );
  const relevance = normalized(unitIndex.scores(searched));
  const blocks = groupBy(units, (u) => u.block);
  const blockTexts = [...blocks.values()].map((members) => members.map((u) => u.text).join(PIECE));
  // With a single paragraph, its relevance says nothing about any unit; a constant would only shift
  // scores and make minScore mean different things for different documents.
  const blockRelevance =
    blocks.size > 1 ? normalized(bm25Scores(blockTexts, unitIndex.matching(searched))) : blockTexts.map(() => 0);
  const blockRank = new Map([...blocks.keys()].map((block, i) => [block, blockRelevance[i] ?? 0]));
  const keep = compilePatterns(rules.keepPatterns);
  const drop = compilePatterns(rules.dropPatterns);

  // Only prose has a lead: the first line of a log is no more telling than the others.
  const leads = units.map(
    (unit) => unit.kind === 'sentence' && unit.position === 0 && (blocks.get(unit.block)?.length ?? 0) > 1,
  );
  const tokens = units.map((unit) => countTokens(unit.text));
  const wanted = probe ? ALL_FEATURES : weighedFeatures(scorer).text;
  const queryWords = wanted.has('keyMatch') ? wordsFor(query) : new Set<string>();
  const keyMatch = new Map<string, number>();
  const seen = new Set<string>();
  const features = units.map((unit) => {
    const repeat = wanted.has('repeat') && seen.has(unit.text) ? 1 : 0;
    if (wanted.has('repeat')) seen.add(unit.text);
    const label =
      (wanted.has('labelled') || wanted.has('keyMatch')) && (unit.kind === 'line' || unit.kind === 'sentence')
        ? lineLabel(unit.text)
        : undefined;
    return featureVector({
      relevance: relevance[unit.index] ?? 0,
      container: blockRank.get(unit.block) ?? 0,
      position: units.length > 1 ? unit.index / (units.length - 1) : 0,
      lead: leads[unit.index] ? 1 : 0,
      heading: unit.kind === 'heading' ? 1 : 0,
      tableRow: unit.kind === 'row' ? 1 : 0,
      listItem: wanted.has('listItem') && isListItem(unit.text) ? 1 : 0,
      labelled: label === undefined ? 0 : 1,
      identifier: wanted.has('identifier') && hasIdentifier(unit.text) ? 1 : 0,
      error: wanted.has('error') && PROTECTED_TESTS.errors(unit.text) ? 1 : 0,
      numeric: wanted.has('numeric') ? numericDensity(unit.text) : 0,
      keyMatch: label === undefined ? 0 : keyMatchOf(label, queryWords, keyMatch),
      protectedKinds: wanted.has('protectedKinds')
        ? Math.min(MAX_PROTECTED_KINDS, protectedKinds(unit, rules.alwaysKeep)) / MAX_PROTECTED_KINDS
        : 0,
      length: lengthFeature(tokens[unit.index] ?? 0),
      repeat,
    });
  });
  const linkedAt = FEATURE_NAMES.indexOf('linked');
  // The first pass leaves `linked` at 0: the link is computed from it.
  const firstPass = units.map((unit) => unitScore(scorer, features[unit.index] ?? []));
  const hop = titleLinks(units, blocks.size, firstPass);
  features.forEach((vector, i) => (vector[linkedAt] = hop[i] ?? 0));
  probe?.(
    units.map((unit) => ({ text: unit.text, features: features[unit.index] ?? [], standalone: isContentUnit(unit) })),
  );
  const candidates: Candidate[] = units.map((unit) => {
    const forced = keep.some((re) => re.test(unit.text));
    return {
      index: unit.index,
      score: unitScore(scorer, features[unit.index] ?? []),
      forced,
      dropped: !forced && drop.some((re) => re.test(unit.text)),
      standalone: isContentUnit(unit),
      outline: unit.kind === 'heading',
      // One token more for the separator it brings into the output. (Counting only line breaks matches the
      // output better and saves a second render, but kept less of the evidence on TAT-QA: decision 3.)
      cost: (tokens[unit.index] ?? 0) + 1,
      requires: requirements[unit.index] ?? [],
    };
  });
  const render = (kept: readonly number[]): string => joinUnits(input, units, kept);
  const chosen = select(candidates, rules.minScore, budget, render);
  if (chosen.kept.length > 0 || total === 0) {
    return { text: chosen.text, outputTokens: chosen.tokens, kept: chosen.kept.length, total };
  }
  // Nothing fits whole (one huge unit, or a tight maxTokens): the best prose unit, cut to whole words. A
  // table row or a record is not cut: a label without its number says nothing, or something false.
  const best = rank(candidates.filter((c) => !c.dropped && c.standalone && isCuttable(units[c.index]))).at(0);
  const text = best === undefined ? '' : headAtWordBoundary(units[best.index]?.text ?? '', budget);
  return { text, outputTokens: countTokens(text), kept: text.length > 0 ? 1 : 0, total };
}

/** Every feature: what a probe reads. */
const ALL_FEATURES: ReadonlySet<FeatureName> = new Set(FEATURE_NAMES);

function compressJson(
  root: JsonContainer,
  query: { query: string | PreparedQuery; context: string; keys: string },
  rules: ExtractiveRules,
  budget: number,
  scorer: ScorerParams,
  probe?: FeatureProbe,
): Selected {
  const leaves = jsonLeaves(root);
  const total = leaves.length;
  const keepField = fieldMatcher(rules.jsonKeepFields);
  const dropField = fieldMatcher(rules.jsonDropFields);
  const keep = compilePatterns(rules.keepPatterns);
  const drop = compilePatterns(rules.dropPatterns);

  const leafTexts = leaves.map((leaf) => `${pathWords(leaf.path)} ${scalarText(leaf.value)}`);
  const searched = searchesFor(query.query);
  // A record's text is made of its leaves' texts: the query terms no leaf matches match no record either.
  const leafIndex = bm25Index(leafTexts, BM25_TERMS);
  const relevance = weightedRelevance(leafIndex, {
    query: searched,
    context: query.context ? searchQuery(query.context) : undefined,
  });
  // Records are array items and entries of id-keyed maps: the outermost (an order in a list of orders)
  // and the innermost (an item of that order). Their relevance lifts all their fields, so the id of the item the task is about
  // outranks the ids of the other items, and those of the other orders.
  const recordContext = [query.context, query.keys].filter(Boolean).join('\n');
  const recordQuery = {
    query: leafIndex.matching(searched),
    context: recordContext ? leafIndex.matching(searchQuery(recordContext)) : undefined,
  };
  const outer = recordRelevance(leaves, leafTexts, recordQuery, (leaf) => leaf.records[0] ?? -1);
  // Records in no other record (orders of a customer with no items listed) are each leaf's innermost as well.
  const nested = leaves.some((leaf) => leaf.records.length > 1);
  const inner = nested
    ? recordRelevance(leaves, leafTexts, recordQuery, (leaf) => leaf.records[leaf.records.length - 1] ?? -1)
    : outer;
  // A field outside every record (a customer's own name beside their lists of accounts) belongs to the whole
  // object, which holds every record and so is at least as relevant as the best of them.
  const containerAt = leaves.map((leaf, index) =>
    leaf.records.length === 0 && outer.ranked ? 1 : ((outer.scores[index] ?? 0) + (inner.scores[index] ?? 0)) / 2,
  );

  const rootId = leaves.findIndex(isRootId);
  const labels = recordLabels(leaves, rootId);
  const lines = leaves.map((leaf) => `${leaf.key ?? ''}: ${scalarText(leaf.value)}`);
  const keysOf = (leaf: JsonLeaf) => leaf.path.filter((p): p is string => typeof p === 'string');
  const errorAt = errorKeys(root);
  const isErrorLeaf = (leaf: JsonLeaf): boolean => typeof leaf.path[0] === 'string' && errorAt.has(leaf.path[0]);
  const forcedAt = leaves.map(
    (leaf, i) => isErrorLeaf(leaf) || keepField(keysOf(leaf)) || keep.some((re) => re.test(lines[i]!)),
  );
  const rootForced = rootId >= 0 && forcedAt[rootId] === true;
  const queryWords = wordsFor(query.query);
  const keyMatch = new Map<string, number>();
  const opened = new Set<string>();
  const costs = leaves.map((leaf) => leafCost(leaf, opened));
  // A field named as an id, or a list of ids (a customer's orders): what joins this record to others.
  const idLikeAt = leaves.map(
    (leaf) =>
      leaf.key !== undefined &&
      (ID_KEY.test(leaf.key) ||
        (Array.isArray(leaf.value) &&
          leaf.value.length > 0 &&
          leaf.value.every((v) => typeof v === 'string' && isIdentifierToken(v.startsWith('#') ? v.slice(1) : v)))),
  );
  const wanted = probe ? ALL_FEATURES : weighedFeatures(scorer).json;
  const seenLines = new Set<string>();
  const features = leaves.map((leaf, index) => {
    const line = lines[index]!;
    const repeat = wanted.has('repeat') && seenLines.has(line) ? 1 : 0;
    if (wanted.has('repeat')) seenLines.add(line);
    const idLike = idLikeAt[index] === true;
    return featureVector({
      relevance: relevance[index] ?? 0,
      container: containerAt[index] ?? 0,
      position: leaves.length > 1 ? index / (leaves.length - 1) : 0,
      listItem: typeof leaf.path[leaf.path.length - 1] === 'number' ? 1 : 0,
      labelled: wanted.has('labelled') && leaf.key !== undefined && LABEL_KEY.test(leaf.key) ? 1 : 0,
      identifier: idLike ? 1 : 0,
      idInRecord: idLike
        ? leaf.records.length === 0 || !inner.ranked
          ? 1
          : Math.max(MIN_ID_SHARE, inner.scores[index] ?? 0)
        : 0,
      error: wanted.has('error') && PROTECTED_TESTS.errors(line) ? 1 : 0,
      numeric: wanted.has('numeric') ? numericDensity(scalarText(leaf.value)) : 0,
      keyMatch: idLike || !wanted.has('keyMatch') ? 0 : keyMatchOf(leaf.key, queryWords, keyMatch),
      protectedKinds: wanted.has('protectedKinds')
        ? Math.min(MAX_PROTECTED_KINDS, protectedKindsOfText(line, rules.alwaysKeep, false)) / MAX_PROTECTED_KINDS
        : 0,
      length: lengthFeature(costs[index] ?? 0),
      json: 1,
      repeat,
    });
  });
  probe?.(
    leaves.map((leaf, index) => ({
      text: `${leaf.key ?? ''}: ${stringifyJsonSource(leaf.value)}`,
      features: features[index] ?? [],
      standalone: true,
    })),
  );
  const candidates: Candidate[] = leaves.map((leaf, index) => {
    const line = lines[index]!;
    const forced = forcedAt[index] === true;
    const dropped = !forced && (dropField(keysOf(leaf)) || drop.some((re) => re.test(line)));
    return {
      index,
      score: unitScore(scorer, features[index] ?? [], true),
      forced,
      dropped,
      standalone: true,
      ...(leaf.path.length === 1 && typeof leaf.path[0] === 'string' ? { own: true } : {}),
      cost: costs[index] ?? 0,
      // A field a rule forces in is kept as the rule says (with the object's id when a rule forces that
      // too); a field chosen by rank comes with its record's name.
      requires: forced
        ? rootForced && leaf.path.length > 1 && rootId !== index
          ? [rootId]
          : []
        : (labels[index] ?? []),
    };
  });
  const render = (kept: readonly number[]): string => stringifyJsonSource(keptJson(root, leaves, kept));
  // An error result's error fields are kept whole, over the budget if they must be.
  const errorLeaves = leaves.flatMap((leaf, i) => (isErrorLeaf(leaf) ? [i] : []));
  const floor = errorLeaves.length > 0 ? countTokens(render(errorLeaves)) : 0;
  const chosen = select(candidates, rules.minScore, Math.max(budget, floor), render);
  return {
    text: chosen.text,
    outputTokens: chosen.tokens,
    kept: chosen.kept.length,
    total,
    ...(errorLeaves.length > 0 ? { error: true as const } : {}),
  };
}

export { isIdentifierToken };
