/**
 * `pagewise/adapter-kit`: what a framework adapter is built on beyond the public entries, as pagewise's own
 * adapters (`@pagewise/adk`, `@pagewise/openai-agents`, `@pagewise/langchain`, `@pagewise/mastra`) use it: the
 * history bridge that keeps a framework's messages and the session's events in step, the thread sessions and
 * adapter steps a middleware-style adapter runs on, state recording, and the texts a failed or invalid tool call
 * is answered with. For writing an adapter for another framework (docs/adapters.md, "Building an adapter"); names
 * may change in a minor release while the adapters' shapes settle.
 */
export { HistoryBridge } from './adapters/history-bridge.js';
export type { BridgeCodec, SourcedEvent } from './adapters/history-bridge.js';
export { AdapterThreads } from './adapters/adapter-threads.js';
export type { ThreadRun } from './adapters/adapter-threads.js';
export * as adapterSteps from './adapters/adapter-steps.js';
export { clearTempKeys, recordStateAccess } from './adapters/record-state.js';
export type { StateWrites } from './adapters/record-state.js';
export { splitSystem } from './adapters/measure.js';
export { invalidArgumentsText, toolFailureText } from './adapters/tool-error.js';
export { toolPageUri } from './paging/auto-paging.js';
