/**
 * Instruction paging in a few lines: an agent whose tools page documents into its instruction, with
 * bodies kept out of history. Runs offline: npx tsx examples/paging.ts
 */
import {
  generateQuestions,
  generateReports,
  inMemoryCorpus,
  isCorrect,
  runReportAnalysis,
} from '@pagewise/lab/scenarios/report-analysis';

const reports = generateReports(100, 42);
const [question] = generateQuestions(reports, 42, 1);
const corpus = inMemoryCorpus(reports);

for (const strategy of ['none', 'paging'] as const) {
  const result = await runReportAnalysis({ corpus, question: question!.text, strategy, contextWindow: 0 });
  const summary = result.ledger.summary;
  console.log(
    `${strategy}: correct=${isCorrect(result.text, question!.gold)} peak=${summary.peakPromptTokens} cumulative=${summary.cumulativePromptTokens} calls=${summary.modelCalls}`,
  );
}
