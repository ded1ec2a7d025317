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
 * the unit's features (`features.ts`; parameters in `extractive-params.ts`, written by `npm run
 * train:compressor`); steps 1 and 3, and what a unit brings along, are the same.
 *
 * Budget: ⌊ratio · inputTokens⌋, or `maxTokens` if smaller, measured on the final text with the
 * project tokenizer, so `outputTokens ≤ budget` always holds, with one exception: an input of at most
 * {@link TINY_INPUT_TOKENS} tokens (and within `maxTokens`) is returned unchanged, since compressing
 * it saves a few tokens and risks losing a whole fact.
 */
import { countTokens } from '../tokens/tokenizer.js';
import { ConfigurationError } from '../errors.js';
import { compilePatterns, parseExtractiveRules } from './rules.js';
import type { AlwaysKeep, ExtractiveRules } from './rules.js';
import { hasCjk, indexTerms, wordTokens } from '../text/words.js';
import {
  bm25Index,
  bm25PlusScores,
  searchesOf,
  type Bm25Index,
  type Bm25Query,
  type Bm25Search,
  type Bm25Terms,
} from '../text/bm25.js';
import { caseInsensitiveTest } from '../text/ascii-fold.js';
import { isStopword } from '../text/stopwords.js';
import { hasIdentifier, ID_FIELD, isIdentifierToken } from '../text/identifiers.js';
import { isContentUnit, joinUnits, segmentText } from '../text/segment.js';
import { collapseWhitespace } from '../text/whitespace.js';
import { withAcronymsSpelledOut } from '../text/acronyms.js';
import { isJsonScalar, JsonNumber, parseJsonSource, stringifyJsonSource } from './json-source.js';
import type { TextUnit } from '../text/segment.js';
import { fillBudget, headAtWordBoundary, refillBudget, tokenBudget, topUpBudget } from './token-budget.js';
import type { FilledBudget } from './token-budget.js';
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
} from './features.js';
import { EXTRACTIVE_PARAMS } from './extractive-params.js';
import { HAND_SET_PARAMS } from './hand-set-params.js';

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
   * How units are scored: `heuristic` (default), the hand-set weights of `hand-set-params.ts`; `learned`, the
   * logistic model over the same unit features (`features.ts`), with the fitted parameters the package ships
   * (`extractive-params.ts`, written by `npm run train:compressor`) or `params`. Both are read by one scoring
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

// At most this many protected kinds count in the `protectedKinds` feature, so a unit full of numbers does
// not outrank relevance.
const MAX_PROTECTED_KINDS = 2;

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

interface Selected {
  text: string;
  outputTokens: number;
  kept: number;
  total: number;
  error?: true;
}

/** A candidate for selection: what it costs, how it ranks, and what must come with it. */
interface Candidate {
  index: number;
  score: number;
  forced: boolean;
  dropped: boolean;
  /** False for units kept only with another (headings, table headers, speaker labels). */
  standalone: boolean;
  cost: number;
  /** Indices that must be kept with it (its headings, outermost first). */
  requires: readonly number[];
  /**
   * A heading offered on its own, as the outline of what was left out: it comes with any kept unit under
   * it anyway, so alone it only fills budget no content unit fits into.
   */
  outline?: boolean;
  /**
   * A field of the whole JSON object (an order's `status`), not of a part of it: among forced units these
   * come first, as they describe all of it and cost one field each, where a part's fields multiply by
   * the number of parts.
   */
  own?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Text

// A page is often compressed again for another query (each question on a report, each step of a run that
// shows the same result): the units of the last few inputs are remembered. Units are immutable.
const recentUnits = new Map<string, readonly TextUnit[]>();
const RECENT_INPUTS = 16;

function unitsOf(input: string, rules: ExtractiveRules): readonly TextUnit[] {
  const key = `${rules.unit}${Number(rules.alwaysKeep.headers)}${input}`;
  let units = recentUnits.get(key);
  if (units === undefined) {
    units = segmentText(input, rules.unit, { headings: rules.alwaysKeep.headers });
    if (recentUnits.size >= RECENT_INPUTS) recentUnits.delete(recentUnits.keys().next().value as string);
    recentUnits.set(key, units);
  }
  return units;
}

function isCuttable(unit: TextUnit | undefined): boolean {
  return unit?.kind === 'sentence' || unit?.kind === 'line';
}

/**
 * The first line of an error result, or undefined: a line starting with `Error` (any case), a `…Error` or
 * `…Exception` class name, `Traceback`, `panic:` or `fatal`, or a non-2xx status (`HTTP/1.1 404 Not
 * Found`, `status: 500`, `503 Service Unavailable`).
 */
export function errorFirstLine(text: string): string | undefined {
  const start = text.length - text.trimStart().length;
  const newline = text.indexOf('\n', start);
  const line = text.slice(start, newline < 0 ? text.length : newline).trimEnd();
  return ERROR_LINE.test(line) || ERROR_CLASS_LINE.test(line) || isErrorStatus(STATUS_LINE.exec(line)?.[1])
    ? line
    : undefined;
}

const ERROR_LINE = /^\W{0,3}(?:error|exception|fatal|traceback|panic)\b/iu;
const ERROR_CLASS_LINE = /^(?:[A-Za-z_$][\w.$]*)?(?:Error|Exception)\b/u;
const STATUS_LINE = /^(?:HTTP\/[\d.]+\s+|status(?:[ _]?code)?\s*[:=]?\s*)?([1-5]\d\d)\b(?![\d.,])/iu;

/** HTTP statuses run from 100 to 599; every class but 2xx (success) reads as an error. */
export const HTTP_STATUSES = { first: 100, last: 599, successClass: 2 } as const;

function isErrorStatus(code: string | number | undefined): boolean {
  const status = Number(code);
  return (
    code !== undefined &&
    Number.isInteger(status) &&
    status >= HTTP_STATUSES.first &&
    status <= HTTP_STATUSES.last &&
    Math.floor(status / 100) !== HTTP_STATUSES.successClass
  );
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

/**
 * Fewest paragraphs for entity links: with two, the paragraph a unit names is the only other one, which its
 * own relevance already ranks.
 */
export const MIN_LINKED_PARAGRAPHS = 3;

/** Shortest heading title that can be linked: shorter ones ("A", "Q3") are found inside unrelated words. */
export const MIN_TITLE_CHARS = 3;

/**
 * The second hop of multi-hop retrieval, by entity linking: a section named by a well-ranked unit of
 * another section is what that unit is about. A question about "Nathaniel Gist's reputed son" matches "He
 * was reputed to be the father of Sequoyah", and the answer is in the paragraph titled "Sequoyah", which
 * shares no word with the question. Per unit, the best first-pass score (as a share of the best overall) of
 * a unit outside its heading's section that mentions the heading's title; a title mentioned in many
 * paragraphs is a common word, not a name, and links nothing.
 */
function titleLinks(units: readonly TextUnit[], blockCount: number, firstPass: readonly number[]): number[] {
  const hop = units.map(() => 0);
  const best = Math.max(0, ...firstPass);
  if (best <= 0 || blockCount < MIN_LINKED_PARAGRAPHS) return hop;
  const chains = units.map((u) => headingChain(units, u));
  const content = units.filter((u) => u.kind !== 'heading' && isContentUnit(u));
  const lowered = content.map((u) => u.text.toLowerCase());
  const links = new Map<number, number>();
  for (const heading of units) {
    if (heading.kind !== 'heading') continue;
    const title = titleOf(heading.text);
    if (title.length < MIN_TITLE_CHARS || piecesWords(title).every(isStopword)) continue;
    let link = 0;
    const linking = new Set<number>();
    content.forEach((u, i) => {
      if (chains[u.index]?.includes(heading.index) || !containsPhrase(lowered[i] ?? '', title)) return;
      linking.add(u.block);
      link = Math.max(link, (firstPass[u.index] ?? 0) / best);
    });
    if (linking.size > 0 && linking.size * 2 <= blockCount) links.set(heading.index, link);
  }
  if (links.size === 0) return hop;
  return units.map((u) => Math.max(0, ...[...(chains[u.index] ?? []), u.index].map((h) => links.get(h) ?? 0)));
}

/** A heading's title, lower-cased: without markdown marks, a trailing colon or a parenthesized qualifier. */
function titleOf(heading: string): string {
  return heading
    .replace(/^\s*#+\s*/u, '')
    .replace(/:\s*$/u, '')
    .replace(/\s*\([^)]*\)\s*$/u, '')
    .trim()
    .toLowerCase();
}

function containsPhrase(text: string, phrase: string): boolean {
  for (let at = text.indexOf(phrase); at >= 0; at = text.indexOf(phrase, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + phrase.length] ?? ' ';
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
  }
  return false;
}

function headingChain(units: readonly TextUnit[], unit: TextUnit): number[] {
  const chain: number[] = [];
  for (let at = unit.heading; at !== undefined; at = units[at]?.heading) chain.unshift(at);
  return chain;
}

/** What a unit needs kept with it, in document order: its headings, then its headers or speaker label. */
function requiredUnits(units: readonly TextUnit[], unit: TextUnit): number[] {
  const all = new Set(headingChain(units, unit));
  for (const r of unit.requires ?? []) {
    const required = units[r];
    if (!required) continue;
    for (const h of headingChain(units, required)) all.add(h);
    all.add(r);
  }
  return [...all].sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------------------------
// Selection

function rank(candidates: readonly Candidate[]): Candidate[] {
  return [...candidates].sort(
    (a, b) =>
      Number(b.forced) - Number(a.forced) ||
      Number(b.forced && b.own === true) - Number(a.forced && a.own === true) ||
      Number(a.outline === true) - Number(b.outline === true) ||
      b.score - a.score ||
      a.index - b.index,
  );
}

/** Ranks the eligible candidates and fills the budget with them, headings brought along. */
function select(
  candidates: readonly Candidate[],
  minScore: number | undefined,
  budget: number,
  render: (kept: readonly number[]) => string,
): FilledBudget {
  const eligible = rank(
    candidates.filter((c) => !c.dropped && c.standalone && (c.forced || minScore === undefined || c.score >= minScore)),
  );
  const usable = (i: number): boolean => candidates[i]?.dropped !== true;
  const items = eligible.map((c) => ({ index: c.index, cost: c.cost, requires: c.requires.filter(usable) }));
  // Estimated costs add up to more than the rendered text (BPE merges across units, shared JSON
  // brackets), so an input whose eligible units all fit, such as one already compressed by the same
  // rules, would lose units to the estimate alone: measure it whole first when that is plausible.
  const all = [...new Set(items.flatMap((item) => [...item.requires, item.index]))];
  const estimate = all.reduce((sum, i) => sum + (candidates[i]?.cost ?? 0), 0);
  if (estimate > budget && estimate <= budget * ALL_FIT_SLACK) {
    const text = render(all);
    const tokens = countTokens(text);
    if (tokens <= budget) return { kept: all, text, tokens };
  }
  const costOf = (i: number): number => candidates[i]?.cost ?? 0;
  const filled = fillBudget(items, budget, render, costOf);
  // The first plan renders short of the budget: plan again for more, then top up with whole units that fit.
  return topUpBudget(refillBudget(filled, items, budget, render, costOf), items, budget, render, costOf);
}

// How far the estimate may exceed the budget for the whole-input measurement to be worth a try.
const ALL_FIT_SLACK = 1.5;

// ---------------------------------------------------------------------------------------------
// Scoring

// Scored texts are joined from pieces (a unit, its headers, its paragraph's units) with this separator,
// so each piece is segmented into words once per call and reused, however many texts it is part of.
const PIECE = '\u0000';
const wordCache = new Map<string, string[]>();
const WORD_CACHE_LIMIT = 20_000;

/**
 * The terms of a piece: text in Japanese, Chinese or Korean as {@link indexTerms} words; other text split at
 * spaces and punctuation, so `order_id` and `#W123` match `order` and `w123` (JSON keys, ids in queries).
 */
function piecesWords(piece: string): string[] {
  let words = wordCache.get(piece);
  if (!words) {
    words = hasCjk(piece) ? indexTerms(piece) : splitWords(piece.toLowerCase());
    if (wordCache.size >= WORD_CACHE_LIMIT) wordCache.clear();
    wordCache.set(piece, words);
  }
  return words;
}

const WORD_BREAKS = /[\n\r\p{Z}\p{P}]+/u;
// The same class within ASCII (space and the ASCII punctuation marks), which V8 matches faster.
const ASCII_WORD_BREAKS = /[\n\r !-#%-*,-/:;?@[-\]_{}]+/;
const NON_ASCII = /[\u0080-\uffff]/;

function splitWords(text: string): string[] {
  const words = text.split(NON_ASCII.test(text) ? WORD_BREAKS : ASCII_WORD_BREAKS);
  const kept: string[] = [];
  for (const word of words) if (word !== '') kept.push(singularOf(word));
  return kept;
}

/**
 * A plural in -ies as its singular ("inventories" → "inventory"), so the two are one term. Prefix matching finds a
 * plural in -s from its singular ("expense" → "expenses"), and fuzzy matching the other way, but neither reaches
 * across "y" → "ies".
 */
function singularOf(word: string): string {
  return word.length > MIN_IES_PLURAL && word.endsWith('ies') ? `${word.slice(0, -3)}y` : word;
}

// Shortest word read as a plural in -ies: "lies" and "ties" stay as they are.
const MIN_IES_PLURAL = 4;

/** A piece's words, how many of them are distinct, and its indexed terms (stopwords left out). */
interface PieceTerms {
  words: readonly string[];
  /** The distinct words, as a set and as a list (walked faster than the set). */
  distinct: ReadonlySet<string>;
  distinctWords: readonly string[];
  terms: readonly string[];
}

const pieceTermCache = new Map<string, PieceTerms>();

function pieceTerms(piece: string): PieceTerms {
  let analyzed = pieceTermCache.get(piece);
  if (!analyzed) {
    const words = piecesWords(piece);
    const terms: string[] = [];
    // The words are lower-cased already (as indexedTerm would make them): only stopwords go.
    for (const word of words) if (!isStopword(word)) terms.push(word);
    const distinct = new Set(words);
    analyzed = { words, distinct, distinctWords: [...distinct], terms };
    if (pieceTermCache.size >= WORD_CACHE_LIMIT) pieceTermCache.clear();
    pieceTermCache.set(piece, analyzed);
  }
  return analyzed;
}

function indexedTerm(word: string): string | null {
  const lower = word.toLowerCase();
  return isStopword(lower) ? null : lower;
}

// Scratch set of `BM25_TERMS.analyze`, emptied after each use.
const otherWords = new Set<string>();

// How units and queries become terms for BM25: words of any language (Japanese and Chinese have no spaces to
// split on), stopwords left out; prefix matching stands in for stemming ("write" finds "writer"), fuzzy
// matching for spelling variants. A text joined from pieces is analyzed piece by piece, each piece once
// per process however many texts it is part of.
/** Query terms this long also match words they begin ("renovat" → "renovation"). */
export const MIN_PREFIX_TERM_CHARS = 4;
/** Query terms this long also match words within {@link FUZZY_DISTANCE} of their length in edits. */
export const MIN_FUZZY_TERM_CHARS = 6;
const FUZZY_DISTANCE = 0.15;

const BM25_TERMS: Bm25Terms = {
  tokenize: (text) => (text.includes(PIECE) ? text.split(PIECE).flatMap(piecesWords) : piecesWords(text)),
  processTerm: indexedTerm,
  analyze: (text) => {
    if (!text.includes(PIECE)) {
      const { distinct, terms } = pieceTerms(text);
      return { length: distinct.size, terms };
    }
    const pieces = text.split(PIECE).map(pieceTerms);
    // The distinct words of all pieces: the largest piece's, plus the others' it lacks.
    let largest = pieces[0] as PieceTerms;
    for (const piece of pieces) if (piece.distinct.size > largest.distinct.size) largest = piece;
    const others = otherWords;
    for (const piece of pieces) {
      if (piece === largest) continue;
      for (const word of piece.distinctWords) if (!largest.distinct.has(word)) others.add(word);
    }
    const length = largest.distinct.size + others.size;
    others.clear();
    return { length, terms: ([] as string[]).concat(...pieces.map((p) => p.terms)) };
  },
  prefix: (term) => term.length >= MIN_PREFIX_TERM_CHARS,
  fuzzy: (term) => (term.length >= MIN_FUZZY_TERM_CHARS ? FUZZY_DISTANCE : false),
};

/**
 * The terms of `query` as the compressor searches them, prepared once for every set of texts a call ranks
 * against it (a long query, the recent steps as context, costs more to analyze than the texts). A query
 * term counts once: a long query repeats its structural words (JSON keys, tool names) so often that they
 * would outweigh the rare terms, such as ids, that actually say which records matter. Each distinct word
 * not a stopword is one query text, in order of first occurrence.
 */
export function searchQuery(query: string): Bm25Query {
  startSearchGeneration();
  // The same query comes again for every observation of a step (each document a task reads): its searches
  // are remembered whole. They are the same whatever the caches held when they were made.
  let prepared = recentQueries.get(query);
  if (prepared === undefined) {
    const lines = query.length < LONG_QUERY_CHARS ? undefined : searchesOfLines(query);
    prepared = { searches: lines ?? searchesOfWords(query) };
    if (recentQueries.size >= RECENT_QUERIES) recentQueries.delete(recentQueries.keys().next().value as string);
    recentQueries.set(query, prepared);
  }
  return prepared;
}

const recentQueries = new Map<string, Bm25Query>();
const RECENT_QUERIES = 16;

function searchesOfWords(query: string): (readonly Bm25Search[])[] {
  const distinct = new Set<string>();
  const searches: (readonly Bm25Search[])[] = [];
  for (const word of piecesWords(query)) {
    if (distinct.has(word)) continue;
    distinct.add(word);
    if (!isStopword(word)) searches.push(searchesOfWord(word));
  }
  return searches;
}

// A query from this many characters is read line by line (see searchesOfLines).
export const LONG_QUERY_CHARS = 1024;

// Per word, its searches; per line of a long query, those of its words that are not stopwords, in order (null:
// a line in a script that is segmented as a whole text). Cleared together, at the start of a call.
const wordSearches = new Map<string, readonly Bm25Search[]>();
const lineSearches = new Map<string, readonly (readonly Bm25Search[])[] | null>();

function searchesOfWord(word: string): readonly Bm25Search[] {
  let searches = wordSearches.get(word);
  if (searches === undefined) {
    searches = searchesOf(word, BM25_TERMS);
    wordSearches.set(word, searches);
  }
  return searches;
}

/**
 * The searches of a long query (the task, then every later step), as {@link searchQuery} makes them from its
 * words, or undefined for a query in Japanese, Chinese or Korean, which is segmented whole. Such a query is
 * mostly lines seen before in other queries: it is split at line breaks, which every word break class holds
 * and lower-casing never looks across, and each line's searches are remembered. A word's searches are one
 * entry per cache generation, so a word met again, on this line or another, is the same entry, found by
 * identity; a line met again adds nothing.
 */
function searchesOfLines(query: string): (readonly Bm25Search[])[] | undefined {
  const seenLines = new Set<string>();
  const taken = new Set<readonly Bm25Search[]>();
  const searches: (readonly Bm25Search[])[] = [];
  for (const line of query.split('\n')) {
    if (seenLines.has(line)) continue;
    seenLines.add(line);
    const known = searchesOfLine(line);
    if (known === null) return undefined;
    for (const entry of known) {
      if (taken.has(entry)) continue;
      taken.add(entry);
      searches.push(entry);
    }
  }
  return searches;
}

/**
 * The searches of one line of a long query, in order, one entry per word that is not a stopword (the same entry
 * for the same word within a cache generation), remembered; null for a line in Japanese, Chinese or Korean, which
 * a query is segmented whole for.
 */
export function searchesOfLine(line: string): readonly (readonly Bm25Search[])[] | null {
  let known = lineSearches.get(line);
  if (known === undefined) {
    known = hasCjk(line)
      ? null
      : splitWords(line.toLowerCase())
          .filter((word) => !isStopword(word))
          .map(searchesOfWord);
    lineSearches.set(line, known);
  }
  return known;
}

/**
 * Starts a new generation of the word and line caches when they are full (together, so that within a call one
 * word always has one entry; see searchesOfLines). Called at the start of a query's preparation.
 */
export function startSearchGeneration(): void {
  if (wordSearches.size >= WORD_CACHE_LIMIT || lineSearches.size >= WORD_CACHE_LIMIT) {
    wordSearches.clear();
    lineSearches.clear();
  }
}

/** The query words as the key match reads them: membership and count. */
export interface WordSet {
  readonly size: number;
  has(word: string): boolean;
}

/**
 * A query prepared once for many calls: its searches, as {@link searchQuery} makes them from its text, and its
 * words, as the key match reads them (made on first use). Built by `suffixQueries`.
 */
export interface PreparedQuery {
  readonly searches: Bm25Query;
  words(): WordSet;
}

function searchesFor(query: string | PreparedQuery): Bm25Query {
  return typeof query === 'string' ? searchQuery(query) : query.searches;
}

function wordsFor(query: string | PreparedQuery): WordSet {
  return typeof query === 'string' ? queryWordsOf(query) : query.words();
}

/** BM25 scores (minisearch's BM25+) of each text against the query; 0 for texts with no query term. */
export function bm25Scores(texts: readonly string[], query: string | Bm25Query): number[] {
  return bm25PlusScores(texts, typeof query === 'string' ? searchQuery(query) : query, BM25_TERMS);
}

/** Values divided by their maximum (all 0 when none is positive). */
export function normalized(values: readonly number[]): number[] {
  const max = Math.max(0, ...values);
  return max > 0 ? values.map((v) => v / max) : values.map(() => 0);
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const PROTECTED: Record<Exclude<keyof AlwaysKeep, 'headers' | 'identifiers'>, RegExp> = {
  numbers: /\d/u,
  dates: new RegExp(
    `\\b\\d{4}-\\d{2}-\\d{2}\\b|\\b\\d{1,2}[/.]\\d{1,2}[/.]\\d{2,4}\\b|\\b${MONTH}\\.?\\s+\\d{1,4}\\b|\\b\\d{1,2}\\s+${MONTH}\\b|\\b\\d{1,2}:\\d{2}\\b`,
    'iu',
  ),
  urls: /\bhttps?:\/\/\S+|\bwww\.\S+/iu,
  errors:
    /\b(?:error|exception|fail(?:ed|ure|s)?|fatal|panic|traceback|denied|refused|invalid|not found|unauthori[sz]ed|forbidden|timed? ?out)\b/iu,
};
const MARKDOWN_HEADER = /^ {0,3}#{1,6}[ \t]+\S/u;

// The case-insensitive kinds, tested fast (see caseInsensitiveTest).
const PROTECTED_TESTS = {
  dates: caseInsensitiveTest(PROTECTED.dates.source),
  urls: caseInsensitiveTest(PROTECTED.urls.source),
  errors: caseInsensitiveTest(PROTECTED.errors.source),
};

/** How many kinds of protected content `text` holds, counted up to {@link MAX_PROTECTED_KINDS}. */
function protectedKindsOfText(text: string, flags: AlwaysKeep, isHeading: boolean): number {
  const digits = PROTECTED.numbers.test(text);
  // Cheapest first; past the cap, more kinds change nothing.
  const tests = [
    () => flags.numbers && digits,
    () => flags.headers && (isHeading || MARKDOWN_HEADER.test(text)),
    // Every date form has a digit.
    () => flags.dates && digits && PROTECTED_TESTS.dates(text),
    () => flags.urls && PROTECTED_TESTS.urls(text),
    () => flags.errors && PROTECTED_TESTS.errors(text),
    () => flags.identifiers && hasIdentifier(text),
  ];
  let kinds = 0;
  for (const test of tests) {
    if (test()) kinds += 1;
    if (kinds >= MAX_PROTECTED_KINDS) break;
  }
  return kinds;
}

// A page is often compressed again for another query (each step of a run, each question on a report): the
// kinds of a unit, found by several regular expressions, are remembered by flags, then by text (the unit's
// own string, not a key joined from it, which would be copied and hashed anew on every call).
const kindsCache = new Map<number, Map<string, number>>();
let kindsCached = 0;

function protectedKinds(unit: TextUnit, flags: AlwaysKeep): number {
  const isHeading = unit.kind === 'heading';
  const bits =
    Number(flags.numbers) |
    (Number(flags.identifiers) << 1) |
    (Number(flags.dates) << 2) |
    (Number(flags.urls) << 3) |
    (Number(flags.errors) << 4) |
    (Number(flags.headers) << 5) |
    (Number(isHeading) << 6);
  let byText = kindsCache.get(bits);
  let kinds = byText?.get(unit.text);
  if (kinds === undefined) {
    kinds = protectedKindsOfText(unit.text, flags, isHeading);
    if (kindsCached >= WORD_CACHE_LIMIT) {
      kindsCache.clear();
      kindsCached = 0;
      byText = undefined;
    }
    if (byText === undefined) kindsCache.set(bits, (byText = new Map()));
    byText.set(unit.text, kinds);
    kindsCached += 1;
  }
  return kinds;
}

// ---------------------------------------------------------------------------------------------
// JSON

type JsonPath = readonly (string | number)[];
type JsonContainer = Record<string, unknown> | unknown[];

interface JsonLeaf {
  path: JsonPath;
  value: unknown;
  /** The nearest object key above the value (for an array item, the array's key). */
  key: string | undefined;
  /** Indices into `path` of the steps that enter a record: array items, and entries of id-keyed maps. */
  records: readonly number[];
  /**
   * A field of an id-keyed map's entry that repeats the entry's key (`"7160999700": {"item_id": "7160999700"}`).
   * The key already shows it: kept alone it renders as the bare key (`"7160999700": {}`), beside other kept
   * fields of its record not at all.
   */
  repeatsKey?: true;
}

/**
 * The input as a JSON object or array, numbers as written ({@link parseJsonSource}), or undefined for
 * anything else (text, a bare scalar).
 */
function parseJsonContainer(input: string): JsonContainer | undefined {
  const trimmed = input.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  // Walked with type checks only, no shape assumed: any well-formed JSON container is valid here.
  const value = parseJsonSource(trimmed);
  return typeof value === 'object' && value !== null && !(value instanceof JsonNumber)
    ? (value as JsonContainer)
    : undefined;
}

// Top-level fields that make a JSON result an error result, kept whole whatever the budget.
const ERROR_KEY = /^(?:errors?|exception|fault|error_?(?:message|code|description)|errorMessage|errorCode)$/iu;
const STATUS_KEY = /^(?:status|status_?code|statusCode|http_?status|code)$/iu;
// What says why, beside a non-2xx status.
const MESSAGE_KEY = /^(?:message|msg|detail|details|reason|description|title)$/iu;

/**
 * The top-level keys of an error result: its `error` fields (when not empty), or a non-2xx status with
 * the message beside it. Empty for anything else.
 */
function errorKeys(root: JsonContainer): Set<string> {
  const keys = new Set<string>();
  if (Array.isArray(root)) return keys;
  const entries = Object.entries(root);
  for (const [key, value] of entries) {
    const empty = value === null || value === false || (Array.isArray(value) && value.length === 0) || value === '';
    if (ERROR_KEY.test(key) && !empty) keys.add(key);
  }
  const status = entries.find(
    ([key, value]) => STATUS_KEY.test(key) && (value instanceof JsonNumber || typeof value === 'string'),
  );
  if (status && isErrorStatus(String(status[1]))) {
    keys.add(status[0]);
    for (const [key] of entries) if (MESSAGE_KEY.test(key)) keys.add(key);
  }
  if (keys.size > 0) for (const [key] of entries) if (ERROR_KEY.test(key)) keys.add(key);
  return keys;
}

const ID_KEY = ID_FIELD;
// Inside records that are ranked against each other, an id's `idInRecord` feature is its record's relevance,
// down to this share: the ids of an irrelevant record (one of 20 catalogue variants) then still outrank that
// record's other fields, but no longer the relevant record's fields.
const MIN_ID_SHARE = 0.25;

/**
 * Weight of relevance to the context against relevance to the query (1): the context's ids still pick the
 * record a step is about, among records the query does not tell apart.
 */
export const CONTEXT_WEIGHT = 0.5;

/** A query and its context, each prepared for search ({@link searchQuery}); no context: undefined. */
interface SearchedQuery {
  query: Bm25Query;
  context: Bm25Query | undefined;
}

/** Relevance to the query, plus {@link CONTEXT_WEIGHT} of relevance to the context, each normalized. */
function weightedRelevance(texts: readonly string[] | Bm25Index, query: SearchedQuery): number[] {
  const index = 'scores' in texts ? texts : bm25Index(texts, BM25_TERMS);
  const main = normalized(index.scores(query.query));
  if (!query.context) return main;
  const side = normalized(index.scores(query.context));
  return main.map((v, i) => v + CONTEXT_WEIGHT * (side[i] ?? 0));
}

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
  const inner = recordRelevance(leaves, leafTexts, recordQuery, (leaf) => leaf.records[leaf.records.length - 1] ?? -1);
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
          leaf.value.every((v) => typeof v === 'string' && isIdentifierToken(v.replace(/^#/u, ''))))),
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
  const repeatsKey = repeatedKeys(leaves);
  const leafKeys = leaves.map((leaf) => pathKey(leaf.path));
  const render = (kept: readonly number[]): string =>
    stringifyJsonSource(
      prune(root, ROOT_KEY, new Set(kept.map((i) => leafKeys[i] ?? ROOT_KEY)), repeatsKey) ?? emptyLike(root),
    );
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

/** Share of the words of a field name that the query uses, memoized per key. */
function keyMatchOf(key: string | undefined, queryWords: WordSet, memo: Map<string, number>): number {
  if (key === undefined || queryWords.size === 0) return 0;
  const known = memo.get(key);
  if (known !== undefined) return known;
  const words = keyWordsOf(key);
  const share = words.length === 0 ? 0 : words.filter((w) => queryWords.has(w)).length / words.length;
  memo.set(key, share);
  return share;
}

// Field names and line labels recur from call to call: their words (stopwords left out) are remembered.
const keyWords = new Map<string, readonly string[]>();

function keyWordsOf(key: string): readonly string[] {
  let words = keyWords.get(key);
  if (words === undefined) {
    words = wordTokens(pathWords([key])).filter((w) => !isStopword(w));
    if (keyWords.size >= WORD_CACHE_LIMIT) keyWords.clear();
    keyWords.set(key, words);
  }
  return words;
}

// The words of the last queries, as the learned scorer's key match reads them (one query serves many calls).
const recentQueryWords = new Map<string, ReadonlySet<string>>();

function queryWordsOf(query: string): ReadonlySet<string> {
  let words = recentQueryWords.get(query);
  if (words === undefined) {
    words = new Set(wordTokens(query));
    if (recentQueryWords.size >= RECENT_QUERIES)
      recentQueryWords.delete(recentQueryWords.keys().next().value as string);
    recentQueryWords.set(query, words);
  }
  return words;
}

// The field that names a record: a kept field of a record comes with it, as a table cell with its row label.
const LABEL_KEY = /^(?:name|title|label)$|(?:_name|Name)$/u;

/**
 * Per leaf, the leaves naming its innermost record, when they are other leaves: the record's own id and
 * its name. A price without the item it is the price of is not evidence, so a kept field of a record
 * (an item of an order, a row of a table) comes with what says which record it belongs to. Only
 * scalar fields directly in the record name it: an id inside a nested part names that part. A field below
 * the top also comes with the whole object's id (`rootId`, -1 for none).
 */
function recordLabels(leaves: readonly JsonLeaf[], rootId: number): number[][] {
  const recordOf = (leaf: JsonLeaf): string | undefined => {
    const at = leaf.records[leaf.records.length - 1];
    return at === undefined ? undefined : JSON.stringify(leaf.path.slice(0, at + 1));
  };
  const ids = new Map<string, number>();
  const names = new Map<string, number>();
  leaves.forEach((leaf, index) => {
    const record = recordOf(leaf);
    const at = leaf.records[leaf.records.length - 1];
    // A direct scalar field of the record: `items[1].name`, not `items[1].options.name`.
    if (record === undefined || at === undefined || leaf.key === undefined || leaf.path.length !== at + 2) return;
    if (ID_KEY.test(leaf.key)) {
      if (!ids.has(record)) ids.set(record, index);
    } else if (LABEL_KEY.test(leaf.key) && !names.has(record)) names.set(record, index);
  });
  // The id of the whole object (`rootId`, an order's `order_id`): a kept item of the order is evidence about
  // that order only if the order is named too.
  return leaves.map((leaf, index) => {
    const record = recordOf(leaf);
    const own = record === undefined ? [] : [ids.get(record), names.get(record)];
    if (rootId >= 0 && leaf.path.length > 1) own.push(rootId);
    return [...new Set(own)].filter((i): i is number => i !== undefined && i !== index);
  });
}

/** Whether a leaf is the id of the whole object: `order_id` at the top of an order. */
function isRootId(leaf: JsonLeaf): boolean {
  return leaf.path.length === 1 && typeof leaf.path[0] === 'string' && ID_KEY.test(leaf.path[0]);
}

/**
 * Per leaf, the normalized BM25 relevance of the record holding it; `cut` gives the index of the
 * record step that ends the record path (-1: no record). Zero when there is only one record.
 */
function recordRelevance(
  leaves: readonly JsonLeaf[],
  leafTexts: readonly string[],
  query: SearchedQuery,
  cut: (leaf: JsonLeaf) => number,
): { scores: number[]; ranked: boolean } {
  // Fields outside any record (a product's own name and id beside its variants) are no record: ranked
  // with the records, they would set the scale and push the relevant record below full relevance.
  const recordOf = leaves.map((leaf) => {
    const at = cut(leaf);
    return at < 0 ? undefined : JSON.stringify(leaf.path.slice(0, at + 1));
  });
  const records = groupBy(
    leaves.map((_, i) => i).filter((i) => recordOf[i] !== undefined),
    (i) => recordOf[i],
  );
  if (records.size < 2) return { scores: leaves.map(() => 0), ranked: false };
  // Scaled back to 0..1: a record's relevance lifts its fields by at most the container weight.
  const scores = normalized(
    weightedRelevance(
      [...records.values()].map((members) => members.map((i) => leafTexts[i]).join(PIECE)),
      query,
    ),
  );
  const byRecord = new Map([...records.keys()].map((record, i) => [record, scores[i] ?? 0]));
  return { scores: recordOf.map((record) => (record === undefined ? 0 : (byRecord.get(record) ?? 0))), ranked: true };
}

function collectLeaves(
  value: unknown,
  path: JsonPath,
  key: string | undefined,
  records: readonly number[],
  into: JsonLeaf[],
): void {
  if (Array.isArray(value) && value.length > 0 && !(path.length > 0 && isScalarList(value))) {
    const inner = [...records, path.length];
    value.forEach((item, i) => collectLeaves(item, [...path, i], key, inner, into));
  } else if (!isJsonScalar(value) && !Array.isArray(value) && Object.keys(value as object).length > 0) {
    const inner = isRecordMap(value as object) ? [...records, path.length] : records;
    for (const [k, child] of Object.entries(value as object)) collectLeaves(child, [...path, k], k, inner, into);
  } else {
    // Scalars, and empty containers: `"errors": []` says something.
    const at = records[records.length - 1];
    const mapKey = at !== undefined && at === path.length - 2 ? path[at] : undefined;
    const repeatsKey =
      typeof mapKey === 'string' &&
      (typeof value === 'string' || value instanceof JsonNumber) &&
      String(value) === mapKey;
    into.push({ path, value, key, records, ...(repeatsKey ? { repeatsKey } : {}) });
  }
}

/** The leaves of `root`, in document order: the units of a JSON input. */
function jsonLeaves(root: JsonContainer): JsonLeaf[] {
  const leaves: JsonLeaf[] = [];
  collectLeaves(root, [], undefined, [], leaves);
  return leaves;
}

/** The path keys of the leaves that repeat their entry's key, which the render shows as the key alone. */
function repeatedKeys(leaves: readonly JsonLeaf[]): Set<string> {
  return new Set(leaves.filter((leaf) => leaf.repeatsKey).map((leaf) => pathKey(leaf.path)));
}

/**
 * `root` with every leaf kept, as the compressor writes a selection: compact, numbers as written, a field
 * that repeats its entry's key shown as the key. Everything the input says, in fewer tokens.
 */
function compactJson(root: JsonContainer): string {
  const leaves = jsonLeaves(root);
  const all = new Set(leaves.map((leaf) => pathKey(leaf.path)));
  return stringifyJsonSource(prune(root, ROOT_KEY, all, repeatedKeys(leaves)) ?? emptyLike(root));
}

/** Longest list of scalars kept or dropped as one field. */
const MAX_ATOMIC_LIST = 32;

/**
 * A short list of scalars (the order ids of a customer, the tags of a record) is one field: cut to some of
 * its items, it would still read as the whole list and say something false (a customer with one order
 * where they have two). Kept whole or left out, it cannot mislead.
 */
function isScalarList(value: readonly unknown[]): boolean {
  return value.length <= MAX_ATOMIC_LIST && value.every(isJsonScalar);
}

/**
 * An object keyed by ids (`{"1008948180": {...}, "1096508426": {...}}`) is a collection of records,
 * like an array: its entries are ranked as records. Keys holding a digit read as ids; field names
 * rarely hold one.
 */
function isRecordMap(value: object): boolean {
  const entries = Object.entries(value);
  return entries.length >= 2 && entries.every(([k, v]) => !isJsonScalar(v) && /\d/u.test(k));
}

/**
 * Matches a leaf's object keys (array indices left out) against field rules: a rule is a key, or keys
 * joined by dots that must follow each other (`items.price`), `*` standing for any one key
 * (`variants.*.options`).
 */
function fieldMatcher(rules: readonly string[]): (keys: readonly string[]) => boolean {
  const specs = rules.map((rule) => rule.split('.'));
  return (keys) =>
    specs.some((spec) => {
      for (let start = 0; start + spec.length <= keys.length; start += 1) {
        if (spec.every((part, j) => part === '*' || part === keys[start + j])) return true;
      }
      return false;
    });
}

function pathWords(path: JsonPath): string {
  return path
    .filter((p): p is string => typeof p === 'string')
    .map(keyText)
    .join(' ');
}

// Field names recur in every record: each one's words are spelled out once.
const keyTexts = new Map<string, string>();

/** A field name as words: `orderId` and `order_id` as `order Id` and `order id`. */
function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = key.replace(/([a-z])([A-Z])/gu, '$1 $2').replace(/[_-]+/gu, ' ');
    if (keyTexts.size >= WORD_CACHE_LIMIT) keyTexts.clear();
    keyTexts.set(key, text);
  }
  return text;
}

function scalarText(value: unknown): string {
  return typeof value === 'string' ? value : stringifyJsonSource(value);
}

function pathKey(path: JsonPath): string {
  return JSON.stringify(path);
}

const ROOT_KEY = pathKey([]);

/** The {@link pathKey} of a path one step below the path whose key is `parent`. */
function childKey(parent: string, step: string | number): string {
  return parent === ROOT_KEY ? `[${JSON.stringify(step)}]` : `${parent.slice(0, -1)},${JSON.stringify(step)}]`;
}

/**
 * Estimated tokens a leaf adds: `"key":value,`, plus the brackets of containers it opens first, and for a
 * list it opens the cut-list marker, which the list shows unless every item is kept.
 */
function leafCost(leaf: JsonLeaf, opened: Set<string>): number {
  const last = leaf.path[leaf.path.length - 1];
  // A field repeating its entry's key renders as nothing beyond the entry's key and braces (counted below).
  let cost = leaf.repeatsKey
    ? 0
    : countTokens(`${typeof last === 'string' ? `${JSON.stringify(last)}:` : ''}${stringifyJsonSource(leaf.value)},`);
  // pathKey of each prefix, built as it grows: `[` and `]` around the steps' JSON joined by commas.
  let steps = '';
  for (let depth = 0; depth < leaf.path.length; depth += 1) {
    if (depth > 0) steps += `${depth > 1 ? ',' : ''}${JSON.stringify(leaf.path[depth - 1])}`;
    const prefix = `[${steps}]`;
    if (opened.has(prefix)) continue;
    opened.add(prefix);
    const step = leaf.path[depth - 1];
    if (depth > 0) cost += typeof step === 'string' ? countTokens(`${JSON.stringify(step)}:{},`) : 2;
    if (typeof leaf.path[depth] === 'number') cost += markerTokens();
  }
  return cost;
}

let markerTokenCount: number | undefined;

/**
 * The tokens of a cut-list marker and its comma. Counted on first use, not when the module loads: counting
 * loads the tokenizer's tables, and importing pagewise must not (test/packaging/lean-import.test.ts).
 */
function markerTokens(): number {
  markerTokenCount ??= countTokens(`,${JSON.stringify(omittedMarker(99))}`);
  return markerTokenCount;
}

/**
 * The parts of `value` on a kept path, arrays compacted; undefined when nothing under it is kept. A kept
 * field that repeats its entry's key (`repeatsKey`) shows only as that key. `key` is the {@link pathKey} of
 * `value`'s path, each child's built from its parent's.
 */
function prune(value: unknown, key: string, kept: ReadonlySet<string>, repeatsKey: ReadonlySet<string>): unknown {
  if (kept.has(key)) return value;
  if (Array.isArray(value)) {
    const items = value
      .map((item, i) => prune(item, childKey(key, i), kept, repeatsKey))
      .filter((item) => item !== undefined);
    if (items.length === 0) return key === ROOT_KEY ? [omittedMarker(value.length)] : undefined;
    // A cut list says so: read as complete, it would say something false (one order where there are two).
    return items.length < value.length ? [...items, omittedMarker(value.length - items.length)] : items;
  }
  if (!isJsonScalar(value)) {
    const entries = Object.entries(value as object)
      .map(([k, child]) => [k, prune(child, childKey(key, k), kept, repeatsKey)] as const)
      .filter(([, child]) => child !== undefined);
    const own = repeatsKey.size === 0 ? entries : entries.filter(([k]) => !repeatsKey.has(childKey(key, k)));
    if (own.length < entries.length) return Object.fromEntries(own);
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  return undefined;
}

/**
 * The last item of a JSON list the compressor cut: `"[… 3 more items]"`, the number of items left out.
 * The kept items come before it in their original order; {@link OMITTED_ITEMS} matches it.
 */
export function omittedMarker(omitted: number): string {
  return `[… ${omitted} more item${omitted === 1 ? '' : 's'}]`;
}

/** Matches the marker of {@link omittedMarker}; group 1 is the number of items left out. */
export const OMITTED_ITEMS = /^\[… (\d+) more items?\]$/u;

function emptyLike(root: JsonContainer): JsonContainer {
  return Array.isArray(root) ? [] : {};
}

export { isIdentifierToken };
