/**
 * The retail-tool-use scenario: long-horizon support tasks over the tau-bench retail database, its
 * read-only tools, gold answers and checker, and the offline model's policy for it.
 */
export {
  defaultRetailDataDir,
  loadRetailData,
  retailDataAvailable,
  retailDataMissing,
  TAU_RETAIL_DIR_ENV,
  TAU_RETAIL_FILES,
} from './data.js';
export type { RetailData, RetailOrder, RetailOrderItem, RetailProduct, RetailUser } from './data.js';
export { emptyRetailFacts, formatRetailFacts, readRetailFacts, RETAIL_FACT_GRAMMAR } from './facts.js';
export type { KnownItem, KnownOrder, KnownProduct, KnownUser, RetailFacts } from './facts.js';
export { findMoney, formatCents, moneyAmounts, toCents } from './money.js';
export type { MoneyMention } from './money.js';
export { MAX_IDENTICAL_CALLS, RETAIL_INSTRUCTION, RETAIL_TASK_KIND_LINE, retailOfflinePolicy } from './policy.js';
export { formatRetailPrompt, parseRetailPrompt, RETAIL_TEMPLATES } from './prompts.js';
export type { RetailCustomerRef, RetailRequest, RetailTemplate } from './prompts.js';
export {
  checkAnswer,
  formatGoldAnswer,
  generateRetailTasks,
  MAX_TASK_CALLS,
  MIN_TASK_CALLS,
  orderItemTotalCents,
  orderPaidCents,
} from './tasks.js';
export type { GenerateRetailTasksOptions, RetailCustomer, RetailGold, RetailTask } from './tasks.js';
export { createRetailTools, RETAIL_TOOL_NAMES, SEARCH_RESULT_LIMIT } from './tools.js';
export { RETAIL_HISTORY_GUIDELINE, RETAIL_OBSERVATION_GUIDELINE } from './guidelines.js';
export { retailTaskValues } from './task-values.js';
