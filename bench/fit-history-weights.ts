/**
 * Fits the weights of the extractive history backend's turn ranking (the features of
 * packages/pagewise/src/compression/turn-features.ts) on the tuning seeds of the generated long chats, and
 * reports them leave-one-domain-out: for each style, weights fitted without it, measured on it.
 *
 * Each chat of the fit is compressed once per ratio of `LONG_CHAT_RATIOS` through the path users take
 * (`compressMessages`, with the backend's probe recording every ranked unit's features and cost), with no question
 * (the current message as the task) and once per later question (the question as the task). A candidate weighting
 * is then scored by replaying the choice on the recorded units: best first by score per token^costExponent while
 * they fit the budget, each kept message's label paid once, as the backend chooses. The objective is the mean of
 * the question-agnostic and the question-aware recall, so that what a question names is never buried under what
 * is merely specific. Coordinate ascent over a fixed grid from the hand-set weights the backend had before,
 * relevance held at 1 (the scale); deterministic.
 *
 * The report measures every weighting through the real path again, on the evaluation split: `test` (default), or
 * `tune` while designing (the held-out style's tuning seeds are still held out of its fit, the in-domain column
 * is not). `--write` writes the weights fitted on every style's tuning seeds to
 * packages/pagewise/src/compression/history-params.ts; the report goes to bench-out/fit-history-weights.md.
 *
 * `--without <feature>` holds a feature at 0 in every fit, for an ablation.
 *
 * Usage: node --conditions=@pagewise/source --import tsx bench/fit-history-weights.ts [--write] [--eval-split tune|test]
 *        [--without <feature>]...
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { compressMessages } from 'pagewise/compression';
import { extractiveBackendWithTurns } from '../packages/pagewise/src/compression/extractive-backend.js';
import {
  rankKey,
  TURN_FEATURE_NAMES,
  TURN_FEATURES_VERSION,
  turnScore,
  type TurnWeights,
} from '../packages/pagewise/src/compression/turn-features.js';
import { holdsValue, LONG_CHAT_DOMAINS } from './compression-eval/long-chats.js';
import {
  historyCompression,
  LONG_CHAT_RATIOS,
  runLongChats,
  type HistoryCompressor,
} from './compression-eval/long-chat-run.js';
import { longChatItems, longChatQuestionItems, type LongChatItem, type Split } from './compression-eval/suite.js';
import type { SuiteSetFigures } from './compression-eval/suite-run.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PARAMS_FILE = path.join(repoRoot, 'packages/pagewise/src/compression/history-params.ts');
const REPORT_FILE = path.join(repoRoot, 'bench-out/fit-history-weights.md');

/** The turn ranking before it was fitted: relevance, with recency, later reference and numbers as hand-set bonuses. */
export const HAND_SET_TURN_WEIGHTS: TurnWeights = {
  version: TURN_FEATURES_VERSION,
  features: TURN_FEATURE_NAMES,
  weights: TURN_FEATURE_NAMES.map(
    (name) => ({ relevance: 1, recency: 0.3, referenced: 0.3, numeric: 0.1 })[name as string] ?? 0,
  ),
  costExponent: 0,
  fittedOn: [],
};

/** The values a weight is tried at. */
export const WEIGHT_GRID = [-1, -0.5, -0.25, 0, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3] as const;
/** The cost exponents tried. */
export const EXPONENT_GRID = [0, 0.25, 0.5, 0.75, 1] as const;
/** Rounds of coordinate ascent at most. */
const MAX_ROUNDS = 8;

/** One recorded ranking: its units with the evidence each holds, and the budget they were chosen within. */
export interface RecordedRanking {
  domain: string;
  /** `agnostic`: no question; `aware`: a later question as the task. */
  mode: 'agnostic' | 'aware';
  units: { vector: number[]; cost: number; message: number; holds: number[] }[];
  labelCosts: number[];
  budget: number;
  evidence: number;
}

/** Compresses `item` at `ratio` through `compressMessages` and records the ranking the backend made. */
export async function recordRanking(
  item: LongChatItem,
  ratio: number,
  mode: RecordedRanking['mode'],
): Promise<RecordedRanking> {
  let recorded: RecordedRanking | undefined;
  const backend = extractiveBackendWithTurns({
    weights: HAND_SET_TURN_WEIGHTS,
    probe: (units, labelCosts, budget) => {
      recorded = {
        domain: item.domain,
        mode,
        units: units.map((unit) => ({
          vector: unit.vector,
          cost: unit.cost,
          message: unit.message,
          holds: item.evidence.flatMap((value, index) => (holdsValue(unit.text, value) ? [index] : [])),
        })),
        labelCosts: [...labelCosts],
        budget,
        evidence: item.evidenceCount,
      };
    },
  });
  await compressMessages(item.messages, { task: item.task, targetRatio: ratio, boundary: () => 'longchat', backend });
  if (!recorded) throw new Error(`fit-history-weights: no ranking recorded for ${item.id}`);
  return recorded;
}

/** Evidence a weighting keeps on a recorded ranking, choosing as the backend does. */
export function replay(ranking: RecordedRanking, weights: TurnWeights): number {
  const keyed = ranking.units.map((unit, index) => ({
    index,
    key: rankKey(weights, turnScore(weights, unit.vector), unit.cost),
  }));
  keyed.sort((a, b) => b.key - a.key || a.index - b.index);
  const opened = new Set<number>();
  const kept = new Set<number>();
  let used = 0;
  for (const { index } of keyed) {
    const unit = ranking.units[index]!;
    const cost = unit.cost + (opened.has(unit.message) ? 0 : (ranking.labelCosts[unit.message] ?? 0));
    if (used + cost > ranking.budget) continue;
    used += cost;
    opened.add(unit.message);
    for (const evidence of unit.holds) kept.add(evidence);
  }
  return kept.size;
}

/** The objective: the mean of the question-agnostic and the question-aware recall over the rankings. */
export function objective(rankings: readonly RecordedRanking[], weights: TurnWeights): number {
  const recall = (mode: RecordedRanking['mode']): number => {
    const own = rankings.filter((ranking) => ranking.mode === mode);
    const kept = own.reduce((sum, ranking) => sum + replay(ranking, weights), 0);
    return (
      kept /
      Math.max(
        1,
        own.reduce((sum, ranking) => sum + ranking.evidence, 0),
      )
    );
  };
  return (recall('agnostic') + recall('aware')) / 2;
}

/** Coordinate ascent from the hand-set weights; relevance stays at 1. */
export function fitWeights(
  rankings: readonly RecordedRanking[],
  fittedOn: readonly string[],
  without: readonly string[] = [],
): TurnWeights {
  let best: TurnWeights = { ...HAND_SET_TURN_WEIGHTS, fittedOn };
  let bestScore = objective(rankings, best);
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    let improved = false;
    for (let feature = 1; feature <= TURN_FEATURE_NAMES.length; feature += 1) {
      const exponent = feature === TURN_FEATURE_NAMES.length;
      if (!exponent && without.includes(TURN_FEATURE_NAMES[feature] ?? '')) continue;
      for (const value of exponent ? EXPONENT_GRID : WEIGHT_GRID) {
        const candidate: TurnWeights = exponent
          ? { ...best, costExponent: value }
          : { ...best, weights: best.weights.map((weight, index) => (index === feature ? value : weight)) };
        const score = objective(rankings, candidate);
        if (score > bestScore + 1e-9) {
          best = candidate;
          bestScore = score;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return best;
}

function describe(weights: TurnWeights): string {
  return `${TURN_FEATURE_NAMES.map((name, index) => `${name} ${weights.weights[index]}`).join(', ')}, cost exponent ${weights.costExponent}`;
}

/** Writes the weights as the parameter file, formatted as the repository formats it. */
async function writeParams(weights: TurnWeights): Promise<void> {
  const source = `/**
 * Fitted weights of the extractive history backend's turn ranking (see \`turn-features.ts\`). Written by
 * \`bench/fit-history-weights.ts --write\`; do not edit by hand.
 */
import type { TurnWeights } from './turn-features.js';

/** The shipped weights of the turn ranking. */
export const HISTORY_TURN_WEIGHTS: TurnWeights = ${JSON.stringify(weights, null, 2)};
`;
  const options = (await resolveConfig(PARAMS_FILE)) ?? {};
  writeFileSync(PARAMS_FILE, await format(source, { ...options, filepath: PARAMS_FILE }));
}

/** Reads `--write`, `--eval-split` and every `--without <feature>` (held at 0: an ablation). */
export function fitArguments(argv: readonly string[]): { write: boolean; evalSplit: Split; without: string[] } {
  const at = argv.indexOf('--eval-split');
  const evalSplit = at >= 0 ? argv[at + 1] : 'test';
  if (evalSplit !== 'test' && evalSplit !== 'tune') throw new Error('--eval-split takes `test` or `tune`.');
  const without = argv.flatMap((arg, index) => (arg === '--without' ? [argv[index + 1] ?? ''] : []));
  for (const name of without) {
    if (!(TURN_FEATURE_NAMES as readonly string[]).includes(name) || name === 'relevance') {
      throw new Error(`--without takes a turn feature other than relevance, got ${name}.`);
    }
  }
  return { write: argv.includes('--write'), evalSplit, without };
}

/** Fits, measures and reports; see the module comment. */
export async function main(argv: readonly string[] = []): Promise<void> {
  const { write, evalSplit, without } = fitArguments(argv);
  const chats = longChatItems();
  const tune = chats.filter((item) => item.split === 'tune');
  const rankings: RecordedRanking[] = [];
  for (const ratio of LONG_CHAT_RATIOS) {
    for (const item of tune) rankings.push(await recordRanking(item, ratio, 'agnostic'));
    for (const item of longChatQuestionItems(tune)) rankings.push(await recordRanking(item, ratio, 'aware'));
  }
  const fitted = (domains: readonly string[]): TurnWeights =>
    fitWeights(
      rankings.filter((ranking) => domains.includes(ranking.domain)),
      domains.map((domain) => `long chats: ${domain} (tuning seeds)`),
      without,
    );
  const all = fitted(LONG_CHAT_DOMAINS);
  const lines = [`Fitted on every style's tuning seeds: ${describe(all)}.`, ''];
  const rows: { domain: string; figures: SuiteSetFigures[] }[] = [];
  const evaluated = chats.filter((item) => item.split === evalSplit);
  for (const domain of LONG_CHAT_DOMAINS) {
    const heldOut = fitted(LONG_CHAT_DOMAINS.filter((other) => other !== domain));
    lines.push(`Without ${domain}: ${describe(heldOut)}.`);
    const compressors: { name: string; compress: HistoryCompressor }[] = [
      { name: 'LODO', compress: historyCompression({ backend: extractiveBackendWithTurns({ weights: heldOut }) }) },
      { name: 'in-domain', compress: historyCompression({ backend: extractiveBackendWithTurns({ weights: all }) }) },
      {
        name: 'hand-set (before)',
        compress: historyCompression({ backend: extractiveBackendWithTurns({ weights: HAND_SET_TURN_WEIGHTS }) }),
      },
    ];
    const own = evaluated.filter((item) => item.domain === domain);
    rows.push({
      domain,
      figures: [
        ...(await runLongChats(own, compressors)),
        ...(await runLongChats(longChatQuestionItems(own), compressors)),
      ],
    });
  }
  const methods = [
    'LODO',
    'in-domain',
    'hand-set (before)',
    'last turns',
    'random turns',
    'truncate-head',
    'truncate-tail',
  ];
  const table = [
    `| set (${evalSplit === 'test' ? 'test' : 'tuning'} seeds) | style | chats or questions | evidence | ${methods.join(' | ')} |`,
    `|:---|:---|---:|---:|${methods.map(() => '---:').join('|')}|`,
  ];
  const pooled = new Map<string, { evidence: number; items: number; kept: Map<string, number> }>();
  for (const { domain, figures } of rows) {
    for (const figure of figures) {
      const cells = methods.map((method) => figure.methods.find((m) => m.method === method)?.recall.toFixed(2) ?? '–');
      table.push(`| ${figure.set} | ${domain} | ${figure.items} | ${figure.evidence} | ${cells.join(' | ')} |`);
      const pool = pooled.get(figure.set) ?? { evidence: 0, items: 0, kept: new Map<string, number>() };
      pool.evidence += figure.evidence;
      pool.items += figure.items;
      for (const method of figure.methods) {
        pool.kept.set(method.method, (pool.kept.get(method.method) ?? 0) + method.recall * figure.evidence);
      }
      pooled.set(figure.set, pool);
    }
  }
  for (const [set, pool] of pooled) {
    const cells = methods.map((method) => ((pool.kept.get(method) ?? 0) / Math.max(1, pool.evidence)).toFixed(2));
    table.push(`| ${set} | **all** | ${pool.items} | ${pool.evidence} | ${cells.join(' | ')} |`);
  }
  const report = [...lines, '', ...table].join('\n');
  console.log(report);
  mkdirSync(path.dirname(REPORT_FILE), { recursive: true });
  writeFileSync(REPORT_FILE, `${report}\n`);
  if (write) {
    await writeParams(all);
    console.log(`\nWrote ${path.relative(repoRoot, PARAMS_FILE)}.`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv.slice(2));
