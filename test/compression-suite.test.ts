/**
 * The multi-domain compression suite (bench/compression-eval/suite.ts): every set whose data is present
 * has items on both sides of its split, the split is stable, and each item's grader can fail: the whole
 * input keeps all its evidence, an empty output none, and a unit labelled as evidence exists.
 */
import { describe, expect, it } from 'vitest';
import { hashedSplit, suiteItems, type SuiteItem } from '../bench/compression-eval/suite.js';
import { runSuite } from '../bench/compression-eval/suite-run.js';

const items: SuiteItem[] = await suiteItems();

describe('multi-domain compression suite', () => {
  it('has a tuning and a test side for every set', () => {
    const sets = new Map<string, Set<string>>();
    for (const item of items) sets.set(item.set, (sets.get(item.set) ?? new Set()).add(item.split));
    for (const [set, splits] of sets) expect([set, [...splits].sort()]).toEqual([set, ['test', 'tune']]);
  });

  it('splits by a stable hash', () => {
    expect(hashedSplit('task_001')).toBe(hashedSplit('task_001'));
    const sides = new Set(Array.from({ length: 40 }, (_, i) => hashedSplit(`task_${i}`)));
    expect(sides.size).toBe(2);
  });

  it('grades the whole input as complete and an empty output as nothing kept', () => {
    for (const item of items.filter((_, i) => i % 7 === 0)) {
      expect(item.evidenceCount).toBeGreaterThan(0);
      expect([item.id, item.kept(item.text)]).toEqual([item.id, item.evidenceCount]);
      expect([item.id, item.kept('')]).toEqual([item.id, 0]);
    }
  });

  it('runs the baselines at the achieved ratio of the compressor on the new sets', () => {
    const sample = items.filter(
      (item) => ['banking', 'telecom', 'retail'].includes(item.domain) && item.split === 'test',
    );
    if (sample.length === 0) return;
    const figures = runSuite(
      sample.filter((_, i) => i % 5 === 0),
      [{ name: 'head', compress: (item) => item.text.slice(0, Math.floor(item.text.length / 2)) }],
    );
    for (const set of figures) {
      const [ours, head] = [set.methods[0], set.methods.find((m) => m.method === 'truncate-head')];
      expect(head?.meanRatio).toBeCloseTo(ours?.meanRatio ?? -1, 6);
      for (const method of set.methods) expect(method.recall).toBeGreaterThanOrEqual(0);
    }
  });
});
