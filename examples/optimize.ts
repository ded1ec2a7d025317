/**
 * Learning a history guideline offline on the retail scenario (needs ../shared/data/tau-retail or
 * PAGEWISE_TAU_RETAIL_DIR): the default guideline against the optimized one on held-out tasks, and the chosen
 * guideline's rules. npx tsx examples/optimize.ts
 */
import { formatGuideline } from 'pagewise/compression';
import { getScenario, registerStandardBench } from '@pagewise/lab';
import { optimizeGuideline, optimizeMarkdown } from '@pagewise/lab/optimize';
import { retailDataAvailable } from '@pagewise/lab/scenarios/retail';

registerStandardBench();

if (!retailDataAvailable()) {
  console.log(
    'The retail data is not here (../shared/data/tau-retail, or set PAGEWISE_TAU_RETAIL_DIR); nothing to optimize.',
  );
  process.exit(0);
}
const result = await optimizeGuideline({
  scenario: getScenario('retail-tool-use'),
  target: 'history',
  train: 4,
  val: 4,
  seed: 3,
});
console.log(optimizeMarkdown(result.report));
console.log(formatGuideline(result.chosen));
