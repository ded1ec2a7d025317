/**
 * The report-analysis scenario: generated corpus and questions, the planner/analyst agents, their
 * offline rules, and a runner helper.
 */
export * from './corpus.js';
export * from './questions.js';
export * from './extract.js';
export * from './agent.js';
export * from './policy.js';
export * from './run.js';
export * from './query.js';
export * from './filings.js';
export * from './answer-line.js';
