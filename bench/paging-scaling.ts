/**
 * Instruction paging against the naive strategy as the corpus grows: N ∈ {10, 50, 164, 500, 1000}
 * reports, offline model, window check off (`--window 0`) so `none` can be measured past 128k, plus
 * the default-window run that shows `none` failing. Prints peak and cumulative prompt tokens, model
 * calls and success per strategy, and checks the paging targets.
 */
import { ContextWindowExceededError } from 'pagewise';
import {
  generateQuestions,
  generateReports,
  inMemoryCorpus,
  isCorrect,
  runReportAnalysis,
  type ReportStrategy,
  createRng,
} from '@pagewise/lab/scenarios/report-analysis';
import { seededFenceBoundary } from 'pagewise/internal';

interface Row {
  n: number;
  strategy: ReportStrategy;
  success: number;
  peak: number;
  cumulative: number;
  calls: number;
  base: number;
}

/** Runs the scaling benchmark: `questions` questions per N, `none` only up to `noneMax` reports. */
export async function pagingScaling(
  options: { sizes?: number[]; questions?: number; noneMax?: number; seed?: number } = {},
): Promise<Row[]> {
  const sizes = options.sizes ?? [10, 50, 164, 500, 1000];
  const seed = options.seed ?? 1;
  const rows: Row[] = [];
  for (const reportCount of sizes) {
    const reports = generateReports(reportCount, seed);
    const corpus = inMemoryCorpus(reports);
    const questions = generateQuestions(reports, seed, options.questions ?? 5);
    for (const strategy of ['none', 'paging'] as ReportStrategy[]) {
      if (strategy === 'none' && reportCount > (options.noneMax ?? 164)) continue;
      let ok = 0;
      let peak = 0;
      let cumulative = 0;
      let calls = 0;
      let base = 0;
      for (const question of questions) {
        // A seeded boundary keeps token counts identical from run to run.
        const rng = createRng(seed);
        const boundary = seededFenceBoundary(rng.next);
        const result = await runReportAnalysis({
          corpus,
          question: question.text,
          strategy,
          contextWindow: 0,
          boundary,
        });
        if (isCorrect(result.text, question.gold)) ok += 1;
        const summary = result.ledger.summary;
        peak = Math.max(peak, summary.peakPromptTokens);
        cumulative += summary.cumulativePromptTokens;
        calls += summary.modelCalls;
        // The paging target's reference: instruction + tool schemas + largest batch + saved results.
        for (const entry of result.ledger.entries)
          base = Math.max(base, entry.parts.instruction + entry.parts.tools + entry.parts.paged);
      }
      rows.push({
        n: reportCount,
        strategy,
        success: ok / questions.length,
        peak,
        cumulative: cumulative / questions.length,
        calls: calls / questions.length,
        base,
      });
    }
  }
  return rows;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Prints the benchmark and the targets. */
export async function main(): Promise<void> {
  const rows = await pagingScaling();
  console.log('\n## paging-scaling: report analysis, none vs paging (offline model, --window 0)\n');
  console.log('| N | strategy | success | peak prompt tokens | cumulative prompt tokens (mean) | model calls (mean) |');
  console.log('|---:|---|---:|---:|---:|---:|');
  for (const row of rows)
    console.log(
      `| ${row.n} | ${row.strategy} | ${(row.success * 100).toFixed(0)}% | ${fmt(row.peak)} | ${fmt(row.cumulative)} | ${row.calls.toFixed(1)} |`,
    );
  const pagingAt = (n: number) => rows.find((r) => r.n === n && r.strategy === 'paging');
  const none164 = rows.find((r) => r.n === 164 && r.strategy === 'none');
  const p50 = pagingAt(50);
  const p1000 = pagingAt(1000);
  const p164 = pagingAt(164);
  if (p50 && p1000)
    console.log(
      `\nPaging peak N=1000 vs N=50: ${(((p1000.peak - p50.peak) / p50.peak) * 100).toFixed(1)}% (target within 5%).`,
    );
  for (const row of rows.filter((x) => x.strategy === 'paging'))
    console.log(
      `Paging peak / (instruction + tools + largest batch + saved results) at N=${row.n}: ${(row.peak / row.base).toFixed(3)} (target ≤ 1.15).`,
    );
  if (p164 && none164)
    console.log(
      `Paging cumulative / none cumulative at N=164: ${((p164.cumulative / none164.cumulative) * 100).toFixed(1)}% (target ≤ 15%).`,
    );
  const reports = generateReports(164, 1);
  const question = generateQuestions(reports, 1, 1)[0]!;
  const err = await runReportAnalysis({
    corpus: inMemoryCorpus(reports),
    question: question.text,
    strategy: 'none',
  }).catch((e: unknown) => e);
  console.log(
    `With the default 128k window, none at N=164: ${err instanceof ContextWindowExceededError ? `fails (${fmt(err.promptTokens)} prompt tokens)` : 'did not fail'}.`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
