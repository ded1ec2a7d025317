import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../../pagewise/src/models/resolve.js';
import { emptyParts, type LedgerEntry } from '../../../pagewise/src/tokens/ledger.js';
import { BENCH_RUNS_SCHEMA, summarizeRuns, type BenchEpisode, type BenchReport, type BenchRuns } from './harness.js';
import {
  BENCH_FILES,
  markdownReport,
  parseRuns,
  readPrices,
  readRuns,
  rebuildReport,
  resultsJson,
  writeBenchOutput,
  writeResultsJson,
} from './report.js';

const ledger = (prompts: number[]): LedgerEntry[] =>
  prompts.map((prompt, index) => ({
    index,
    kind: 'agent',
    agent: 'a',
    model: 'openai.responses:gpt-4.1-mini',
    invocationId: 'i',
    parts: { ...emptyParts(), instruction: 50, history: prompt - 50 },
    promptTokens: prompt,
    completionTokens: 10,
    modelMs: 1,
    frameworkMs: 0.5,
    at: 0,
  }));

const episode = (strategy: string, size: number, success: boolean, prompts: number[]): BenchEpisode => ({
  taskId: `t-${strategy}-${size}`,
  strategy,
  n: size,
  success,
  answer: success ? 'Answer: 1' : 'Answer: unknown',
  ledger: ledger(prompts),
  evidenceRecall: success ? 1 : 0.25,
  windowFailure: false,
  wallMs: 20,
});

function sampleRuns(): BenchRuns {
  return {
    schema: BENCH_RUNS_SCHEMA,
    scenario: 'multi-objective-qa',
    model: 'openai:gpt-4.1-mini',
    params: { strategies: ['none', 'fifo'], n: [2, 4], tasks: 1, seed: 1, contextWindow: null },
    prices: { ...DEFAULT_PRICES },
    startedAt: '2025-01-01T00:00:00.000Z',
    wallMs: 80,
    episodes: [
      episode('none', 2, true, [100, 300]),
      episode('none', 4, true, [100, 600]),
      episode('fifo', 2, true, [100, 200]),
      episode('fifo', 4, false, [100, 250]),
    ],
  };
}
const sampleReport = (): BenchReport => ({ runs: sampleRuns(), results: summarizeRuns(sampleRuns()) });

describe('markdownReport', () => {
  const text = markdownReport(sampleReport());

  it('has one row per strategy and N, with the figures of each', () => {
    const rows = text.split('\n').filter((l) => /^\| (none|fifo) \|/.test(l));
    expect(rows).toHaveLength(4);
    expect(rows[1]).toMatch(/^\| none \| 4 \| 1 \| 100% \| 600 \(600\) \| 550 \|/);
    expect(rows[3]).toMatch(/^\| fifo \| 4 \| 1 \| 0% \|/);
    expect(text).toContain('| evidence recall |');
  });

  it('names the model and the parameters, and leaves out columns no row has', () => {
    expect(text).toMatch(/^## multi-objective-qa: openai:gpt-4.1-mini/);
    expect(text).toContain('N 2, 4 · 1 tasks per strategy and N · seed 1');
    expect(text).not.toContain('| EM |');
  });

  it('shows the floor and cost ÷ floor only when the episodes count their pages', () => {
    expect(text).not.toContain('÷ floor');
    const runs = sampleRuns();
    const counted = { ...runs, episodes: runs.episodes.map((e) => ({ ...e, pageTokens: 40 })) };
    const withFloor = markdownReport(rebuildReport(counted));
    expect(withFloor).toContain('| floor/episode | ÷ floor |');
    // none at N 2: 400 prompt tokens, 20 out at gpt-4.1-mini's $0.4 / $0.1 cached / $1.6: no cache figures, so
    // all of it uncached; the floor pays 40 page tokens at $0.4 and the other 360 at $0.1.
    const floor = (40 * 0.4 + 360 * 0.1 + 20 * 1.6) / 1e6;
    const cost = (400 * 0.4 + 20 * 1.6) / 1e6;
    const row = withFloor.split('\n').find((l) => l.startsWith('| none | 2 |'))!;
    expect(row).toContain(`| $${floor.toFixed(5)} | ${(cost / floor).toFixed(2)}× |`);
    expect(withFloor).toContain('Floor = the cost if every distinct page');
    expect(resultsJson(rebuildReport(counted)).results[0]!.costToFloor).toBeCloseTo(cost / floor, 9);
  });

  it('says plainly that the offline model is not an LLM', () => {
    const report = sampleReport();
    const offline = rebuildReport({ ...report.runs, model: 'offline' });
    expect(markdownReport(offline)).toContain('not an LLM');
  });
});

describe('results JSON', () => {
  it('has the documented shape (schema 1)', () => {
    const json = resultsJson(sampleReport());
    expect(Object.keys(json)).toEqual(['schema', 'scenario', 'params', 'model', 'results']);
    expect(json.schema).toBe(1);
    for (const key of [
      'strategy',
      'runs',
      'successRate',
      'peakPromptTokens',
      'peakPromptTokensNoSystem',
      'cumulativePromptTokens',
      'completionTokens',
      'compressorTokens',
      'modelCalls',
      'dependency',
      'evidenceRecall',
      'overheadMsPerStep',
      'windowFailures',
      'costUsd',
    ]) {
      expect(json.results[0]).toHaveProperty(key);
    }
    // 100 + 300 prompt and 20 completion tokens at the list price of gpt-4.1-mini.
    expect(json.results[0]?.costUsd).toBeCloseTo((400 * 0.4 + 20 * 1.6) / 1e6, 12);
  });
});

describe('saved runs', () => {
  it('round-trip through an output folder and rebuild the same report without a model', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-report-'));
    const report = sampleReport();
    const files = await writeBenchOutput(dir, report);
    expect(files.map((f) => path.basename(f)).sort()).toEqual(
      ['peak-vs-n.svg', 'prompt-tokens-per-call.svg', BENCH_FILES.table, BENCH_FILES.results, BENCH_FILES.runs].sort(),
    );
    const rebuilt = rebuildReport(await readRuns(dir));
    expect(rebuilt.results).toEqual(report.results);
    expect(markdownReport(rebuilt)).toBe(markdownReport(report));
    expect(JSON.parse(readFileSync(path.join(dir, BENCH_FILES.results), 'utf8'))).toEqual(
      JSON.parse(JSON.stringify(resultsJson(report))),
    );
  });

  it('reprices a rebuilt report with an overriding price table', () => {
    const rebuilt = rebuildReport(sampleRuns(), {
      prices: { 'openai:gpt-4.1-mini': { inputPerMTok: 1, outputPerMTok: 0 } },
    });
    expect(rebuilt.results[0]?.costUsd).toBeCloseTo(400 / 1e6, 12);
  });

  it('keep the compactions of a call, so a rebuilt report still shows which calls rewrote their prompt', () => {
    const runs = sampleRuns();
    const episode = runs.episodes[0]!;
    const marked = { ...runs, episodes: [{ ...episode, ledger: [{ ...episode.ledger[0]!, compactions: 2 }] }] };
    const read = parseRuns(JSON.parse(JSON.stringify(marked)), 'x/runs.json');
    expect(read.episodes[0]?.ledger[0]?.compactions).toBe(2);
    expect(() =>
      parseRuns({ ...marked, episodes: [{ ...episode, ledger: [{ ...episode.ledger[0]!, compactions: 0 }] }] }, 'x'),
    ).toThrow(/not a pagewise bench runs file/);
  });

  it('are validated when read, with the file named in the error', () => {
    const bad = { ...sampleRuns(), episodes: [{ taskId: 1 }] };
    expect(() => parseRuns(bad, 'x/runs.json')).toThrow(/x\/runs\.json is not a pagewise bench runs file/);
    expect(() => parseRuns({ ...sampleRuns(), schema: 99 }, 'x/runs.json')).toThrow(/runs schema 99.*reads 1/);
  });

  it('names the file that cannot be read or parsed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-report-'));
    await expect(readRuns(path.join(dir, 'missing.json'))).rejects.toThrow(/Cannot read .*missing\.json/);
    writeFileSync(path.join(dir, 'runs.json'), '{ not json');
    await expect(readRuns(dir)).rejects.toThrow(/runs\.json is not valid JSON/);
  });

  it('writes the results JSON alone with --json', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pagewise-report-')), 'sub', 'r.json');
    await writeResultsJson(file, sampleReport());
    expect(JSON.parse(readFileSync(file, 'utf8')).results).toHaveLength(4);
  });
});

describe('readPrices', () => {
  it('reads a price table and rejects a malformed one', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-prices-'));
    writeFileSync(path.join(dir, 'ok.json'), JSON.stringify({ 'x:y': { inputPerMTok: 1, outputPerMTok: 2 } }));
    writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ 'x:y': { input: 1 } }));
    expect(await readPrices(path.join(dir, 'ok.json'))).toEqual({ 'x:y': { inputPerMTok: 1, outputPerMTok: 2 } });
    await expect(readPrices(path.join(dir, 'bad.json'))).rejects.toThrow(/bad\.json is not a price table/);
  });
});

describe('cost with the prompt cache in the report', () => {
  /** Two calls of 2,000 prompt tokens: the second reads 1,920 of them from the cache. */
  const cachedRuns = (): BenchRuns => {
    const runs = sampleRuns();
    const withCache = (entries: LedgerEntry[]): LedgerEntry[] =>
      entries.map((entry, index) => ({
        ...entry,
        promptTokens: 2000,
        cache: {
          modelled: {
            rules: 'openai',
            promptTokens: 2000,
            readTokens: index === 0 ? 0 : 1920,
            writeTokens: 0,
            writeLongTtlTokens: 0,
            uncachedTokens: index === 0 ? 2000 : 80,
            firstChangedToken: index === 0 ? 0 : 1990,
          },
        },
      }));
    return { ...runs, episodes: runs.episodes.map((e) => ({ ...e, ledger: withCache(e.ledger) })) };
  };

  it('shows the hit rate and prices cache reads at the cached price of the entry priced as', () => {
    const report = rebuildReport(cachedRuns(), { priceAs: 'openai:gpt-4.1' });
    const row = report.results[0]!;
    expect(row.cacheHitRate).toBeCloseTo(1920 / 4000, 12);
    // gpt-4.1: $2 input, $0.50 cached, $8 output per million.
    expect(row.costUsd).toBeCloseTo((2080 * 2 + 1920 * 0.5 + 20 * 8) / 1e6, 12);
    const text = markdownReport(report);
    expect(text).toMatch(/\| cache hit \|/);
    expect(text).toContain('| 48% |');
    expect(text).toMatch(/priced as openai:gpt-4\.1 \(built-in list prices as of \d{4}-\d\d-\d\d, to be checked/);
  });

  it('keeps reading saved runs without cache figures, and says when a price has no cache prices', () => {
    const old = rebuildReport(sampleRuns(), {
      prices: { 'openai:gpt-4.1-mini': { inputPerMTok: 1, outputPerMTok: 0 } },
    });
    expect(old.results[0]?.cacheHitRate).toBeNull();
    const text = markdownReport(old);
    expect(text).not.toMatch(/\| cache hit \|/);
    expect(text).toContain('Without cache prices (cache reads and writes priced as input): openai:gpt-4.1-mini.');
    expect(
      parseRuns(JSON.parse(JSON.stringify(cachedRuns())), 'runs.json').episodes[0]?.ledger[1]?.cache?.modelled
        .readTokens,
    ).toBe(1920);
  });

  it('reads a price table with cache prices and rejects a negative one', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-prices-'));
    const table = {
      'x:y': {
        inputPerMTok: 3,
        outputPerMTok: 15,
        cacheReadPerMTok: 0.3,
        cacheWritePerMTok: 3.75,
        cacheWrite1hPerMTok: 6,
      },
    };
    writeFileSync(path.join(dir, 'cache.json'), JSON.stringify(table));
    writeFileSync(
      path.join(dir, 'negative.json'),
      JSON.stringify({ 'x:y': { ...table['x:y'], cacheReadPerMTok: -1 } }),
    );
    expect(await readPrices(path.join(dir, 'cache.json'))).toEqual(table);
    await expect(readPrices(path.join(dir, 'negative.json'))).rejects.toThrow(/negative\.json is not a price table/);
  });
});
