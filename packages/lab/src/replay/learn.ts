/**
 * Learning observation-guideline rules from traces, the utility step of ACON with the traces' own
 * behaviour as the signal and no model call. From the training traces: fields the model used later that
 * the starting guideline lost (in traces with a positive outcome) become keep-field candidates; tools
 * whose results were never used become lower per-tool thresholds; costly fields never used become
 * drop-field candidates. Each candidate is replayed on the held-out traces and kept only when used-later
 * recall does not drop and prompt tokens do not rise (a drop or threshold rule must lower them; a keep rule
 * may move them by {@link KEEP_RULE_TOKEN_SLACK}, see there). Rules
 * name kinds of fields, never values: every candidate passes the optimizer's task-value check.
 */
import type { Guideline } from 'pagewise/compression';
import { DEFAULT_OBSERVATION_GUIDELINE, OBSERVATION_THRESHOLD } from 'pagewise/compression';
import { checkCandidate, forbiddenValues } from '../optimize/candidate-check.js';
import { seededRandom } from 'pagewise/internal';
import { analyzeTrace, replayTrace, type TraceAnalysis } from './replay.js';
import { buildReport, type StrategySummary } from './report.js';
import { observationStrategy } from './strategies.js';
import { outcomeWeight, type ReplayTrace } from './trace.js';

/** Options of {@link learnFromTraces}. */
export interface LearnFromTracesOptions {
  /** Share of the traces held out to validate each rule, in (0, 1). Default 0.3. */
  holdout?: number;
  /** Seed of the split. Default 1. */
  seed?: number;
  /** The guideline to improve. Default {@link DEFAULT_OBSERVATION_GUIDELINE}. */
  start?: Guideline;
  /** T_obs of the compressor. Default {@link OBSERVATION_THRESHOLD}. */
  observationThreshold?: number;
  /** Candidates tried at most. Default 16. */
  maxCandidates?: number;
  /** Called before each candidate is validated. */
  onProgress?: (progress: { done: number; total: number; rule: string }) => void;
}

/** Recall and tokens of one configuration on the held-out traces. */
export interface HeldOutFigures {
  recall: number;
  weightedRecall?: number;
  cumulativeTokens: number;
  lost: number;
}

/** One proposed rule and what validation found. */
export interface LearnedRule {
  kind: 'keep-field' | 'keep-pattern' | 'tool-threshold';
  /** The JSON key run (keep/drop) or the tool (threshold). */
  target: string;
  /** The per-tool threshold, for `tool-threshold`. */
  threshold?: number;
  /** What it was learned from: training traces and uses. */
  learnedFrom: { traces: string[]; uses: number; lost: number };
  accepted: boolean;
  /** Why it was kept or refused. */
  reason: string;
  /** Held-out figures without and with the rule (on top of the rules accepted before it). */
  before?: HeldOutFigures;
  after?: HeldOutFigures;
}

/** The result of {@link learnFromTraces}. */
export interface LearnFromTracesResult {
  /** The start guideline with the accepted rules, version raised. */
  guideline: Guideline;
  /** Per-tool T_obs learned. */
  toolThresholds: Record<string, number>;
  rules: LearnedRule[];
  train: string[];
  holdout: string[];
  /** Held-out figures of the start guideline and of the learned one. */
  before: HeldOutFigures;
  after: HeldOutFigures;
}

/**
 * The shape of a value as a keep pattern: letter runs become `[a-z]+`, digit runs `\d{n}`, anything else
 * stays as written (escaped), letters and digits mixed become `[a-z\d]{n}`; `submit_dispute_0589` gives `\b[a-z]+_[a-z]+_\d{4}\b`: a kind of
 * value, never the value. Undefined for values without a digit (a name, a word), whose shape says nothing.
 */
export function valueShape(value: string): string | undefined {
  const lowered = value.toLowerCase();
  if (!/\d/u.test(lowered) || lowered.length > 60) return undefined;
  const body = lowered.replace(/[a-z\d]+|[^a-z\d]/gu, (run) => {
    if (/^[a-z]+$/u.test(run)) return '[a-z]+';
    if (/^\d+$/u.test(run)) return `\\d{${run.length}}`;
    if (/^[a-z\d]+$/u.test(run)) return `[a-z\\d]{${run.length}}`;
    return run.replace(/[.*+?^${}()|[\]\\/]/gu, '\\$&');
  });
  // A word boundary only where the value starts or ends with a letter or digit.
  return `${/^[a-z\d]/u.test(lowered) ? '\\b' : ''}${body}${/[a-z\d]$/u.test(lowered) ? '\\b' : ''}`;
}

/** A generalized JSON path as a `jsonKeepFields` key run: array steps dropped, the last two keys kept. */
export function fieldRule(path: string): string | undefined {
  const keys = path.split('.').filter((k) => k !== '[]' && k !== '');
  if (keys.length === 0 || path.includes(':')) return undefined;
  const tail = keys.slice(-2);
  if (tail.every((k) => k === '*')) return undefined;
  return tail[0] === '*' ? tail[1] : tail.join('.');
}

function split<T>(items: readonly T[], holdout: number, seed: number): { train: T[]; test: T[] } {
  const order = items.map((_, i) => i);
  const random = seededRandom(seed);
  for (let index = order.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [order[index], order[other]] = [order[other]!, order[index]!];
  }
  const testCount = Math.max(1, Math.round(items.length * holdout));
  return { test: order.slice(0, testCount).map((i) => items[i]!), train: order.slice(testCount).map((i) => items[i]!) };
}

async function evaluate(
  analyses: readonly TraceAnalysis[],
  guideline: Guideline,
  threshold: number,
  toolThresholds: Record<string, number>,
): Promise<StrategySummary> {
  const strategy = observationStrategy('learned', {
    observationGuideline: guideline,
    observationThreshold: threshold,
    toolThresholds,
  });
  const replays = [];
  for (const analysis of analyses) replays.push([await replayTrace(analysis, strategy)]);
  return buildReport(analyses, replays, [strategy], 0).strategies[0]!;
}

/**
 * How far, as a share of the held-out prompt tokens, a keep rule may raise them and still be kept. The
 * compressor fills each result's budget (⌊ratio · tokens⌋), and a keep rule cannot raise a budget: it changes
 * which units fill it, and with them the few tokens a selection renders short of its budget (BPE merges where
 * units join, whether a last short unit fits). Without this slack a rule that recovers values would be judged
 * by that rounding; a rule that costs more than it (a compression that no longer fits and is passed on whole)
 * is still refused.
 */
export const KEEP_RULE_TOKEN_SLACK = 0.005;

const figures = (summary: StrategySummary): HeldOutFigures => ({
  recall: summary.recall,
  ...(summary.weightedRecall !== undefined ? { weightedRecall: summary.weightedRecall } : {}),
  cumulativeTokens: summary.cumulativeTokens,
  lost: summary.lost,
});

interface Candidate {
  rule: LearnedRule;
  apply(g: Guideline, t: Record<string, number>): { guideline: Guideline; thresholds: Record<string, number> };
}

/**
 * Learns observation rules from `traces` and validates them on a held-out share.
 *
 * @example
 * const { guideline, toolThresholds, rules } = await learnFromTraces(await readTraces('traces.jsonl'));
 */
export async function learnFromTraces(
  traces: readonly ReplayTrace[],
  options: LearnFromTracesOptions = {},
): Promise<LearnFromTracesResult> {
  const holdout = options.holdout ?? 0.3;
  if (!(holdout > 0 && holdout < 1))
    throw new RangeError(`learnFromTraces: holdout must be in (0, 1), got ${holdout}.`);
  const start = options.start ?? DEFAULT_OBSERVATION_GUIDELINE;
  const threshold = options.observationThreshold ?? OBSERVATION_THRESHOLD;
  const { train, test } = split(traces.map(analyzeTrace), holdout, options.seed ?? 1);

  // What the start guideline loses on the training traces, per field, and what each tool's results cost.
  const startStrategy = observationStrategy('start', { observationGuideline: start, observationThreshold: threshold });
  const lostBy = new Map<string, { traces: Set<string>; uses: number; lost: number }>();
  const lostShapes = new Map<string, { traces: Set<string>; uses: number; lost: number }>();
  const usedFields = new Set<string>();
  const toolUses = new Map<string, number>();
  const toolSeen = new Map<string, Set<string>>();
  for (const analysis of train) {
    const replay = await replayTrace(analysis, startStrategy);
    const weight = outcomeWeight(analysis.trace);
    for (const use of analysis.uses) {
      usedFields.add(use.value.field);
      toolUses.set(use.toolName, (toolUses.get(use.toolName) ?? 0) + 1);
    }
    for (const item of analysis.trace.items)
      if (item.type === 'tool-result')
        toolSeen.set(item.toolName, (toolSeen.get(item.toolName) ?? new Set()).add(analysis.trace.id));
    for (const outcome of replay.outcomes) {
      const use = analysis.uses[outcome.use]!;
      if (weight <= 0) continue;
      const shape = outcome.present ? undefined : valueShape(use.value.raw);
      if (shape !== undefined) {
        const tally = lostShapes.get(shape) ?? { traces: new Set(), uses: 0, lost: 0 };
        tally.lost += 1;
        tally.uses += 1;
        tally.traces.add(analysis.trace.id);
        lostShapes.set(shape, tally);
      }
      const key = fieldRule(use.value.field);
      if (key === undefined) continue;
      const entry = lostBy.get(key) ?? { traces: new Set(), uses: 0, lost: 0 };
      entry.uses += 1;
      if (!outcome.present) {
        entry.lost += 1;
        entry.traces.add(analysis.trace.id);
      }
      lostBy.set(key, entry);
    }
  }

  const candidates = candidateRules(start, threshold, lostBy, lostShapes, toolSeen, toolUses);
  const tried = candidates.slice(0, options.maxCandidates ?? 16);

  const forbidden = forbiddenValues(
    train.map((a) => a.uses.map((u) => u.value.raw)),
    start,
  );
  let guideline = start;
  let thresholds: Record<string, number> = {};
  const startSummary = await evaluate(test, start, threshold, thresholds);
  let current = startSummary;
  const rules: LearnedRule[] = [];
  for (const [index, candidate] of tried.entries()) {
    const rule = candidate.rule;
    options.onProgress?.({ done: index, total: tried.length, rule: `${rule.kind} ${rule.target}` });
    const next = candidate.apply(guideline, thresholds);
    const refused = checkCandidate(next.guideline, start, forbidden);
    if (refused) {
      rules.push({ ...rule, reason: `refused: ${refused}` });
      continue;
    }
    const summary = await evaluate(test, next.guideline, threshold, next.thresholds);
    const before = figures(current);
    const after = figures(summary);
    const recallHolds = summary.lost <= current.lost;
    const tokensOk =
      rule.kind !== 'tool-threshold'
        ? summary.cumulativeTokens <= current.cumulativeTokens * (1 + KEEP_RULE_TOKEN_SLACK) &&
          summary.lost < current.lost
        : summary.cumulativeTokens < current.cumulativeTokens;
    const accepted = recallHolds && tokensOk;
    rules.push({
      ...rule,
      accepted,
      before,
      after,
      reason: accepted
        ? rule.kind !== 'tool-threshold'
          ? `held-out lost values ${current.lost} → ${summary.lost} at ${current.cumulativeTokens} → ${summary.cumulativeTokens} tokens`
          : `held-out tokens ${current.cumulativeTokens} → ${summary.cumulativeTokens}, lost values ${current.lost} → ${summary.lost}`
        : !recallHolds
          ? `held-out lost values would rise ${current.lost} → ${summary.lost}`
          : rule.kind !== 'tool-threshold' && summary.lost >= current.lost
            ? 'no held-out value recovered'
            : `held-out tokens would not fall (${current.cumulativeTokens} → ${summary.cumulativeTokens})`,
    });
    if (accepted) {
      guideline = next.guideline;
      thresholds = next.thresholds;
      current = summary;
    }
  }
  options.onProgress?.({ done: tried.length, total: tried.length, rule: 'done' });
  const changed = guideline !== start;
  return {
    guideline: changed
      ? {
          ...guideline,
          version: start.version + 1,
          description: `${start.description ?? start.id}; keep rules learned from ${train.length} traces by replay`,
        }
      : start,
    toolThresholds: thresholds,
    rules,
    train: train.map((a) => a.trace.id),
    holdout: test.map((a) => a.trace.id),
    before: figures(startSummary),
    after: figures(current),
  };
}

type LossCounts = Map<string, { traces: Set<string>; uses: number; lost: number }>;

/** The rules worth trying, from what the start guideline lost on the training traces and what each tool cost. */
function candidateRules(
  start: Guideline,
  threshold: number,
  lostBy: LossCounts,
  lostShapes: LossCounts,
  toolSeen: Map<string, Set<string>>,
  toolUses: Map<string, number>,
): Candidate[] {
  const candidates: Candidate[] = [];
  const keep = [...lostBy.entries()]
    .filter(([key, e]) => e.lost > 0 && !start.rules.jsonKeepFields.includes(key))
    .sort((a, b) => b[1].lost - a[1].lost || a[0].localeCompare(b[0]));
  for (const [key, tally] of keep)
    candidates.push({
      rule: {
        kind: 'keep-field',
        target: key,
        learnedFrom: { traces: [...tally.traces], uses: tally.uses, lost: tally.lost },
        accepted: false,
        reason: '',
      },
      apply: (guideline, thresholds) => ({
        guideline: {
          ...guideline,
          rules: { ...guideline.rules, jsonKeepFields: [...guideline.rules.jsonKeepFields, key] },
        },
        thresholds,
      }),
    });
  // Values lost outside JSON (ids in text) are kept by their shape, learned from two or more traces.
  const shapes = [...lostShapes.entries()]
    .filter(([shape, e]) => e.traces.size >= 2 && !start.rules.keepPatterns.includes(shape))
    .sort((a, b) => b[1].lost - a[1].lost || a[0].localeCompare(b[0]));
  for (const [shape, tally] of shapes)
    candidates.push({
      rule: {
        kind: 'keep-pattern',
        target: shape,
        learnedFrom: { traces: [...tally.traces], uses: tally.uses, lost: tally.lost },
        accepted: false,
        reason: '',
      },
      apply: (guideline, thresholds) => ({
        guideline: {
          ...guideline,
          rules: { ...guideline.rules, keepPatterns: [...guideline.rules.keepPatterns, shape] },
        },
        thresholds,
      }),
    });
  // A tool seen in several training traces whose results were never used: compress it from a lower size.
  const low = Math.max(1, Math.floor(threshold / 4));
  for (const [tool, seen] of [...toolSeen.entries()].sort((a, b) => a[0].localeCompare(b[0])))
    if (!toolUses.has(tool) && seen.size >= 2)
      candidates.push({
        rule: {
          kind: 'tool-threshold',
          target: tool,
          threshold: low,
          learnedFrom: { traces: [...seen], uses: 0, lost: 0 },
          accepted: false,
          reason: '',
        },
        apply: (g, t) => ({ guideline: g, thresholds: { ...t, [tool]: low } }),
      });
  return candidates;
}
