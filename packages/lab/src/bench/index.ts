/**
 * The benchmark: scenarios × context strategies, metrics per strategy, and report writers. Re-exports only.
 */
export * from './scenario.js';
export * from './strategies.js';
export * from './metrics.js';
export * from './page-tokens.js';
export * from './harness.js';
export * from './charts.js';
export * from './report.js';
export * from './registry.js';
export * from './standard.js';
export * from './acon-strategies.js';
export * from './budget-fit.js';
export * from './budget-curve.js';
export {
  createRetailScenario,
  RETAIL_MAX_STEPS,
  RETAIL_SCENARIO,
  type RetailBenchTask,
  type RetailScenarioOptions,
} from './scenarios/retail.js';
export {
  createMultiQaScenario,
  episodeEvidenceRecall,
  MULTI_QA_DEFAULT_K,
  MULTI_QA_SCENARIO,
  multiQaMaxSteps,
  type MultiQaBenchTask,
  type MultiQaScenarioOptions,
} from './scenarios/multi-qa.js';
export {
  createReportAnalysisScenario,
  NAIVE_VOLATILE_PREFIX,
  REPORT_DEFAULT_N,
  REPORT_SCENARIO,
  type ReportBenchTask,
} from './scenarios/report-analysis.js';
