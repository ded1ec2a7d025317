/**
 * The benchmark from code: every strategy of a scenario on the same seeded tasks, offline, as a markdown
 * table. npx tsx examples/bench.ts
 */
import { getScenario, markdownReport, runBench, registerStandardBench } from '@pagewise/lab';

registerStandardBench();

const report = await runBench({
  scenario: getScenario('report-analysis'),
  strategies: ['none', 'paging'],
  n: [20, 60],
  tasks: 2,
  seed: 7,
  model: 'offline',
});
console.log(markdownReport(report));
