/**
 * Guideline optimization (ACON's UT and CO steps), the failure analysis behind it, the recording of
 * compressor calls and the distillation export. Re-exports only.
 */
export * from './hash.js';
export * from './call-store.js';
export * from './recording.js';
export * from './field-diff.js';
export * from './task-values.js';
export * from './candidate-check.js';
export * from './trace.js';
export * from './analysis.js';
export * from './proposer.js';
export * from './rule-edits.js';
export * from './llm-proposer.js';
export * from './progress.js';
export * from './evaluate.js';
export * from './optimize.js';
export * from './report.js';
export * from './distill.js';
export {
  SqliteCompressorCallStore,
  type SqliteCompressorCallStoreOptions,
} from '../stores/sqlite/sqlite-compressor-calls.js';
export * from './ablation.js';
