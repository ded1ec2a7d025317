/**
 * The compressor's trainer (bench/train-compressor.ts): the logistic fit recovers known weights from
 * synthetic units, deterministically, and gives each domain the same weight.
 */
import { describe, expect, it } from 'vitest';
import { FEATURE_NAMES } from 'pagewise/extractive';
import { seededRandom } from 'pagewise/internal';
import { evalSplitArgument, fitLogistic, pairSamples, type UnitSample } from '../bench/train-compressor.js';

const RELEVANCE = FEATURE_NAMES.indexOf('relevance');
const LIST_ITEM = FEATURE_NAMES.indexOf('listItem');

/** Units whose label follows σ(3·relevance − 2·listItem − 1); the other features are noise. */
function synthetic(count: number, seed: number, domain = 'a'): UnitSample[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const features = FEATURE_NAMES.map(() => random());
    const logit = 3 * (features[RELEVANCE] ?? 0) - 2 * (features[LIST_ITEM] ?? 0) - 1;
    return { x: features, y: random() < 1 / (1 + Math.exp(-logit)) ? 1 : 0, domain, item: Math.floor(random() * 50) };
  });
}

describe('fitLogistic', () => {
  it('recovers the weights that generated the labels', () => {
    const fit = fitLogistic(synthetic(6000, 3), undefined, 0);
    expect(fit.weights[RELEVANCE]).toBeGreaterThan(2.4);
    expect(fit.weights[RELEVANCE]).toBeLessThan(3.6);
    expect(fit.weights[LIST_ITEM]).toBeLessThan(-1.4);
    expect(fit.weights[LIST_ITEM]).toBeGreaterThan(-2.6);
    const noise = fit.weights.filter((_, i) => i !== RELEVANCE && i !== LIST_ITEM);
    for (const weight of noise) expect(Math.abs(weight)).toBeLessThan(0.4);
    expect(fit.bias).toBeLessThan(-0.4);
  });

  it('is deterministic, leaves dropped features at 0 and shrinks weights under L2', () => {
    const samples = synthetic(2000, 5);
    expect(fitLogistic(samples)).toEqual(fitLogistic(samples));
    const without = fitLogistic(
      samples,
      FEATURE_NAMES.map((_, i) => i).filter((i) => i !== RELEVANCE),
    );
    expect(without.weights[RELEVANCE]).toBe(0);
    const strong = fitLogistic(samples, undefined, 1);
    expect(Math.abs(strong.weights[RELEVANCE] ?? 0)).toBeLessThan(
      Math.abs(fitLogistic(samples).weights[RELEVANCE] ?? 0),
    );
  });

  it('weighs each domain the same, however many units it has', () => {
    // Domain b's labels follow the opposite relevance weight; with 10× the units, it would dominate an
    // unweighted fit. Weighted per domain, the two cancel to about 0.
    const domainA = synthetic(4000, 7, 'a');
    const domainB = synthetic(400, 8, 'b').map((s) => ({ ...s, x: s.x.map((v, i) => (i === RELEVANCE ? 1 - v : v)) }));
    const fit = fitLogistic([...domainA, ...domainB], undefined, 0);
    expect(Math.abs(fit.weights[RELEVANCE] ?? 0)).toBeLessThan(0.8);
    expect(fitLogistic(domainA, undefined, 0).weights[RELEVANCE]).toBeGreaterThan(2.4);
  });

  it('orders units within an item when fitted on pairs', () => {
    const pairs = pairSamples(synthetic(3000, 11));
    expect(pairs.length % 2).toBe(0);
    // Each pair comes with its mirror.
    expect(pairs[1]?.x).toEqual(pairs[0]?.x.map((v) => -v));
    const fit = fitLogistic(pairs, undefined, 0);
    expect(fit.weights[RELEVANCE]).toBeGreaterThan(1.5);
    expect(fit.weights[LIST_ITEM]).toBeLessThan(-1);
    expect(Math.abs(fit.bias)).toBeLessThan(1e-6);
  });

  it('refuses an empty sample', () => {
    expect(() => fitLogistic([])).toThrow(/no samples/u);
  });
});

describe('evalSplitArgument', () => {
  it('defaults to the test split, takes tune, and refuses anything else', () => {
    expect(evalSplitArgument([])).toBe('test');
    expect(evalSplitArgument(['--no-write', '--eval-split', 'tune'])).toBe('tune');
    expect(evalSplitArgument(['--eval-split', 'test'])).toBe('test');
    expect(() => evalSplitArgument(['--eval-split'])).toThrow(/test` or `tune/u);
    expect(() => evalSplitArgument(['--eval-split', 'train'])).toThrow(/test` or `tune/u);
  });
});
