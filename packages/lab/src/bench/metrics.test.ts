import { describe, expect, it } from 'vitest';
import { emptyParts, type LedgerEntry, type PartTokens } from '../../../pagewise/src/tokens/ledger.js';
import { ledgerCostUsd, ledgerFloorUsd, mean, median, summarizeStrategy } from './metrics.js';
import type { EpisodeOutcome } from './scenario.js';

function entry(
  index: number,
  kind: LedgerEntry['kind'],
  model: string,
  parts: Partial<PartTokens>,
  completionTokens: number,
  frameworkMs: number,
  extra: Partial<LedgerEntry> = {},
): LedgerEntry {
  const full = { ...emptyParts(), ...parts };
  const promptTokens = Object.values(full).reduce((a, b) => a + b, 0);
  return {
    index,
    kind,
    agent: kind === 'agent' ? 'a' : 'compressor',
    model,
    invocationId: 'i',
    parts: full,
    promptTokens,
    completionTokens,
    modelMs: 5,
    frameworkMs,
    at: 0,
    ...extra,
  };
}

// Hand-checked episode A: two agent calls and one compressor call.
//   call 0: prompt 100+50+20+30 = 200 (no-system part: history 50 + observation 20 = 70), completion 10
//   compressor: prompt 40, completion 5
//   call 2: prompt 100+10+200+40+30 = 380 (no-system: 200 + 40 = 240), completion 20
const episodeA: LedgerEntry[] = [
  entry(0, 'agent', 'lab:x', { instruction: 100, history: 50, observation: 20, tools: 30 }, 10, 1),
  entry(1, 'compressor', 'test:model', { observation: 40 }, 5, 0),
  entry(2, 'agent', 'lab:x', { instruction: 100, paged: 10, history: 200, observation: 40, tools: 30 }, 20, 3),
];
// Episode B: one agent call of 60 + 40 = 100 prompt tokens (provider says 110), completion 4.
const episodeB: LedgerEntry[] = [
  entry(0, 'agent', 'lab:x', { instruction: 60, history: 40 }, 4, 2, { providerPromptTokens: 110 }),
];

const outcome = (taskId: string, ledger: LedgerEntry[], extra: Partial<EpisodeOutcome> = {}): EpisodeOutcome => ({
  taskId,
  strategy: 's',
  success: false,
  answer: '',
  ledger,
  windowFailure: false,
  wallMs: 100,
  ...extra,
});

const prices = { 'test:model': { inputPerMTok: 2, outputPerMTok: 8 } };

describe('summarizeStrategy on a hand-checked ledger', () => {
  const row = summarizeStrategy(
    's',
    4,
    [
      outcome('a', episodeA, { success: true, evidenceRecall: 0.5 }),
      outcome('b', episodeB, { windowFailure: true, error: 'too big' }),
    ],
    {
      model: 'test:model',
      prices,
    },
  );

  it('averages per-episode token figures and keeps the largest peak', () => {
    expect(row.runs).toBe(2);
    expect(row.n).toBe(4);
    expect(row.successRate).toBe(0.5);
    expect(row.peakPromptTokens).toBe((380 + 100) / 2);
    expect(row.peakPromptTokensMax).toBe(380);
    expect(row.peakPromptTokensNoSystem).toBe((240 + 40) / 2);
    expect(row.cumulativePromptTokens).toBe((200 + 380 + 100) / 2);
    expect(row.completionTokens).toBe((10 + 20 + 4) / 2);
    expect(row.compressorTokens).toBe((40 + 5 + 0) / 2);
    expect(row.modelCalls).toBe((3 + 1) / 2);
  });

  it('computes the dependency Σ (n_in + 2·n_out)·n_out / 2 over agent calls only', () => {
    const dependencyA = ((200 + 2 * 10) * 10) / 2 + ((380 + 2 * 20) * 20) / 2; // 1100 + 4200
    const dependencyB = ((100 + 2 * 4) * 4) / 2; // 216
    expect([dependencyA, dependencyB]).toEqual([5300, 216]);
    expect(row.dependency).toBe((dependencyA + dependencyB) / 2);
  });

  it('takes the median framework time over agent steps, sums wall time and counts failures', () => {
    expect(row.overheadMsPerStep).toBe(2); // median of 1, 3, 2; the compressor's 0 is not a step
    expect(row.wallMs).toBe(200);
    expect(row.windowFailures).toBe(1);
    expect(row.errors).toBe(1);
  });

  it('averages evidence recall over the episodes that define it, null when none does', () => {
    expect(row.evidenceRecall).toBe(0.5);
    expect(row.exactMatch).toBeNull();
    expect(row.f1).toBeNull();
  });

  it('prices agent calls by the bench model and prefers provider-reported tokens', () => {
    // A: (200 + 380 + 40) input and (10 + 20 + 5) output tokens at $2 / $8 per million.
    const costA = (620 * 2 + 35 * 8) / 1e6;
    // B: the provider's 110 prompt tokens, 4 output tokens.
    const costB = (110 * 2 + 4 * 8) / 1e6;
    expect(row.costUsd).toBeCloseTo((costA + costB) / 2, 12);
    expect(row.totalCostUsd).toBeCloseTo(costA + costB, 12);
  });
});

describe('ledgerCostUsd', () => {
  it('is undefined when a compressor call uses a model with no price', () => {
    const ledger = [
      entry(0, 'agent', 'lab:x', { history: 10 }, 1, 0),
      entry(1, 'compressor', 'unknown:m', { history: 10 }, 1, 0),
    ];
    expect(ledgerCostUsd(ledger, prices, 'test:model')).toBeUndefined();
    expect(summarizeStrategy('s', null, [outcome('a', ledger)], { model: 'test:model', prices }).costUsd).toBeNull();
  });

  it('prices a call by its own model label before the bench model', () => {
    const ledger = [entry(0, 'agent', 'own:m', { history: 1_000_000 }, 0, 0)];
    expect(ledgerCostUsd(ledger, { ...prices, 'own:m': { inputPerMTok: 1, outputPerMTok: 1 } }, 'test:model')).toBe(1);
  });
});

describe('ledgerFloorUsd', () => {
  const cached = { 'test:cached': { inputPerMTok: 2, cacheReadPerMTok: 0.5, outputPerMTok: 8 } };
  const modelled = (promptTokens: number, readTokens: number) => ({
    modelled: {
      rules: 'openai',
      promptTokens,
      readTokens,
      writeTokens: 0,
      writeLongTtlTokens: 0,
      uncachedTokens: promptTokens - readTokens,
      firstChangedToken: 0,
    },
  });
  // Call 0: 1,000 prompt tokens, none cached, 10 out; call 1: 1,500, of which 1,024 read from the cache, 20 out.
  const calls = [
    entry(0, 'agent', 'lab:x', { history: 1000 }, 10, 0, { cache: modelled(1000, 0) }),
    entry(1, 'agent', 'lab:x', { history: 1500 }, 20, 0, { cache: modelled(1500, 1024) }),
  ];

  it('pays the pages once at the uncached price and every other prompt token at the cached price', () => {
    // (1,000 + 1,500) × 0.5 + 30 × 8 + 600 × (2 - 0.5) = 1,250 + 240 + 900.
    expect(ledgerFloorUsd(calls, 600, cached, 'test:cached')).toBeCloseTo(2390 / 1e6, 12);
    // What the calls cost: 1,476 uncached × 2 + 1,024 read × 0.5 + 30 × 8.
    expect(ledgerCostUsd(calls, cached, 'test:cached')).toBeCloseTo(3704 / 1e6, 12);
  });

  it('caps the page tokens at the prompt tokens, and counts a compressor call as billed', () => {
    expect(ledgerFloorUsd(calls, 10_000, cached, 'test:cached')).toBeCloseTo((1250 + 240 + 2500 * 1.5) / 1e6, 12);
    const withCompressor = [...calls, entry(2, 'compressor', 'test:cached', { observation: 100 }, 5, 0)];
    expect(ledgerFloorUsd(withCompressor, 600, cached, 'test:cached')).toBeCloseTo((2390 + 100 * 2 + 5 * 8) / 1e6, 12);
  });

  it('is undefined without a price or an agent call', () => {
    expect(ledgerFloorUsd(calls, 600, cached, 'unknown:m')).toBeUndefined();
    expect(ledgerFloorUsd([], 0, cached, 'test:cached')).toBeUndefined();
  });

  it('gives the strategy row its floor and cost ÷ floor only when every episode counts its pages', () => {
    const options = { model: 'test:cached', prices: cached };
    const row = summarizeStrategy('s', null, [outcome('a', calls, { pageTokens: 600 })], options);
    expect(row.floorCostUsd).toBeCloseTo(2390 / 1e6, 12);
    expect(row.costToFloor).toBeCloseTo(3704 / 2390, 9);
    const partial = summarizeStrategy(
      's',
      null,
      [outcome('a', calls, { pageTokens: 600 }), outcome('b', calls)],
      options,
    );
    expect(partial.floorCostUsd).toBeNull();
    expect(partial.costToFloor).toBeNull();
  });
});

describe('mean and median', () => {
  it('handle empty, odd and even inputs', () => {
    expect(mean([])).toBe(0);
    expect(median([])).toBe(0);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(mean([1, 2, 6])).toBe(3);
  });
});
