/**
 * `npm run train:compressor`: fits the extractive compressor's learned scorer (a logistic regression over
 * the unit features of packages/pagewise/src/compression/extractive/features.ts) on the tuning splits of the
 * multi-domain suite (bench/compression-eval/suite.ts), writes the parameters to
 * packages/pagewise/src/compression/extractive/fitted-params.ts, and prints a training report (also written to
 * bench-out/train-compressor.md): each feature's weight, an ablation (drop one feature, refit, measure
 * recall on the test splits), and per set the recall of the model fitted without its domain
 * (leave-one-domain-out) beside the in-domain model, the heuristic scorer and the baselines.
 *
 * Labels: a unit is positive when it holds gold evidence of its item (the suite's `holds`). Every
 * positive unit is used, and up to {@link MAX_NEGATIVES} negatives per item, drawn with the seeded
 * generator; each domain weighs the same in the loss. Fitting is Newton's method on the L2-penalized
 * weighted log-loss: deterministic, seconds on one core. With `--pairwise` the same fit runs on pairs of
 * units of one item instead ({@link pairSamples}), which orders units within an input directly.
 *
 * Teacher labels: `--teacher <calls.db>` adds the observation calls an LLM compressor made in successful
 * episodes (the database `pagewise optimize` recorded them in, which `pagewise distill export` reads) as
 * one more domain, `teacher`: a unit is positive when the teacher kept it (compression-eval/teacher.ts).
 * Its tuning split joins the fit; its test split is reported as the teacher-agreement recall. A database that
 * adds nothing to the fit (only extractive calls, no value kept, every usable call in the test split) stops the
 * run before any training, with the counts and exit code 1; calls left out, or none to measure, are printed.
 *
 * Evaluation split: the ablation and the leave-one-domain-out table are measured on the test splits by
 * default. `--eval-split tune` measures them on the tuning splits instead (the items the weights are fitted
 * on, so the in-domain column is not held out there): design decisions are made on these figures, and the
 * test split is looked at once, at the end.
 *
 * Usage: PAGEWISE_SHARED_DATA=<data folder> npm run train:compressor [-- --no-write] [--no-ablation] [--pairwise]
 *        [--teacher <calls.db>] [--eval-split test|tune] [--filings]
 *
 * `--filings` adds the real 10-Q filing pages (bench/compression-eval/filings.ts) as one more domain.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { DEFAULT_EXTRACTIVE_RULES } from 'pagewise/compression';
import {
  compressExtractive,
  compressWithProbe,
  FEATURE_NAMES,
  FEATURES_VERSION,
  type ScorerParams,
} from 'pagewise/extractive';
import { seededRandom } from 'pagewise/internal';
import { seededShuffle } from '../packages/lab/src/util/seeded-shuffle.js';
import { suiteItems, type Split, type SuiteItem } from './compression-eval/suite.js';
import { readTeacher, teacherNotes, TeacherUnusable } from './compression-eval/teacher.js';
import { runSuite, SUITE_TAU, suiteTable, type ItemCompressor } from './compression-eval/suite-run.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PARAMS_FILE = path.join(repoRoot, 'packages/pagewise/src/compression/extractive/fitted-params.ts');
const REPORT_FILE = path.join(repoRoot, 'bench-out/train-compressor.md');

/** Seed of the negative sampling. */
export const SEED = 26;
/** L2 penalty on the weights (the bias is not penalized), on the weighted mean log-loss. */
export const L2 = 1e-3;
/** Negative units drawn per item; all positives are used. */
export const MAX_NEGATIVES = 120;

const RULES = { ...DEFAULT_EXTRACTIVE_RULES, ratio: SUITE_TAU };

/** One labelled unit. */
export interface UnitSample {
  x: number[];
  y: 0 | 1;
  domain: string;
  /** Index of the item the unit is from. */
  item: number;
}

/** The labelled units of `items` (standalone units only: headers and speaker labels are never chosen alone). */
export function unitSamples(items: readonly SuiteItem[], seed = SEED): UnitSample[] {
  const random = seededRandom(seed);
  const samples: UnitSample[] = [];
  for (const [itemIndex, item] of items.entries()) {
    let units: { text: string; features: number[]; standalone: boolean }[] = [];
    compressWithProbe(item.text, { query: item.query, rules: RULES }, (scored) => {
      units = [...units, ...scored];
    });
    // Evidence is counted once: a unit repeating the text of an earlier one adds none.
    const seen = new Set<string>();
    const labelled = units
      .filter((unit) => unit.standalone)
      .map((unit) => ({
        x: unit.features,
        y: item.holds(unit.text) && !seen.has(unit.text) && seen.add(unit.text) ? (1 as const) : (0 as const),
        domain: item.domain,
        item: itemIndex,
      }));
    samples.push(...labelled.filter((s) => s.y === 1));
    samples.push(
      ...seededShuffle(
        labelled.filter((s) => s.y === 0),
        random,
      ).slice(0, MAX_NEGATIVES),
    );
  }
  return samples;
}

/** Pairs drawn per item by {@link pairSamples}. */
export const PAIRS_PER_ITEM = 200;

/**
 * Pairwise samples: per item, up to {@link PAIRS_PER_ITEM} pairs of a unit holding evidence and one that
 * does not (seeded), as the difference of their features labelled 1, and its mirror labelled 0. A logistic
 * fit on them orders units within an input, which is all selection uses; the bias comes out about 0.
 */
export function pairSamples(samples: readonly UnitSample[], seed = SEED): UnitSample[] {
  const random = seededRandom(seed);
  const byItem = new Map<number, UnitSample[]>();
  for (const sample of samples) byItem.set(sample.item, [...(byItem.get(sample.item) ?? []), sample]);
  const pairs: UnitSample[] = [];
  for (const [item, units] of byItem) {
    const positives = units.filter((u) => u.y === 1);
    const negatives = units.filter((u) => u.y === 0);
    if (positives.length === 0 || negatives.length === 0) continue;
    for (let pair = 0; pair < PAIRS_PER_ITEM; pair += 1) {
      const positive = positives[Math.floor(random() * positives.length)]!;
      const negative = negatives[Math.floor(random() * negatives.length)]!;
      const diff = positive.x.map((v, i) => v - (negative.x[i] ?? 0));
      pairs.push({ x: diff, y: 1, domain: positive.domain, item });
      pairs.push({ x: diff.map((v) => -v), y: 0, domain: positive.domain, item });
    }
  }
  return pairs;
}

/**
 * Solves `coefficients · x = constants` (coefficients symmetric positive definite) by Gaussian elimination with
 * partial pivoting.
 */
function solve(coefficients: number[][], constants: number[]): number[] {
  const size = constants.length;
  const augmented = coefficients.map((row, i) => [...row, constants[i] ?? 0]);
  for (let col = 0; col < size; col += 1) {
    let pivot = col;
    for (let below = col + 1; below < size; below += 1)
      if (Math.abs(augmented[below]![col]!) > Math.abs(augmented[pivot]![col]!)) pivot = below;
    [augmented[col], augmented[pivot]] = [augmented[pivot]!, augmented[col]!];
    const pivotValue = augmented[col]![col]!;
    for (let other = 0; other < size; other += 1) {
      if (other === col) continue;
      const factor = augmented[other]![col]! / pivotValue;
      if (factor === 0) continue;
      for (let column = col; column <= size; column += 1)
        augmented[other]![column]! -= factor * augmented[col]![column]!;
    }
  }
  return augmented.map((row, i) => row[size]! / row[i]!);
}

/**
 * Fits σ(bias + w·x) to the samples on the features in `active` (the others get weight 0), each domain
 * weighing the same: Newton's method on the L2-penalized weighted mean log-loss.
 */
export function fitLogistic(
  samples: readonly UnitSample[],
  active: readonly number[] = FEATURE_NAMES.map((_, i) => i),
  l2 = L2,
): { weights: number[]; bias: number } {
  if (samples.length === 0) throw new Error('fitLogistic: no samples');
  const perDomain = new Map<string, number>();
  for (const sample of samples) perDomain.set(sample.domain, (perDomain.get(sample.domain) ?? 0) + 1);
  const weightOf = (s: UnitSample): number => 1 / ((perDomain.get(s.domain) ?? 1) * perDomain.size);
  const dimensions = active.length + 1; // the bias last
  let beta = new Array<number>(dimensions).fill(0);
  const row = (s: UnitSample): number[] => [...active.map((j) => s.x[j] ?? 0), 1];
  const rows = samples.map(row);
  for (let iteration = 0; iteration < 50; iteration += 1) {
    const gradient = new Array<number>(dimensions).fill(0);
    const hessian = Array.from({ length: dimensions }, () => new Array<number>(dimensions).fill(0));
    samples.forEach((sample, index) => {
      const input = rows[index]!;
      let logit = 0;
      for (let feature = 0; feature < dimensions; feature += 1) logit += beta[feature]! * input[feature]!;
      const probability = 1 / (1 + Math.exp(-logit));
      const weight = weightOf(sample);
      const residual = weight * (probability - sample.y);
      const curvature = weight * probability * (1 - probability);
      for (let feature = 0; feature < dimensions; feature += 1) {
        gradient[feature]! += residual * input[feature]!;
        if (input[feature] === 0) continue;
        for (let other = feature; other < dimensions; other += 1)
          hessian[feature]![other]! += curvature * input[feature]! * input[other]!;
      }
    });
    for (let feature = 0; feature < dimensions; feature += 1) {
      for (let other = 0; other < feature; other += 1) hessian[feature]![other] = hessian[other]![feature]!;
      if (feature < dimensions - 1) {
        gradient[feature]! += l2 * beta[feature]!;
        hessian[feature]![feature]! += l2;
      } else hessian[feature]![feature]! += 1e-9;
    }
    const step = solve(hessian, gradient);
    beta = beta.map((b, j) => b - (step[j] ?? 0));
    if (Math.max(...step.map(Math.abs)) < 1e-7) break;
  }
  const weights = FEATURE_NAMES.map(() => 0);
  active.forEach((j, i) => (weights[j] = beta[i]!));
  return { weights, bias: beta[dimensions - 1]! };
}

/** Parameters in the shipped file's form. */
export function toParams(fit: { weights: number[]; bias: number }, fittedOn: readonly string[]): ScorerParams {
  const round = (v: number): number => Math.round(v * 1e6) / 1e6;
  return {
    version: FEATURES_VERSION,
    features: [...FEATURE_NAMES],
    weights: fit.weights.map(round),
    bias: round(fit.bias),
    fittedOn: [...fittedOn],
    seed: SEED,
    l2: L2,
  };
}

/** The learned compressor with `params`, at the suite's ratio. */
export function learnedCompressor(params: ScorerParams): ItemCompressor {
  return (item) => compressExtractive(item.text, { query: item.query, rules: RULES, scoring: 'learned', params }).text;
}

/** The heuristic compressor, at the suite's ratio. */
export const heuristicCompressor: ItemCompressor = (item) =>
  compressExtractive(item.text, { query: item.query, rules: RULES, scoring: 'heuristic' }).text;

/** Recall per set of one compressor (kept evidence / evidence), and the mean over sets. */
export function recallBySet(items: readonly SuiteItem[], compress: ItemCompressor): Map<string, number> {
  const totals = new Map<string, [number, number]>();
  for (const item of items) {
    const total = totals.get(item.set) ?? [0, 0];
    total[0] += item.kept(compress(item));
    total[1] += item.evidenceCount;
    totals.set(item.set, total);
  }
  return new Map([...totals].map(([set, [k, n]]) => [set, k / Math.max(1, n)]));
}

const macro = (recalls: Map<string, number>): number =>
  [...recalls.values()].reduce((a, b) => a + b, 0) / Math.max(1, recalls.size);

function fittedOnOf(items: readonly SuiteItem[]): string[] {
  return [...new Set(items.map((i) => i.set))].map((set) => `${set} (tuning split)`);
}

function paramsSource(params: ScorerParams): string {
  return `/**
 * Fitted parameters of the extractive compressor's learned scorer (see \`features.ts\`). Written by
 * \`npm run train:compressor\` (bench/train-compressor.ts); do not edit by hand.
 */
import type { ScorerParams } from './features.js';

/** The shipped parameters: logistic-regression weights per feature, fitted on the suite's tuning splits. */
export const EXTRACTIVE_PARAMS: ScorerParams = ${JSON.stringify(params, null, 2)};
`;
}

/** The file after `--teacher`, if given. */
export function teacherArgument(argv: readonly string[]): string | undefined {
  const at = argv.indexOf('--teacher');
  if (at < 0) return undefined;
  const file = argv[at + 1];
  if (file === undefined || file.startsWith('--'))
    throw new Error('--teacher takes the call database recorded by `pagewise optimize` (its --db).');
  return file;
}

/** The split after `--eval-split` (`test` when absent). */
export function evalSplitArgument(argv: readonly string[]): Split {
  const at = argv.indexOf('--eval-split');
  if (at < 0) return 'test';
  const split = argv[at + 1];
  if (split !== 'test' && split !== 'tune') throw new Error('--eval-split takes `test` or `tune`.');
  return split;
}

/**
 * Fits, ablates, runs leave-one-domain-out, writes the parameters and the report. The ablation and the
 * table are measured on `evalSplit` (the test splits by default).
 */
export async function main(
  write = true,
  ablate = true,
  pairwise = false,
  teacher?: string,
  evalSplit: Split = 'test',
  filings = false,
): Promise<void> {
  const started = performance.now();
  // Checked before the suite is read: a teacher that adds nothing stops the run with the reason.
  const read = teacher !== undefined ? await readTeacher(teacher) : undefined;
  const notes = teacher !== undefined && read ? teacherNotes(teacher, read) : [];
  const items = [...(await suiteItems({ filings })), ...(read?.items ?? [])];
  const tune = items.filter((i) => i.split === 'tune');
  const test = items.filter((i) => i.split === evalSplit);
  const units = unitSamples(tune);
  const samples = pairwise ? pairSamples(units) : units;
  const domains = [...new Set(items.map((i) => i.domain))];
  const out: string[] = [];
  const log = (line = ''): void => {
    console.log(line);
    out.push(line);
  };
  log('# Training the extractive compressor’s scorer\n');
  for (const note of notes) log(`${note}\n`);
  log(
    `${units.length} labelled units (${units.filter((s) => s.y === 1).length} holding evidence) from ${tune.length} tuning items of ${domains.length} domains; seed ${SEED}, L2 ${L2}, at most ${MAX_NEGATIVES} negatives per item, each domain weighing the same; objective: ${pairwise ? `pairwise (${samples.length / 2} pairs)` : 'pointwise'}.\n`,
  );
  const all = fitLogistic(samples);
  const params = toParams(all, fittedOnOf(tune));
  const inDomain = recallBySet(test, learnedCompressor(params));
  const heuristic = recallBySet(test, heuristicCompressor);
  log('## Weights\n');
  log('| feature | weight |\n|:---|---:|');
  FEATURE_NAMES.forEach((name, i) => log(`| ${name} | ${params.weights[i]?.toFixed(3)} |`));
  log(`| (bias) | ${params.bias.toFixed(3)} |`);

  log(`\nMeasured on the ${evalSplit === 'test' ? 'test' : 'tuning'} splits.`);
  log(`\n## Ablation: drop one feature, refit on all tuning splits, mean recall over the ${evalSplit} sets\n`);
  log(`All features: ${macro(inDomain).toFixed(3)}; heuristic scorer: ${macro(heuristic).toFixed(3)}.\n`);
  log('| feature dropped | mean recall | change |\n|:---|---:|---:|');
  FEATURE_NAMES.forEach((name, dropped) => {
    if (!ablate) return;
    const fit = fitLogistic(
      samples,
      FEATURE_NAMES.map((_, i) => i).filter((i) => i !== dropped),
    );
    const recall = macro(recallBySet(test, learnedCompressor(toParams(fit, []))));
    log(`| ${name} | ${recall.toFixed(3)} | ${(recall - macro(inDomain)).toFixed(3)} |`);
  });

  log('\n## Leave-one-domain-out\n');
  const lodo = new Map<string, ScorerParams>();
  for (const domain of domains) {
    const fit = fitLogistic(samples.filter((s) => s.domain !== domain));
    lodo.set(domain, toParams(fit, fittedOnOf(tune.filter((i) => i.domain !== domain))));
  }
  const figures = runSuite(test, [
    { name: 'learned, LODO', compress: (item) => learnedCompressor(lodo.get(item.domain)!)(item) },
    { name: 'learned, in-domain', compress: learnedCompressor(params) },
    { name: 'heuristic', compress: heuristicCompressor },
  ]);
  log(suiteTable(figures, evalSplit === 'test' ? 'test split' : 'tuning split'));
  log(
    '\nRatio: the LODO compressor’s mean achieved ratio; every baseline runs at that ratio item by item. Recall: evidence items kept / evidence items.',
  );
  log(`\nTrained and measured in ${((performance.now() - started) / 1000).toFixed(0)} s.`);
  if (write) {
    // Formatted as the repository formats code, so a refit with the same result changes nothing.
    const options = (await resolveConfig(PARAMS_FILE)) ?? {};
    writeFileSync(PARAMS_FILE, await format(paramsSource(params), { ...options, filepath: PARAMS_FILE }));
    mkdirSync(path.dirname(REPORT_FILE), { recursive: true });
    writeFileSync(REPORT_FILE, `${out.join('\n')}\n`);
    console.log(`\nWrote ${path.relative(repoRoot, PARAMS_FILE)} and ${path.relative(repoRoot, REPORT_FILE)}.`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    await main(
      !process.argv.includes('--no-write'),
      !process.argv.includes('--no-ablation'),
      process.argv.includes('--pairwise'),
      teacherArgument(process.argv),
      evalSplitArgument(process.argv),
      process.argv.includes('--filings'),
    );
  } catch (error) {
    if (!(error instanceof TeacherUnusable)) throw error;
    // Nothing was fitted or written: the run asked for teacher labels and there are none to add.
    console.error(`train:compressor: ${error.message}`);
    process.exitCode = 1;
  }
}
