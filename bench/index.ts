/**
 * `npm run bench`: runs the standard benchmark set and prints markdown tables: the runtime overhead,
 * then every available scenario under all its strategies on the offline model. Each part takes minutes; the
 * whole set took about 90 minutes on two busy cores (run one script under bench/ for one figure). Reports and
 * charts also go to bench-out/standard/<scenario>/.
 */
import path from 'node:path';
import {
  getScenario,
  listScenarios,
  markdownReport,
  runBench,
  writeBenchOutput,
  type BenchOptions,
  registerStandardBench,
} from '@pagewise/lab';
import { ConfigurationError } from 'pagewise';
import { main as analyzeFilings } from './analyze-filings.js';
import { main as analyzeSecTenQ } from './analyze-sec-10-q.js';
import { main as analyzeTatqa } from './analyze-tatqa.js';
import { main as cliStart } from './cli-start.js';
import { main as compressionRealData } from './compression-real-data.js';
import { main as compressionRetail } from './compression-retail.js';
import { main as fairComparison } from './fair.js';
import { main as importCost } from './import-cost.js';
import { main as optimizeRetail } from './optimize-retail.js';
import { main as pagingScaling } from './paging-scaling.js';
import { replayBench } from './replay.js';
import { main as replayScorers } from './replay-scorers.js';
import { main as runtimeOverhead } from './runtime-overhead.js';
import { main as stepCost } from './step-cost.js';
import { main as promptCacheCost } from './prompt-cache-cost.js';
import { main as cacheParity } from './cache-parity.js';
import { main as adapterCache } from './adapter-cache.js';
import { main as adapterStep } from './adapter-step.js';
import { main as queueThroughput } from './queue-throughput.js';
import { main as storeThroughput } from './store-throughput.js';
import { main as sqliteContention } from './sqlite-contention.js';
import { main as sqliteHotPath } from './sqlite-hot-path.js';
import { main as sqliteEventBytes } from './sqlite-event-bytes.js';

registerStandardBench();

/** Sizes of the standard set; a scenario not listed runs with its defaults and 8 tasks. */
const STANDARD: Record<string, Pick<BenchOptions, 'n' | 'tasks'>> = {
  // Several corpus sizes, for peak prompt tokens against N (none fails past the 128k window).
  'report-analysis': { n: [10, 50, 164, 500], tasks: 5 },
  'retail-tool-use': { tasks: 24 },
  // Several N, for peak prompt tokens against the number of questions.
  'multi-objective-qa': { n: [2, 4, 8, 16], tasks: 10 },
};
const OUT_DIR = path.join('bench-out', 'standard');

await cliStart();
await importCost();
await analyzeTatqa();
await analyzeFilings([]);
await analyzeSecTenQ([]);
await runtimeOverhead();
await stepCost(['--rounds', '5']);
await promptCacheCost(['--rounds', '5']);
// The plain retail agent on the runner and on a plain AI SDK loop, priced with the same cache model.
await cacheParity();
// The step block in each framework adapter, after and before, priced with the same cache model.
await adapterCache(['--reports', '200']);
// What each framework adapter adds to its framework's own step, plain loop against the adapter's set-up.
await adapterStep(['--rounds', '5']);
await pagingScaling();
await compressionRetail();
await compressionRealData();
// Compression replayed on gold-action traces of a domain nobody tuned on (tau2 banking_knowledge).
await replayBench();
// The default scorer's evidence: both scorers replayed on the same traces (decision 19).
await replayScorers([]);
await optimizeRetail();
await storeThroughput({ repeats: 1 });
await sqliteContention();
await sqliteHotPath();
await sqliteEventBytes([]);
await queueThroughput();
// Every strategy at the same budget, acon and acon-learned: the README's Results.
await fairComparison();

for (const listed of listScenarios()) {
  if (!listed.available) {
    console.log(`\n## ${listed.name}: skipped, not registered yet`);
    continue;
  }
  const scenario = getScenario(listed.name);
  const sizes = STANDARD[listed.name] ?? { tasks: 8 };
  try {
    const report = await runBench({ scenario, ...sizes, seed: 1, model: 'offline' });
    console.log(`\n${markdownReport(report)}`);
    await writeBenchOutput(path.join(OUT_DIR, listed.name), report);
  } catch (error) {
    // Missing data is a reason to skip a scenario, not to lose the others.
    if (!(error instanceof ConfigurationError)) throw error;
    console.log(`\n## ${listed.name}: skipped: ${error.message}`);
  }
}
console.log(`\nReports and charts: ${OUT_DIR}/<scenario>/`);
