/**
 * The extractive backend of C_obs and C_hist: no model, only the guideline's rules. An observation is
 * compressed by {@link compressExtractive} against the task and the recent steps. History becomes a
 * list of steps, one entry per tool call with the parts of its result the rules keep, quoted verbatim
 * (JSON stays valid JSON, so a reader of records still finds them), within the summary budget.
 *
 * Summary format (what `accumulate` reads back as the previous summary): one entry a line,
 *
 * ```text
 * - get_order_details {"order_id":"#W1"} → {"order_id":"#W1","status":"pending"}
 * - [user] Also check the refund.
 * ```
 *
 * a multi-line payload continuing on lines indented by two spaces.
 */
import type { ContextItem } from '../context/request.js';
import { countTokens } from '../tokens/tokenizer.js';
import type { CompressionInput, CompressorBackend } from './backend.js';
import { hasDigit } from '../text/characters.js';
import { wordTokens } from '../text/words.js';
import { sentenceSpans } from '../text/sentences.js';
import { compressExtractive, zeroBudgetResult } from './extractive.js';
import { bm25Scores, normalized, type PreparedQuery } from './extractive/search.js';
import { suffixQueries, type SuffixQuery } from './suffix-queries.js';
import { joiningIds } from '../text/identifiers.js';
import type { ExtractiveRules } from './rules.js';
import { skipJsonWhitespace } from './json-source.js';
import { headAtWordBoundary, planBudget } from './token-budget.js';
import { ConfigurationError } from '../errors.js';
import { argumentText, compressedObservationBody, handleOf } from './transcript.js';
import { HISTORY_TURN_WEIGHTS } from './history-params.js';
import {
  checkTurnWeights,
  isQuestionOnly,
  novelShare,
  rankKey,
  rareWordScore,
  turnScore,
  type TurnFeatureName,
  type TurnWeights,
} from './turn-features.js';

/** One step of an extractive summary: what was done (`label`) and what came back (`payload`). */
export interface SummaryEntry {
  label: string;
  payload: string;
  /** The payload is an observation the observation compressor already compressed. */
  compressed?: boolean;
  /**
   * For a tool call: the label without the arguments, and the argument values. When the kept payload
   * shows every value (a record names its own id), the arguments say nothing more and are left out.
   */
  short?: { label: string; values: string[] };
  /**
   * The agent asked for this result again after an earlier copy was summarized: what it holds is needed,
   * so a squeeze leaves it whole while other entries can give. Written as {@link ASKED_AGAIN} after the label.
   */
  pinned?: boolean;
}

/** What marks a pinned entry in the summary text, after its label. */
export const ASKED_AGAIN = ' (asked again)';

/** Options of {@link extractiveBackend}. */
export interface ExtractiveBackendOptions {
  /**
   * Keep the page handle of a compressed observation in its summary entry, so the agent can still
   * page the raw result in after the step is summarized. Default true; about 14 tokens an entry.
   */
  keepHandles?: boolean;
  /**
   * How units are scored (see `ExtractiveOptions.scoring`): `heuristic`, the hand-set weights (default), or
   * `learned`, the fitted model the package ships. Applies to observations and history payloads alike.
   */
  scoring?: 'heuristic' | 'learned';
}

/** How units are scored. */
type Scoring = 'heuristic' | 'learned';

const ARROW = ' → ';

/**
 * Creates the extractive backend.
 *
 * @example
 * const processor = historyCompressor({ compressor: extractiveBackend() });
 */
export function extractiveBackend(options: ExtractiveBackendOptions = {}): CompressorBackend {
  const keepHandles = options.keepHandles ?? true;
  const scoring = options.scoring ?? 'heuristic';
  if (scoring !== 'heuristic' && scoring !== 'learned') {
    throw new ConfigurationError(
      'invalid-scoring',
      `extractiveBackend: scoring must be 'heuristic' or 'learned', got ${String(scoring)}`,
    );
  }
  return {
    name: 'extractive',
    compress: async (input) =>
      input.target === 'observation'
        ? compressObservation(input, scoring)
        : compressHistory(input, keepHandles, scoring, { weights: HISTORY_TURN_WEIGHTS }),
  };
}

/**
 * The extractive backend, under the name it had before: a backend, not a processor like `historyCompressor`.
 *
 * @deprecated Use {@link extractiveBackend}.
 */
export const extractiveCompressor = extractiveBackend;

/**
 * Options of the extractive backend, under the name they had before.
 *
 * @deprecated Use {@link ExtractiveBackendOptions}.
 */
export type ExtractiveCompressorOptions = ExtractiveBackendOptions;

/** A unit of a conversation as the turn ranking saw it, for a {@link TurnRanking} probe. */
export interface TurnProbeUnit {
  text: string;
  /** Index of its message among the ranked messages. */
  message: number;
  /** Its features, in `TURN_FEATURE_NAMES` order. */
  vector: number[];
  /** Its estimated cost in tokens. */
  cost: number;
}

/** How the turns of a plain conversation are ranked: the weights, and a probe handed each ranking. */
export interface TurnRanking {
  weights: TurnWeights;
  /**
   * Called once per ranking with its units, the cost of each message's label (paid once per kept message)
   * and the budget the units are chosen within.
   */
  probe?: (units: readonly TurnProbeUnit[], labelCosts: readonly number[], budget: number) => void;
}

/**
 * The extractive backend (heuristic scoring, handles kept) with the turn ranking of plain conversations
 * replaced: other weights, a probe. What `bench/fit-history-weights.ts` fits and measures the weights with;
 * no entry exports it.
 *
 * @throws Error when the weights do not fit this feature set.
 */
export function extractiveBackendWithTurns(turns: TurnRanking): CompressorBackend {
  checkTurnWeights(turns.weights);
  return {
    name: 'extractive',
    compress: async (input) =>
      input.target === 'observation'
        ? compressObservation(input, 'heuristic')
        : compressHistory(input, true, 'heuristic', turns),
  };
}

function compressObservation(input: CompressionInput, scoring: Scoring): string {
  // The task, and what the agent asked this result for: the call's arguments (a search query, an id).
  return compressExtractive(input.observation, {
    query: [input.task, input.call].filter(Boolean).join('\n'),
    ...(input.history ? { context: input.history } : {}),
    rules: input.guideline.rules,
    maxTokens: input.maxTokens,
    scoring,
  }).text;
}

/** The entries of the steps in `turns`, payloads uncompressed. */
export function entriesOfTurns(turns: readonly (readonly ContextItem[])[], keepHandles = true): SummaryEntry[] {
  const entries: SummaryEntry[] = [];
  for (const turn of turns) {
    for (const item of turn) {
      switch (item.type) {
        case 'user':
          entries.push({ label: '[user]', payload: item.text });
          break;
        case 'summary':
          entries.push({ label: '[summary]', payload: item.text });
          break;
        case 'assistant':
          if (item.text.trim()) entries.push({ label: '[assistant]', payload: item.text });
          break;
        case 'tool-result': {
          const call = turn
            .find((x): x is Extract<ContextItem, { type: 'assistant' }> => x.type === 'assistant')
            ?.toolCalls.find((c) => c.toolCallId === item.toolCallId);
          // A compressed observation is quoted in a fence: its body is the payload, its handle goes in the label.
          // Only one with the compressor's whole shape and this call's handle counts: fence lines a document
          // wrote itself do not exempt it from compression.
          const body = compressedObservationBody(item.output, item);
          const handle = body === undefined ? undefined : handleOf(item.output);
          const parts = (args: string): string =>
            [
              item.isError ? '[error]' : '',
              item.toolName,
              args,
              keepHandles && handle ? `(full result: ${handle})` : '',
            ]
              .filter(Boolean)
              .join(' ');
          const label = parts(call ? argumentText(call.input) : '');
          const short = { label: parts(''), values: call ? scalarValues(call.input) : [] };
          entries.push(
            body === undefined
              ? { label, payload: item.output, short }
              : { label, payload: body, compressed: true, short },
          );
          break;
        }
      }
    }
  }
  return entries;
}

/** Writes entries in the summary format; a call's arguments are left out when its payload shows them all. */
export function formatSummaryEntries(entries: readonly SummaryEntry[]): string {
  const lines: string[] = [];
  for (const entry of entries) {
    const [first = '', ...rest] = entry.payload.split('\n');
    const label =
      entry.short && entry.short.values.every((v) => entry.payload.includes(v)) ? entry.short.label : entry.label;
    lines.push(`- ${label}${entry.pinned ? ASKED_AGAIN : ''}${ARROW}${first}`, ...rest.map((line) => `  ${line}`));
  }
  return lines.join('\n');
}

/**
 * Reads entries back from a summary in the format of {@link formatSummaryEntries}. Text in another
 * form (a summary written by a model) becomes one entry, so it is carried along, not lost.
 */
export function parseSummaryEntries(summary: string): SummaryEntry[] {
  if (summary.trim() === '') return [];
  const entries: SummaryEntry[] = [];
  for (const line of summary.split('\n')) {
    const last = entries[entries.length - 1];
    if (line.startsWith('- ') && line.includes(ARROW)) {
      const at = line.indexOf(ARROW);
      const label = line.slice(2, at);
      const pinned = label.endsWith(ASKED_AGAIN);
      entries.push({
        label: pinned ? label.slice(0, -ASKED_AGAIN.length) : label,
        payload: line.slice(at + ARROW.length),
        ...(pinned ? { pinned } : {}),
      });
    } else if (last && line.startsWith('  ')) {
      last.payload += `\n${line.slice(2)}`;
    } else if (last && last.label === '[earlier summary]') {
      last.payload += `\n${line}`;
    } else {
      entries.push({ label: '[earlier summary]', payload: line });
    }
  }
  return entries;
}

/**
 * Folds the fresh steps into the summary. Relevance is ranked against the task and the current objective
 * (ranking each step against all the others gives every step the same signal), together with recency and
 * with being referenced later: a value of a step that a later call or message uses marks what to keep.
 * Records are also ranked by the ids their step shares with a step of another kind (see `sharedKeys`).
 * Tool results and the messages between them are compressed one by one (JSON stays JSON); a conversation
 * without tool calls is chosen sentence by sentence across all its messages within the budget, each kept
 * sentence with its speaker.
 */
function compressHistory(input: CompressionInput, keepHandles: boolean, scoring: Scoring, turns: TurnRanking): string {
  const previous = parseSummaryEntries(input.previousSummary);
  const fresh = entriesOfTurns(input.turns, keepHandles);
  const objective = input.objective ?? '';
  const goal = [input.task, objective].filter(Boolean).join('\n');
  // What later steps say and do: a later call's arguments, a later message, the objective.
  // A conversation (no tool results) is chosen sentence by sentence across all its messages; in an agent's
  // history the messages are instructions between tool calls, each compressed on its own like a result.
  const chat = fresh.every((e) => isMessage(e));
  // Compressed once already, by the observation guideline with the context of its time: relevance
  // is relative to the rest of a document, so compressing the survivors again would only lose more.
  const compressible = (entry: SummaryEntry): boolean => !entry.compressed && !(chat && isMessage(entry));
  const rules = roomyRules(input.guideline.rules, previous, fresh, compressible, input.maxTokens);
  // The ids of each entry's text, found once: the budget's cut below reads them again for the entries it keeps.
  const idsOf = textMemo(joiningIds);
  const shared = sharedKeys([...previous, ...fresh], idsOf).slice(previous.length);
  // The task and the current objective, and what later steps use of each one; never all other steps,
  // whose words would give every part of the result the same relevance.
  const queries = laterStepQueries(goal, fresh);
  const compressed = fresh.map((entry, index) => {
    if (!compressible(entry)) return entry;
    return {
      ...entry,
      payload: compressPayload(entry.payload, queries(index), rules, scoring, undefined, shared[index]),
    };
  });
  const messages = chat ? compressed.flatMap((e, i) => (isMessage(e) ? [i] : [])) : [];
  if (messages.length > 0) {
    const others = compressed.filter((e) => !isMessage(e));
    const fixed = countTokens(formatSummaryEntries([...previous, ...others]));
    // The summary budget is the constraint here, not the ratio: a message kept is kept whole or by
    // sentences, and the budget says how many fit.
    const budget = input.maxTokens - fixed;
    const messageOf = new Map(messages.map((at, j) => [at, j]));
    const withKept = (kept: readonly string[]): SummaryEntry[] =>
      compressed.map((entry, at) => {
        const messageIndex = messageOf.get(at);
        return messageIndex === undefined ? entry : { ...entry, payload: kept[messageIndex] ?? '' };
      });
    // Ranked once; only the budget changes between attempts.
    const ranking = rankSentences(compressed, messages, goal, objective, budget, turns);
    // Estimated costs miss BPE merges (either way): measure, and choose again with the target moved by
    // the difference; the best result within the budget wins.
    let target = budget;
    let best: { text: string; tokens: number } | undefined;
    for (let attempt = 0; attempt < MEASURE_ROUNDS; attempt += 1) {
      const entries = [...previous, ...withKept(pickSentences(ranking, target))];
      const text = formatSummaryEntries(entries.filter((e) => !isMessage(e) || e.payload !== ''));
      const tokens = countTokens(text);
      if (tokens <= input.maxTokens && tokens > (best?.tokens ?? -1)) best = { text, tokens };
      const slack = input.maxTokens - tokens;
      if (slack >= 0 && slack <= input.maxTokens * 0.02) break;
      target += slack - (slack < 0 ? attempt * 8 : 0);
    }
    if (best) return best.text;
    compressed.splice(0, compressed.length, ...withKept(pickSentences(ranking, target)));
  }
  const entries = withoutRepeats([...previous, ...compressed.filter((e) => !isMessage(e) || e.payload !== '')]);
  return fitBudget(entries, goal, input.guideline.rules, input.maxTokens, scoring, idsOf);
}

/**
 * The rules fresh steps are compressed by: the guideline's ratio is what each step keeps at least; when the
 * summary has room for more, each keeps the share of its tokens that the room allows (all of it when
 * everything fits), so a step the task still needs is not cut while the summary is far below its budget.
 */
function roomyRules(
  rules: ExtractiveRules,
  previous: readonly SummaryEntry[],
  fresh: readonly SummaryEntry[],
  compressible: (entry: SummaryEntry) => boolean,
  maxTokens: number,
): ExtractiveRules {
  const squeezable = fresh.filter(compressible);
  if (squeezable.length === 0) return rules;
  const whole = countTokens(formatSummaryEntries([...previous, ...fresh]));
  if (whole <= maxTokens) return { ...rules, ratio: 1 };
  const payloads = squeezable.reduce((sum, e) => sum + countTokens(e.payload), 0);
  const share = (maxTokens - (whole - payloads)) / Math.max(1, payloads);
  return share > rules.ratio ? { ...rules, ratio: Math.min(1, share) } : rules;
}

/**
 * Per entry, its query: the goal, then what the steps after it go on to do ("referenced later"): the later calls
 * with their arguments and the later messages, so the record of an order result whose product a later call looks
 * up is kept. Values an entry merely shares with other steps are not added: on the retail tasks that pulled in
 * other records' fields and solved fewer tasks (decision 3 has the comparison). Prepared once for the pass
 * ({@link suffixQueries}): as strings, the queries of a pass grow with the square of its steps.
 */
function laterStepQueries(goal: string, entries: readonly SummaryEntry[]): SuffixQuery {
  return suffixQueries(
    goal,
    entries.map((e) => (isMessage(e) ? e.payload : e.label)),
  );
}

function isMessage(entry: SummaryEntry): boolean {
  return entry.label === '[user]' || entry.label === '[assistant]';
}

/** The sentences of a conversation's messages, ranked, with what each costs. */
interface SentenceRanking {
  units: { message: number; text: string }[];
  /** Indices into `units`, best first, with their estimated cost in tokens. */
  ranked: { i: number; cost: number }[];
  /** Tokens of each message's entry line without its payload. */
  labelCosts: number[];
}

/**
 * A message longer than this share of the summary budget is offered sentence by sentence; shorter ones are
 * kept or dropped whole, since a turn cut to some of its sentences loses what it said in passing.
 */
const LONG_TURN_SHARE = 0.25;

/**
 * Rounds of choosing and measuring a summary: estimated costs miss BPE merges, so each round moves the target
 * by what the last one missed by.
 */
const MEASURE_ROUNDS = 3;

/** A capitalized word inside a sentence this long reads as a name ("Ada"); shorter ones ("Mr", "OK") do not. */
const MIN_NAME_CHARS = 3;

/**
 * Ranks the turns of the messages (`entries[at]` for `at` of `messages`), a turn too long for its share of
 * the budget as its sentences, by the features of `turn-features.ts` weighted as `turns` says: relevance to the
 * goal, recency, being referenced by a later step or the objective (a distinctive word of the unit, a name, a
 * number, an id, comes up again), holding a number, holding words few other messages hold, holding words no
 * other message uses, being said by the user, and only asking; best first by score per token^costExponent.
 */
function rankSentences(
  entries: readonly SummaryEntry[],
  messages: readonly number[],
  goal: string,
  objective: string,
  budget: number,
  turns: TurnRanking,
): SentenceRanking {
  const units = messages.flatMap((at, message) => {
    const payload = entries[at]?.payload ?? '';
    if (countTokens(payload) <= budget * LONG_TURN_SHARE) return [{ message, at, text: payload }];
    return sentenceSpans(payload).map((span) => ({ message, at, text: payload.slice(span.start, span.end) }));
  });
  const labelCosts = messages.map((at) => countTokens(`- ${entries[at]?.label ?? ''}${ARROW}`) + 1);
  if (units.length === 0) return { units, ranked: [], labelCosts };
  // The last step each word appears in (the objective counts as after every step), and how many messages hold it.
  const lastSeen = new Map<string, number>();
  const holding = new Map<string, number>();
  entries.forEach((entry, at) => {
    const words = wordTokens(isMessage(entry) ? entry.payload : entry.label);
    for (const word of words) lastSeen.set(word, at);
    if (isMessage(entry)) for (const word of new Set(words)) holding.set(word, (holding.get(word) ?? 0) + 1);
  });
  for (const word of wordTokens(objective)) lastSeen.set(word, entries.length);
  const relevance = normalized(
    bm25Scores(
      units.map((u) => u.text),
      goal,
    ),
  );
  const steps = entries.length;
  const scored = units.map((unit, index) => {
    const distinctive = distinctiveWords(unit.text);
    const features: Record<TurnFeatureName, number> = {
      relevance: relevance[index] ?? 0,
      recency: steps > 1 ? unit.at / (steps - 1) : 1,
      referenced: distinctive.some((w) => (lastSeen.get(w) ?? -1) > unit.at) ? 1 : 0,
      numeric: hasDigit(unit.text) ? 1 : 0,
      rare: rareWordScore(distinctive, (word) => holding.get(word) ?? 1),
      novel: novelShare(wordTokens(unit.text), (word) => holding.get(word) ?? 1),
      speaker: entries[unit.at]?.label === '[user]' ? 1 : 0,
      question: isQuestionOnly(unit.text) ? 1 : 0,
    };
    const vector = turns.weights.features.map((name) => features[name as TurnFeatureName] ?? 0);
    // Sentences of a message are joined by a space, which BPE mostly folds into the next word.
    const cost = countTokens(unit.text);
    return { i: index, vector, cost, key: rankKey(turns.weights, turnScore(turns.weights, vector), cost) };
  });
  turns.probe?.(
    scored.map((unit) => ({
      text: units[unit.i]?.text ?? '',
      message: units[unit.i]?.message ?? 0,
      vector: unit.vector,
      cost: unit.cost,
    })),
    labelCosts,
    budget,
  );
  scored.sort((a, b) => b.key - a.key || a.i - b.i);
  return { units, ranked: scored.map(({ i, cost }) => ({ i, cost })), labelCosts };
}

/**
 * Takes ranked sentences while they fit `budget` tokens, a kept message's label counted once (the label is a
 * unit the sentence requires, as a heading is in the budget plan). Returns each message's kept sentences
 * joined, '' for a message with none.
 */
function pickSentences(ranking: SentenceRanking, budget: number): string[] {
  const { units, ranked, labelCosts } = ranking;
  // A message's label is unit `units.length + message`.
  const labelAt = units.length;
  const plan = planBudget(
    (budget > 0 ? ranked : []).map((unit) => ({
      index: unit.i,
      cost: unit.cost,
      requires: [labelAt + (units[unit.i]?.message ?? 0)],
    })),
    budget,
    (index) => labelCosts[index - labelAt] ?? 0,
  );
  const kept = new Set(plan.map((step) => step.index));
  const out = labelCosts.map(() => [] as string[]);
  units.forEach((unit, index) => {
    if (kept.has(index)) out[unit.message]?.push(unit.text);
  });
  return out.map((sentences) => sentences.join(' '));
}

/** Words that single a fact out: numbers, ids, and capitalized words that do not open the sentence. */
function distinctiveWords(sentence: string): string[] {
  const out: string[] = [];
  const words = sentence.match(/[\p{L}\p{N}][\p{L}\p{N}#._-]*/gu) ?? [];
  words.forEach((word, position) => {
    if (hasDigit(word) || (position > 0 && /^\p{Lu}/u.test(word) && word.length >= MIN_NAME_CHARS)) {
      out.push(...wordTokens(word));
    }
  });
  return out;
}

/** The scalar values in tool-call arguments, as text (`{"id":"#W1","n":2}` → `#W1`, `2`). */
function scalarValues(input: unknown): string[] {
  if (typeof input === 'string') {
    // Most strings (names, ids) cannot start a JSON text: no parse attempt, and no exception, for them.
    if (!mayBeJson(input)) return [input];
    try {
      return scalarValues(JSON.parse(input));
    } catch {
      return [input];
    }
  }
  if (Array.isArray(input)) return input.flatMap(scalarValues);
  if (typeof input === 'object' && input !== null) return Object.values(input).flatMap(scalarValues);
  return input === null || input === undefined ? [] : [String(input)];
}

// What a JSON text can start with, after JSON's whitespace: anything else does not parse.
const JSON_FIRST_CHARS = '[{"-0123456789tfn';

function mayBeJson(text: string): boolean {
  const first = text[skipJsonWhitespace(text, 0)];
  return first !== undefined && JSON_FIRST_CHARS.includes(first);
}

function compressPayload(
  payload: string,
  query: string | PreparedQuery,
  rules: ExtractiveRules,
  scoring: Scoring,
  maxTokens?: number,
  keys = '',
): string {
  if (maxTokens !== undefined && maxTokens <= 0) {
    const known = zeroBudgetResult(payload);
    if (known !== undefined) return known;
  }
  return compressExtractive(payload, {
    query,
    rules,
    scoring,
    ...(keys ? { keys } : {}),
    ...(maxTokens === undefined ? {} : { maxTokens }),
  }).text;
}

/**
 * Per entry, the ids it shares with an entry of another kind (another tool), for ranking its records when
 * the summary is squeezed: the variant of a catalogue product whose id an earlier order holds is the one
 * the task is about, among twenty the task's words do not tell apart. Only ids join, and only across
 * kinds: shared words, or a product two orders both bought, would make every record equally relevant.
 */
function sharedKeys(
  entries: readonly SummaryEntry[],
  idsOf: (text: string) => ReadonlySet<string> = joiningIds,
): string[] {
  const keys = entries.map((e) => idsOf(`${e.label} ${e.payload}`));
  const kindsOf = new Map<string, Set<string>>();
  keys.forEach((set, index) => {
    for (const key of set) kindsOf.set(key, (kindsOf.get(key) ?? new Set()).add(kindOf(entries[index]!)));
  });
  // Each key's kinds include the entry's own: a second one is another kind.
  return keys.map((set) => [...set].filter((k) => (kindsOf.get(k)?.size ?? 0) > 1).join(' '));
}

/** `of`, computed once per distinct text (for one pass over a history: the map lives as long as the pass). */
function textMemo<T>(of: (text: string) => T): (text: string) => T {
  const memo = new Map<string, T>();
  return (text) => {
    let value = memo.get(text);
    if (value === undefined) {
      value = of(text);
      memo.set(text, value);
    }
    return value;
  };
}

/** The kind of a summary entry: its tool, `[user]`, `[assistant]` or `[earlier summary]`. */
function kindOf(entry: SummaryEntry): string {
  const words = entry.label.split(' ');
  return words[0] === '[error]' ? (words[1] ?? '') : (words[0] ?? '');
}

/**
 * The entries without steps a later step repeats: the same call whose kept result shows everything the
 * earlier one showed (a record fetched again). The later one stays, as the newer and fuller copy.
 */
function withoutRepeats(entries: readonly SummaryEntry[]): SummaryEntry[] {
  const values = entries.map((e) => (isMessage(e) ? undefined : payloadValues(e.payload)));
  // By kind, not label: an entry read back from a summary has lost its arguments, a fresh one has them.
  // Entries are compared only within their kind and first value, in order.
  const groups = new Map<string, number[]>();
  values.forEach((mine, index) => {
    if (mine === undefined || mine.length === 0) return;
    const key = `${kindOf(entries[index]!)}\0${mine[0]}`;
    const group = groups.get(key);
    if (group) group.push(index);
    else groups.set(key, [index]);
  });
  const dropped = new Set<number>();
  const pinned = new Set<number>();
  for (const group of groups.values()) {
    group.forEach((earlier, at) => {
      for (const later of group.slice(at + 1)) {
        if (holdsAll(values[later]!, values[earlier]!)) {
          dropped.add(earlier);
          pinned.add(later);
          return;
        }
      }
    });
  }
  return entries.flatMap((e, i) => (dropped.has(i) ? [] : pinned.has(i) && !e.pinned ? [{ ...e, pinned: true }] : [e]));
}

/** Whether `values` holds every value of `wanted`, each as often as `wanted` does. */
function holdsAll(values: readonly string[], wanted: readonly string[]): boolean {
  const left = new Map<string, number>();
  for (const value of values) left.set(value, (left.get(value) ?? 0) + 1);
  for (const value of wanted) {
    const count = left.get(value) ?? 0;
    if (count === 0) return false;
    left.set(value, count - 1);
  }
  return true;
}

/** The scalar values of a JSON payload in document order, or the whole text when it is not JSON. */
function payloadValues(payload: string): string[] {
  const trimmed = payload.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return [trimmed];
  return scalarValues(trimmed);
}

/**
 * Formats the entries within `maxTokens`. While over, payloads are cut to a common cap, the largest first
 * (each recompressed by the rules, without the ratio, so no entry is cut twice by it, against the goal and
 * what later steps use of it, as fresh steps are, its records also by the ids it shares with other kinds of
 * step): entries under the cap stay whole. A proportional cut would shrink every entry on every fold, so a
 * small one (the id a lookup returned) wore away to nothing over a long task while large ones kept their
 * least relevant fields. Entries the agent asked for again (`pinned`) stay whole while the others can hold
 * the cut: the cut copy was not enough. If that is not enough, the oldest entries are dropped.
 */
function fitBudget(
  entries: SummaryEntry[],
  goal: string,
  rules: ExtractiveRules,
  maxTokens: number,
  scoring: Scoring,
  idsOf?: (text: string) => ReadonlySet<string>,
): string {
  let text = formatSummaryEntries(entries);
  let total = countTokens(text);
  if (total <= maxTokens) return text;
  const capOnly: ExtractiveRules = { ...rules, ratio: 1 };
  const sizes = entries.map((e) => countTokens(e.payload));
  const fixed = total - sizes.reduce((sum, n) => sum + n, 0);
  const shared = sharedKeys(entries, idsOf);
  const queries = laterStepQueries(goal, entries);
  const memo = new Map<string, string>();
  const last = entries.length - 1;
  const squeezedAt = (index: number, cap: number, keepPinned: boolean): SummaryEntry => {
    const entry = entries[index]!;
    if ((sizes[index] ?? 0) <= cap || (keepPinned && entry.pinned)) return entry;
    const key = `${index}:${cap}`;
    let payload = memo.get(key);
    if (payload === undefined) {
      payload = compressPayload(entry.payload, queries(index), capOnly, scoring, cap, shared[index]);
      memo.set(key, payload);
    }
    return { ...entry, payload };
  };
  // Each entry starts a line the tokenizer never joins across (see `countTokens`), so a text's tokens are the
  // sum of its entries' lines: the lines of the newest entries alone can show that the text is over.
  const lineTokens = (entry: SummaryEntry, index: number): number =>
    countTokens(formatSummaryEntries([entry]) + (index < last ? '\n' : ''));
  /**
   * The entries cut to `cap`, made from the newest back until their lines are over `maxTokens`: `over` is the
   * entry whose line made them so (−1 when all fit, and all are made), `lines` their tokens up to it. Which of
   * the oldest go is decided by the newest, so entries older than `over` are made only when asked for.
   */
  const squeezeFromNewest = (cap: number, keepPinned: boolean) => {
    const made: SummaryEntry[] = new Array<SummaryEntry>(entries.length);
    let lines = 0;
    for (let index = last; index >= 0; index -= 1) {
      const entry = squeezedAt(index, cap, keepPinned);
      made[index] = entry;
      lines += lineTokens(entry, index);
      if (lines > maxTokens) return { made, over: index, lines };
    }
    return { made, over: -1, lines };
  };
  const complete = (made: SummaryEntry[], cap: number, keepPinned: boolean): SummaryEntry[] =>
    Array.from(made, (entry, index) => entry ?? squeezedAt(index, cap, keepPinned));
  // Estimated costs miss what the format and BPE merges add: measure, and lower the cap by the overshoot.
  let target = Math.max(0, maxTokens - fixed);
  let squeezed = entries;
  /** Set when the newest entries' lines alone show the last cut over: how many of the oldest then go. */
  let dropOldest: number | undefined;
  // Entries asked for again stay whole while the others can hold the cut; if they cannot, all share it.
  const pinnedTokens = entries.reduce((sum, e, i) => sum + (e.pinned ? (sizes[i] ?? 0) : 0), 0);
  const unpinned = sizes.filter((_, i) => !entries[i]!.pinned);
  for (let attempt = 0; attempt < MEASURE_ROUNDS; attempt += 1) {
    const pinnedFit = pinnedTokens > 0 && pinnedTokens < target;
    const level = pinnedFit ? waterLevel(unpinned, target - pinnedTokens) : waterLevel(sizes, target);
    const cut = squeezeFromNewest(level, pinnedFit);
    // The text is over by at least `lines - maxTokens`: when that alone ends the attempts, the entries the
    // oldest-first drop below would remove need not be made at all.
    if (cut.over >= 0 && last > 0 && target - (cut.lines - maxTokens + attempt * 8) <= 0) {
      squeezed = cut.made;
      dropOldest = Math.min(cut.over + 1, last);
      break;
    }
    squeezed = complete(cut.made, level, pinnedFit);
    text = formatSummaryEntries(squeezed);
    total = countTokens(text);
    if (total <= maxTokens) return text;
    target -= total - maxTokens + attempt * 8;
    if (target <= 0) break;
  }
  if (dropOldest !== undefined) {
    // The newest entries after `dropOldest` are those whose lines fit, as the sums below would find them.
    squeezed = squeezed.slice(dropOldest);
    text = formatSummaryEntries(squeezed);
    total = countTokens(text);
  } else if (total > maxTokens && squeezed.length > 1) {
    // How many of the oldest go is found from the sums of the entries' lines, not by measuring the text again
    // for each one dropped; the text is then measured, and the loop below drops more if it must.
    const tokens = squeezed.map(lineTokens);
    let left = tokens.reduce((sum, n) => sum + n, 0);
    let drop = 0;
    while (drop < last && left > maxTokens) left -= tokens[drop++]!;
    squeezed = squeezed.slice(drop);
    text = formatSummaryEntries(squeezed);
    total = countTokens(text);
  }
  while (total > maxTokens && squeezed.length > 0) {
    squeezed = squeezed.slice(1);
    text = formatSummaryEntries(squeezed);
    total = countTokens(text);
  }
  return total <= maxTokens ? text : headAtWordBoundary(text, maxTokens);
}

/**
 * The largest cap such that the sizes, each cut to it, add up to at most `target` (water-filling): the
 * entries below it keep all they have, the rest share what is left equally.
 */
export function waterLevel(sizes: readonly number[], target: number): number {
  const sorted = [...sizes].sort((a, b) => a - b);
  let left = target;
  for (let index = 0; index < sorted.length; index += 1) {
    const share = Math.floor(left / (sorted.length - index));
    if ((sorted[index] ?? 0) > share) return Math.max(0, share);
    left -= sorted[index] ?? 0;
  }
  return sorted[sorted.length - 1] ?? 0;
}
