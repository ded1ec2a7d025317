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
  for (const n of sizes) {
    const reports = generateReports(n, seed);
    const corpus = inMemoryCorpus(reports);
    const questions = generateQuestions(reports, seed, options.questions ?? 5);
    for (const strategy of ['none', 'paging'] as ReportStrategy[]) {
      if (strategy === 'none' && n > (options.noneMax ?? 164)) continue;
      let ok = 0;
      let peak = 0;
      let cumulative = 0;
      let calls = 0;
      let base = 0;
      for (const q of questions) {
        // A seeded boundary keeps token counts identical from run to run.
        const rng = createRng(seed);
        const boundary = seededFenceBoundary(rng.next);
        const r = await runReportAnalysis({ corpus, question: q.text, strategy, contextWindow: 0, boundary });
        if (isCorrect(r.text, q.gold)) ok += 1;
        const s = r.ledger.summary;
        peak = Math.max(peak, s.peakPromptTokens);
        cumulative += s.cumulativePromptTokens;
        calls += s.modelCalls;
        // The paging target's reference: instruction + tool schemas + largest batch + saved results.
        for (const e of r.ledger.entries) base = Math.max(base, e.parts.instruction + e.parts.tools + e.parts.paged);
      }
      rows.push({
        n,
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
  for (const r of rows)
    console.log(
      `| ${r.n} | ${r.strategy} | ${(r.success * 100).toFixed(0)}% | ${fmt(r.peak)} | ${fmt(r.cumulative)} | ${r.calls.toFixed(1)} |`,
    );
  const p = (n: number) => rows.find((r) => r.n === n && r.strategy === 'paging');
  const none164 = rows.find((r) => r.n === 164 && r.strategy === 'none');
  const p50 = p(50);
  const p1000 = p(1000);
  const p164 = p(164);
  if (p50 && p1000)
    console.log(
      `\nPaging peak N=1000 vs N=50: ${(((p1000.peak - p50.peak) / p50.peak) * 100).toFixed(1)}% (target within 5%).`,
    );
  for (const r of rows.filter((x) => x.strategy === 'paging'))
    console.log(
      `Paging peak / (instruction + tools + largest batch + saved results) at N=${r.n}: ${(r.peak / r.base).toFixed(3)} (target ≤ 1.15).`,
    );
  if (p164 && none164)
    console.log(
      `Paging cumulative / none cumulative at N=164: ${((p164.cumulative / none164.cumulative) * 100).toFixed(1)}% (target ≤ 15%).`,
    );
  const reports = generateReports(164, 1);
  const q = generateQuestions(reports, 1, 1)[0]!;
  const err = await runReportAnalysis({ corpus: inMemoryCorpus(reports), question: q.text, strategy: 'none' }).catch(
    (e: unknown) => e,
  );
  console.log(
    `With the default 128k window, none at N=164: ${err instanceof ContextWindowExceededError ? `fails (${fmt(err.promptTokens)} prompt tokens)` : 'did not fail'}.`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
