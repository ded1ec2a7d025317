/**
 * The deterministic failure analysis of the optimization loop. For the utility step: the contrastive
 * set (tasks that succeed uncompressed and fail compressed), the root causes of each pair, and a weight
 * per field: how much more often it is lost in failed episodes than in successful ones, with extra
 * weight when what was lost was a fact of the gold answer or a variable a later tool call used. For
 * the compression step: the fields kept in successful episodes whose values were never needed.
 * Feedback written here names fields and causes, never values.
 */
import type { ScenarioTask } from '../bench/scenario.js';
import type { ExtractiveRules } from 'pagewise/extractive';
import {
  containsWord,
  jsonLeaves,
  mergeFieldStats,
  parentKeys,
  ruleForPath,
  ruleMatchesPath,
  splitJson,
  type FieldStats,
} from './field-diff.js';
import type { TaskValues } from './task-values.js';
import { repeatedCalls, type EpisodeTrace, type ObservedToolCall } from './trace.js';

/** Root causes of a failure under compression, after ACON's failure analysis. */
export const ROOT_CAUSES = [
  'missing-critical-fact',
  'lost-variable',
  'incorrect-summary',
  'unnecessary-rediscovery',
  'instruction-drift',
  'other',
] as const;

/** A root cause; see {@link ROOT_CAUSES}. */
export type RootCause = (typeof ROOT_CAUSES)[number];

/** A task that succeeded uncompressed and failed compressed, with both runs. */
export interface ContrastivePair {
  task: ScenarioTask;
  uncompressed: EpisodeTrace;
  compressed: EpisodeTrace;
}

/** Feedback on one contrastive pair (utility step). */
export interface PairFeedback {
  taskId: string;
  /** `analysis` for the deterministic diff, else the optimizer model's label. */
  source: string;
  /** Where the two runs parted. */
  divergence: string;
  rootCauses: RootCause[];
  /** The facts and variables the compressed run lost (the deterministic analysis names fields only). */
  lostFacts: string[];
  recommendations: string[];
  /** Set when an optimizer's reply could not be read as feedback (its text is in `recommendations`). */
  invalid?: string;
}

/** Feedback on one task that succeeded compressed (compression step). */
export interface CompressionFeedback {
  taskId: string;
  source: string;
  /** What the compressor kept that the task never needed. */
  unnecessary: string[];
  recommendations: string[];
  invalid?: string;
}

/**
 * The contrastive set: exactly the tasks whose uncompressed run succeeded and whose compressed run
 * failed, in task order. Tasks missing either run are left out.
 */
export function contrastivePairs(
  tasks: readonly ScenarioTask[],
  uncompressed: ReadonlyMap<string, EpisodeTrace>,
  compressed: ReadonlyMap<string, EpisodeTrace>,
): ContrastivePair[] {
  const pairs: ContrastivePair[] = [];
  for (const task of tasks) {
    const uncompressedRun = uncompressed.get(task.id);
    const compressedRun = compressed.get(task.id);
    if (uncompressedRun?.success === true && compressedRun?.success === false)
      pairs.push({ task, uncompressed: uncompressedRun, compressed: compressedRun });
  }
  return pairs;
}

/** The canonical values of every tool-call argument of a run: the variables it passed along. */
export function runVariables(trace: { readonly toolCalls: readonly ObservedToolCall[] }): Set<string> {
  const values = new Set<string>();
  for (const call of trace.toolCalls) {
    for (const json of splitJson(call.input).values) for (const leaf of jsonLeaves(json)) values.add(leaf.value);
  }
  return values;
}

function labels(answer: string): Set<string> {
  return new Set([...answer.matchAll(/^\s*([A-Za-z][\w ]{0,20}):/gmu)].map((m) => (m[1] ?? '').toLowerCase()));
}

/**
 * The values the uncompressed run's last request held and the compressed run's lacked (of the task's
 * facts and the uncompressed run's variables): what compression lost for good. A value lost by one call
 * but present elsewhere (a zip code in the task and in an order's address) is not. When a run did not
 * report its request: all the task's facts and the uncompressed run's variables.
 */
export function missingValues(
  pair: Pick<ContrastivePair, 'uncompressed' | 'compressed'>,
  values: TaskValues,
): Set<string> {
  const had = pair.uncompressed.promptValues;
  const has = pair.compressed.promptValues;
  if (had === null || has === null) return new Set([...values.facts, ...runVariables(pair.uncompressed)]);
  const kept = new Set(has);
  return new Set(had.filter((f) => !kept.has(f)));
}

// An object with at least this many distinct keys, each present in under half of its occurrences on
// average, is a map of attributes (a product's options), not a record with a schema.
const OPEN_MAP_MIN_KEYS = 4;
const OPEN_MAP_MAX_COVERAGE = 0.5;

/**
 * A path rewriter that folds the keys of attribute maps into `*` (`items.[].options.armrest` →
 * `items.[].options.*`), found from how often each key occurs under its parent in `traces`: attribute
 * names vary from record to record, so one rule per name would be noise.
 */
export function openMapNormalizer(traces: readonly Pick<EpisodeTrace, 'fields'>[]): (path: string) => string {
  const occurrences = new Map<string, number>();
  for (const trace of traces) {
    for (const [path, fieldStats] of Object.entries(trace.fields))
      if (!path.startsWith('line:'))
        occurrences.set(path, (occurrences.get(path) ?? 0) + fieldStats.kept + fieldStats.lost);
  }
  const children = new Map<string, number[]>();
  for (const [path, count] of occurrences) {
    const at = path.lastIndexOf('.');
    if (at < 0) continue;
    const parent = path.slice(0, at);
    children.set(parent, [...(children.get(parent) ?? []), count]);
  }
  const open = new Set<string>();
  for (const [parent, counts] of children) {
    if (counts.length < OPEN_MAP_MIN_KEYS) continue;
    const most = Math.max(...counts);
    const coverage = counts.reduce((sum, c) => sum + c / most, 0) / counts.length;
    if (coverage < OPEN_MAP_MAX_COVERAGE) open.add(parent);
  }
  return (path) => {
    const at = path.lastIndexOf('.');
    return at >= 0 && open.has(path.slice(0, at)) ? `${path.slice(0, at)}.*` : path;
  };
}

/** `fields` with paths rewritten by `normalize`, stats of paths that fold together merged. */
export function normalizeFields(
  fields: Readonly<Record<string, FieldStats>>,
  normalize: (path: string) => string,
): Record<string, FieldStats> {
  const out: Record<string, FieldStats> = {};
  for (const [path, fieldStats] of Object.entries(fields)) mergeFieldStats(out, { [normalize(path)]: fieldStats });
  return out;
}

function lostIn(fields: Readonly<Record<string, FieldStats>>, values: ReadonlySet<string>): string[] {
  return Object.entries(fields)
    .filter(([, s]) => s.lostValues.some((v) => values.has(v)))
    .map(([path]) => path);
}

function divergence(pair: ContrastivePair): string {
  const theirCalls = pair.uncompressed.toolCalls;
  const ourCalls = pair.compressed.toolCalls;
  for (let index = 0; index < Math.max(theirCalls.length, ourCalls.length); index += 1) {
    const theirCall = theirCalls[index];
    const ourCall = ourCalls[index];
    if (theirCall && ourCall && theirCall.toolName === ourCall.toolName && theirCall.input === ourCall.input) continue;
    const repeat =
      ourCall !== undefined &&
      ourCalls.slice(0, index).some((c) => c.toolName === ourCall.toolName && c.input === ourCall.input);
    const theirs = theirCall
      ? `the uncompressed run called ${theirCall.toolName}`
      : 'the uncompressed run had answered';
    const ours = ourCall
      ? `the compressed run called ${ourCall.toolName}${repeat ? ' again with the same arguments (a repeat)' : ''}`
      : 'the compressed run answered';
    return `At tool call ${index + 1}, ${theirs}; ${ours}.`;
  }
  return `Both runs made the same ${theirCalls.length} tool calls; the compressed run answered wrongly from what its context held.`;
}

/**
 * The deterministic feedback on a pair: where the runs parted, the root causes, the fields whose lost
 * values were gold facts or variables of the uncompressed run, and the rules that would have kept them.
 */
export function analyzePair(
  pair: ContrastivePair,
  values: TaskValues,
  normalize: (path: string) => string = (p) => p,
): PairFeedback {
  const missing = missingValues(pair, values);
  const facts = new Set(values.facts.filter((f) => missing.has(f)));
  const variables = new Set([...runVariables(pair.uncompressed)].filter((v) => missing.has(v)));
  const { compressed, uncompressed } = pair;
  const fields = normalizeFields(compressed.fields, normalize);
  const factPaths = lostIn(fields, facts);
  const variablePaths = lostIn(fields, variables).filter((p) => !factPaths.includes(p));
  const causes: RootCause[] = [];
  if (factPaths.length > 0) causes.push('missing-critical-fact');
  if (variablePaths.length > 0) causes.push('lost-variable');
  if (compressed.invented > 0) causes.push('incorrect-summary');
  if (repeatedCalls(compressed) > repeatedCalls(uncompressed)) causes.push('unnecessary-rediscovery');
  const expected = labels(uncompressed.answer);
  const given = labels(compressed.answer);
  // A run that ended in an error (a step limit) never got to answer: that is not drift from the format.
  if (compressed.error === undefined && [...expected].some((l) => !given.has(l))) causes.push('instruction-drift');
  if (causes.length === 0) causes.push('other');
  const rules = [
    ...new Set([...factPaths, ...variablePaths].map((p) => ruleForPath(p)).filter((r): r is string => r !== undefined)),
  ];
  const recommendations = rules.map((r) => `Keep the field ${r} in every compressed result.`);
  if (causes.includes('unnecessary-rediscovery'))
    recommendations.push(
      'Keep the ids the agent passes to its next tool calls, so it does not fetch the same record again.',
    );
  if (causes.includes('other')) recommendations.push('Keep more of each result (raise the share kept).');
  return {
    taskId: pair.task.id,
    source: 'analysis',
    divergence: divergence(pair),
    rootCauses: causes,
    lostFacts: [
      ...factPaths.map((p) => `${p} (held a fact of the gold answer)`),
      ...variablePaths.map((p) => `${p} (held a value a later tool call used)`),
    ],
    recommendations,
  };
}

/** How much a field matters to the failures of the utility step. */
export interface FieldWeight {
  /** The extractive rule naming the field (`items.price`), or the line kind (`line:key-value`). */
  rule: string;
  weight: number;
  /** Share of the failed (contrastive) runs that lost it. */
  lostInFailed: number;
  /** Share of the runs that succeeded compressed that lost it. */
  lostInSucceeded: number;
  /** Share of the failed runs in which it held a gold fact / a variable of the uncompressed run. */
  factLoss: number;
  variableLoss: number;
}

const share = (n: number, of: number) => (of === 0 ? 0 : n / of);

/**
 * Weighs every field lost in a failed run: 2 · factLoss + variableLoss + lostInFailed − lostInSucceeded.
 * Only fields with a positive weight that point at the failures (a lost fact or variable, or lost more
 * often in failures than in successes) are returned, heaviest first, one entry per rule.
 */
export function weighFields(
  pairs: readonly ContrastivePair[],
  succeeded: readonly EpisodeTrace[],
  valuesOf: (taskId: string) => TaskValues,
): FieldWeight[] {
  const counts = new Map<string, { failed: number; succeeded: number; fact: number; variable: number }>();
  const bump = (rule: string, field: 'failed' | 'succeeded' | 'fact' | 'variable', seen: Set<string>) => {
    const key = `${field}\u0000${rule}`;
    if (seen.has(key)) return;
    seen.add(key);
    const tally = counts.get(rule) ?? { failed: 0, succeeded: 0, fact: 0, variable: 0 };
    tally[field] += 1;
    counts.set(rule, tally);
  };
  const ruleOf = (path: string) => (path.startsWith('line:') ? path : ruleForPath(path));
  const normalize = openMapNormalizer([...pairs.map((p) => p.compressed), ...succeeded]);
  for (const pair of pairs) {
    const values = valuesOf(pair.task.id);
    const missing = missingValues(pair, values);
    const facts = new Set(values.facts.filter((f) => missing.has(f)));
    const variables = new Set([...runVariables(pair.uncompressed)].filter((v) => missing.has(v)));
    const seen = new Set<string>();
    for (const [path, fieldStats] of Object.entries(normalizeFields(pair.compressed.fields, normalize))) {
      const rule = ruleOf(path);
      if (rule === undefined || fieldStats.lost === 0) continue;
      bump(rule, 'failed', seen);
      if (fieldStats.lostValues.some((v) => facts.has(v))) bump(rule, 'fact', seen);
      if (fieldStats.lostValues.some((v) => variables.has(v))) bump(rule, 'variable', seen);
    }
  }
  for (const trace of succeeded) {
    const seen = new Set<string>();
    for (const [path, fieldStats] of Object.entries(normalizeFields(trace.fields, normalize))) {
      const rule = ruleOf(path);
      if (rule !== undefined && fieldStats.lost > 0) bump(rule, 'succeeded', seen);
    }
  }
  const weights: FieldWeight[] = [];
  for (const [rule, tally] of counts) {
    const losses = {
      rule,
      lostInFailed: share(tally.failed, pairs.length),
      lostInSucceeded: share(tally.succeeded, succeeded.length),
      factLoss: share(tally.fact, pairs.length),
      variableLoss: share(tally.variable, pairs.length),
    };
    const weight = 2 * losses.factLoss + losses.variableLoss + losses.lostInFailed - losses.lostInSucceeded;
    if (weight > 0 && (losses.factLoss > 0 || losses.variableLoss > 0 || losses.lostInFailed > losses.lostInSucceeded))
      weights.push({ ...losses, weight });
  }
  return weights.sort((a, b) => b.weight - a.weight || (a.rule < b.rule ? -1 : 1));
}

/** A drop rule the compression step may add, with what the fields it drops cost. */
export interface FieldCost {
  /** The extractive rule (`fulfillments`, `payment_history.payment_method_id`). */
  rule: string;
  /** Mean tokens the fields it matches held per successful episode. */
  tokens: number;
}

// Fields named like ids link records (the next call's argument, the variant an order item points at).
const ID_KEY = /^(?:id|uuid|guid|key|handle|sku)$|(?:_id|_ids|Id|Ids|_uuid|_key|_handle)$/u;
// A field with this few distinct values over this many occurrences holds a state (a status, a payment
// type, availability), which decides which records count even though the answer never quotes it.
const STATE_MAX_VALUES = 4;
const STATE_MIN_OCCURRENCES = 6;

function lastKey(path: string): string {
  return (
    path
      .split('.')
      .filter((k) => k !== '[]' && k !== '*')
      .pop() ?? ''
  );
}

/** What the compression step's analysis found in the successful runs. */
export interface CompressionAnalysis {
  /** Drop rules for fields kept and never needed, most costly first. */
  unneeded: FieldCost[];
  /** Rules naming the fields that were needed (facts, answer values, arguments, ids, states). */
  needed: string[];
}

/**
 * The fields kept in successful compressed runs, split into needed (a gold fact, a value of the
 * answer or a tool-call argument of either run, an id, a state field, or kept by the current rules)
 * and never needed. Drop rules are as general as they can be without matching a needed field (all of
 * `address` rather than each of its lines).
 */
export function compressionAnalysis(
  cases: readonly { compressed: EpisodeTrace; uncompressed?: EpisodeTrace; values: TaskValues }[],
  rules: ExtractiveRules,
): CompressionAnalysis {
  const needed = new Set<string>();
  const stats = new Map<string, { tokens: number; kept: number; values: Set<string>; needed: boolean }>();
  const normalize = openMapNormalizer(cases.map((c) => c.compressed));
  for (const example of cases) {
    const values = new Set([
      ...example.values.facts,
      ...runVariables(example.compressed),
      ...(example.uncompressed ? runVariables(example.uncompressed) : []),
    ]);
    const answer = example.compressed.answer.toLowerCase();
    for (const [path, fieldStats] of Object.entries(normalizeFields(example.compressed.fields, normalize))) {
      if (path.startsWith('line:') || fieldStats.kept === 0) continue;
      const entry = stats.get(path) ?? { tokens: 0, kept: 0, values: new Set<string>(), needed: false };
      entry.tokens += fieldStats.keptTokens;
      entry.kept += fieldStats.kept;
      for (const value of fieldStats.keptValues) entry.values.add(value);
      if (fieldStats.keptValues.some((v) => values.has(v) || (v.length >= 3 && containsWord(answer, v))))
        entry.needed = true;
      stats.set(path, entry);
    }
  }
  for (const [path, pathStats] of stats) {
    const key = lastKey(path);
    // A constant (one value everywhere: a country, an empty list) says nothing, so it is no state.
    const state =
      pathStats.kept >= STATE_MIN_OCCURRENCES &&
      pathStats.values.size >= 2 &&
      pathStats.values.size <= STATE_MAX_VALUES;
    const boolean = [...pathStats.values].every((v) => v === 'true' || v === 'false');
    const forced = rules.jsonKeepFields.some((r) => ruleMatchesPath(r, path));
    if (pathStats.needed || ID_KEY.test(key) || state || boolean || forced) needed.add(path);
  }
  const paths = [...stats.keys()];
  const unneeded = paths.filter((p) => !needed.has(p));
  const safe = (rule: string) => !paths.some((p) => needed.has(p) && ruleMatchesPath(rule, p));
  const chosen = new Set<string>();
  for (const path of unneeded) {
    const own = ruleForPath(path);
    if (own === undefined) continue;
    // The most general ancestor that drops nothing needed; the field's own rule otherwise.
    const general = [...parentKeys(path)].reverse().find((k) => safe(k));
    const rule = general ?? (safe(own) ? own : undefined);
    if (rule !== undefined && !rules.jsonDropFields.includes(rule)) chosen.add(rule);
  }
  // A rule inside another chosen rule adds nothing.
  const rulesList = [...chosen].filter(
    (rule) =>
      ![...chosen].some(
        (o) => o !== rule && unneeded.filter((p) => ruleMatchesPath(rule, p)).every((p) => ruleMatchesPath(o, p)),
      ),
  );
  const unneededRules = rulesList
    .map((rule) => ({
      rule,
      tokens:
        paths.filter((p) => ruleMatchesPath(rule, p)).reduce((sum, p) => sum + (stats.get(p)?.tokens ?? 0), 0) /
        Math.max(1, cases.length),
    }))
    .filter((c) => c.tokens > 0)
    .sort((a, b) => b.tokens - a.tokens || (a.rule < b.rule ? -1 : 1));
  const neededRules = [
    ...new Set([...needed].map((p) => ruleForPath(p)).filter((r): r is string => r !== undefined)),
  ].sort();
  return { unneeded: unneededRules, needed: neededRules };
}

/** The drop rules of {@link compressionAnalysis}. */
export function unneededFields(cases: Parameters<typeof compressionAnalysis>[0], rules: ExtractiveRules): FieldCost[] {
  return compressionAnalysis(cases, rules).unneeded;
}

/** The deterministic compression-step feedback on one successful run: what it kept and never used. */
export function analyzeSuccess(trace: EpisodeTrace, unneeded: readonly FieldCost[]): CompressionFeedback {
  const kept = unneeded
    .map((cost) => ({
      rule: cost.rule,
      tokens: Object.entries(trace.fields)
        .filter(([path]) => ruleMatchesPath(cost.rule, path))
        .reduce((sum, [, s]) => sum + s.keptTokens, 0),
    }))
    .filter((u) => u.tokens > 0);
  return {
    taskId: trace.taskId,
    source: 'analysis',
    unnecessary: kept.map((u) => `${u.rule} (about ${Math.round(u.tokens)} tokens kept, never used)`),
    recommendations: kept.map((u) => `Drop the field ${u.rule}.`),
  };
}
