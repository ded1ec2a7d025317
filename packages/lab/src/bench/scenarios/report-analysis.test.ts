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
import { createReportAnalysisScenario } from './report-analysis.js';

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
