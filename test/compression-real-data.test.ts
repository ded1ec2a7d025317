/**
 * Compression on real data, as `npm run bench` reports it (bench/compression-real-data.ts), with the
 * targets checked: TAT-QA answer evidence, HotpotQA through observationCompressor, generated chats
 * through compressMessages, Japanese report pages against English ones. Sets whose third-party data is
 * absent are skipped with the reason printed. TAT-QA runs every second reported context to keep the
 * test short; the benchmark runs them all.
 */
import { describe, expect, it } from 'vitest';
import {
  evaluateChats,
  evaluateHotpot,
  evaluateReportPages,
  evaluateTatQa,
  realData,
  type SetFigures,
} from '../bench/compression-eval/run.js';

const data = realData();
if (typeof data.tatqa === 'string') console.log(`compression-real-data: TAT-QA skipped, ${data.tatqa}`);
if (typeof data.hotpot === 'string') console.log(`compression-real-data: HotpotQA skipped, ${data.hotpot}`);

const recallOf = (figures: SetFigures, method: string): number => {
  const found = figures.methods.find((m) => m.method.startsWith(method));
  if (!found) throw new Error(`${figures.set}: no method ${method}`);
  return found.recall;
};

describe('compression on real data', () => {
  for (const form of ['markdown', 'cells'] as const) {
    it.skipIf(typeof data.tatqa === 'string')(`TAT-QA, table as ${form}: evidence with labels kept`, () => {
      const figures = evaluateTatQa(data.tatqa as Exclude<typeof data.tatqa, string>, { form, stride: 2 });
      console.table(figures.methods);
      const ours = recallOf(figures, 'pagewise extractive');
      expect(ours).toBeGreaterThanOrEqual(0.85);
      expect(ours - recallOf(figures, 'truncate-head')).toBeGreaterThanOrEqual(0.15);
      expect(ours - recallOf(figures, 'random units')).toBeGreaterThanOrEqual(0.15);
      expect(figures.methods[0]?.maxRatio).toBeLessThanOrEqual(0.5);
    });
  }

  it.skipIf(typeof data.hotpot === 'string')(
    'HotpotQA through observationCompressor: evidence recall ≥ 0.95 with fence and handle within ratio ≤ 0.52',
    async () => {
      // The target: recall at an achieved ratio of at most 0.52, fence and handle counted.
      const figures = await evaluateHotpot((data.hotpot as { file: string }).file, 0.52);
      console.table(figures.methods);
      expect(figures.methods[0]?.maxRatio).toBeLessThanOrEqual(0.52);
      const ours = recallOf(figures, 'observationCompressor');
      expect(ours).toBeGreaterThanOrEqual(0.95);
      expect(ours - recallOf(figures, 'truncate-head')).toBeGreaterThanOrEqual(0.2);
    },
  );

  it('generated chats: compressMessages keeps the evidence turns far better than the last turns', async () => {
    const figures = await evaluateChats([11, 12]);
    console.table(figures.methods);
    const ours = recallOf(figures, 'compressMessages');
    expect(ours).toBeGreaterThanOrEqual(0.8);
    expect(ours - recallOf(figures, 'last turns')).toBeGreaterThanOrEqual(0.2);
    expect(figures.methods[0]?.maxRatio).toBeLessThanOrEqual(0.52);
  });

  it('Japanese report pages compress within 5 points of the English ones, in whole sentences', () => {
    const { figures, cut } = evaluateReportPages();
    const [en, ja] = figures;
    if (!en || !ja) throw new Error('both languages expected');
    console.table([en, ja].map((f) => ({ set: f.set, ...f.methods[0] })));
    expect(Math.abs(recallOf(ja, 'pagewise extractive') - recallOf(en, 'pagewise extractive'))).toBeLessThanOrEqual(
      0.05,
    );
    expect(recallOf(ja, 'pagewise extractive')).toBeGreaterThan(recallOf(ja, 'truncate-head'));
    expect(cut.ja).toEqual([]);
    expect(cut.en).toEqual([]);
  });
});
