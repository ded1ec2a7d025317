/**
 * Context compression (ACON): guidelines and their extractive rules, the observation and history
 * compressors, their backends (LLM, extractive, naive stand-in), the prompting baseline, the AI SDK
 * middleware, and the one-call API (compressText, compressMessages).
 */
export * from './rules.js';
export * from './guideline.js';
export * from './default-guidelines.js';
export * from './segment.js';
export * from './token-budget.js';
export * from './extractive.js';
export * from './baselines-text.js';
export * from './transcript.js';
export * from './backend.js';
export * from './llm-backend.js';
export * from './extractive-backend.js';
export * from './offline-summarizer.js';
export * from './resolve-compressor.js';
export * from './observation.js';
export * from './history.js';
export * from './prompting.js';
export * from './middleware.js';
export * from './api.js';
