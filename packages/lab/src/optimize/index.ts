/**
 * Guideline optimization (ACON's UT and CO steps), the failure analysis behind it, the recording of
 * compressor calls and the distillation export. Re-exports only.
 */
export * from './hash.js';
export {
  COMPRESSOR_CALL_SCHEMA,
  CompressorCallBodySchema,
  InMemoryCompressorCallStore,
  checkSuccess,
  matchesCallFilter,
  type CompressorCallFilter,
  type CompressorCallInput,
  type CompressorCallRecord,
  type CompressorCallStore,
} from 'pagewise/store-kit';
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
export * from './optimizer-log.js';
export * from './optimize.js';
export * from './report.js';
export * from './distill.js';
export { SqliteCompressorCallStore, type SqliteCompressorCallStoreOptions } from '@pagewise/sqlite';
export * from './ablation.js';
