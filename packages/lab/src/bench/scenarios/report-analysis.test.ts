import { describe, expect, it } from 'vitest';
import type { ContextProcessor } from '../../../../pagewise/src/context/request.js';
import { createOfflineModel } from '../../../../pagewise/src/models/offline.js';
import { parseFencedPages } from '../../../../pagewise/src/paging/fence.js';
import {
  generateQuestions,
  generateReports,
  inMemoryCorpus,
  isCorrect,
  reportOfflinePolicy,
  runReportAnalysis,
} from '../../scenarios/report-analysis/index.js';
import { runBench } from '../harness.js';
import { registerStandardBench } from '../standard.js';
import { countTokens } from '../../../../pagewise/src/tokens/tokenizer.js';
import { createReportAnalysisScenario, NAIVE_VOLATILE_PREFIX } from './report-analysis.js';

registerStandardBench();

// The mutation: the last page of every batch loses its body before the analyst's prompt is sent.
const dropLastPage: ContextProcessor = {
  name: 'drop-last-page',
  process(request) {
    request.instruction = request.instruction.map((section) => {
      if (section.part !== 'paged') return section;
      const last = parseFencedPages(section.text).pages.at(-1);
      return last && last.body.trim() ? { ...section, text: section.text.replace(last.body, '') } : section;
    });
  },
};

describe('report-analysis: no answer from reports not seen', () => {
  const reports = generateReports(24, 3);
  const questions = generateQuestions(reports, 3, 6);

  it('answers "incomplete" when one page of each batch is missing, and the answer fails', async () => {
    for (const question of questions) {
      const run = (processors: ContextProcessor[]) =>
        runReportAnalysis({
          corpus: inMemoryCorpus(reports),
          question: question.text,
          strategy: 'paging',
          model: createOfflineModel({ policies: [reportOfflinePolicy] }),
          maxReportsPerRead: 5,
          processors,
        });
      const intact = await run([]);
      const mutated = await run([dropLastPage]);
      expect(isCorrect(intact.text, question.gold)).toBe(true);
      expect(isCorrect(mutated.text, question.gold)).toBe(false);
      expect(mutated.text).toMatch(/incomplete: [1-9]\d* of 24 reports not seen/u);
    }
  });

  it('the scenario counts paging answers, whose reports were all in prompts the model saw', async () => {
    const report = await runBench({
      scenario: createReportAnalysisScenario(),
      strategies: ['paging'],
      n: 40,
      tasks: 2,
      seed: 2,
    });
    const [paging] = report.results;
    expect(paging?.successRate).toBe(1);
  });
});

describe('report-analysis: the cost floor and the two naive baselines', () => {
  it('counts every report once as page tokens under each strategy, and no strategy costs less than its floor', async () => {
    const report = await runBench({
      scenario: createReportAnalysisScenario(),
      strategies: ['none', NAIVE_VOLATILE_PREFIX, 'paging'],
      n: 24,
      tasks: 1,
      seed: 4,
      contextWindow: 0,
      priceAs: 'openai:gpt-4.1',
    });
    // The corpus the episodes read: every report's body, each once, whatever the strategy sent again.
    const corpus = generateReports(24, 4).reduce((sum, r) => sum + countTokens(r.body), 0);
    for (const episode of report.runs.episodes) {
      expect(episode.success).toBe(true);
      expect(episode.pageTokens).toBe(corpus);
    }
    for (const row of report.results) {
      expect(row.floorCostUsd).not.toBeNull();
      expect(row.costToFloor).toBeGreaterThanOrEqual(1);
    }
  });

  it('runs the naive agent with a volatile prefix only when named, and a cache then serves it less', async () => {
    const scenario = createReportAnalysisScenario();
    expect(scenario.strategies).toContain(NAIVE_VOLATILE_PREFIX);
    const byDefault = await runBench({ scenario, n: 12, tasks: 1, seed: 4, contextWindow: 0 });
    expect(byDefault.runs.params.strategies).toContain('none');
    expect(byDefault.runs.params.strategies).not.toContain(NAIVE_VOLATILE_PREFIX);
    const both = await runBench({
      scenario,
      strategies: ['none', NAIVE_VOLATILE_PREFIX],
      n: 24,
      tasks: 1,
      seed: 4,
      contextWindow: 0,
      priceAs: 'openai:gpt-4.1',
    });
    const [friendly, volatile] = both.results;
    expect(volatile?.successRate).toBe(1);
    expect(volatile!.cacheHitRate!).toBeLessThan(friendly!.cacheHitRate! / 2);
    expect(volatile!.costUsd!).toBeGreaterThan(friendly!.costUsd!);
  });
});
