/**
 * Instruction paging: page store, working set, fenced rendering, paging tools, auto-paging.
 */
export * from './page-store.js';
export * from './fence.js';
export * from './frames.js';
export * from './calculate.js';
export * from './service.js';
export * from './tools.js';
export * from './instruction.js';
export * from './auto-paging.js';
export * from './paging-history.js';
