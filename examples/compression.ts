/**
 * ACON compression on the retail tool-use scenario, offline: the full history against ACON's observation and
 * history compression (needs ../shared/data/tau-retail or PAGEWISE_TAU_RETAIL_DIR). npx tsx examples/compression.ts
 */
import { getScenario, markdownReport, runBench, registerStandardBench } from '@pagewise/lab';
import { retailDataAvailable } from '@pagewise/lab/scenarios/retail';

registerStandardBench();

if (!retailDataAvailable()) {
  console.log('The retail data is not here (../shared/data/tau-retail, or set PAGEWISE_TAU_RETAIL_DIR).');
  process.exit(0);
}
const report = await runBench({
  scenario: getScenario('retail-tool-use'),
  strategies: ['none', 'acon-obs', 'acon-hist', 'acon'],
  tasks: 6,
  seed: 1,
  model: 'offline',
});
console.log(markdownReport(report));
