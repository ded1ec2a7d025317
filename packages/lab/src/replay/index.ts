/**
 * `@pagewise/lab/replay`: import agent traces from the formats teams already record, replay them under the
 * compression strategies without a model, and report what each would have saved in tokens and lost of
 * the values the model went on to use.
 */
export * from './errors.js';
export * from './trace.js';
export * from './import.js';
export * from './values.js';
export * from './strategies.js';
export * from './replay.js';
export * from './report.js';
export * from './run.js';
export { tracesFromStore, sessionTrace } from './formats/pagewise-session.js';
export * from './html.js';
export * from './learn.js';
