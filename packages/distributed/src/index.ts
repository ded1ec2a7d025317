/**
 * Distributed episodes: a BullMQ queue in Redis that fans benchmark episodes out to worker processes
 * and gathers their outcomes. Re-exports only.
 */
export * from './job.js';
export * from './redis.js';
export * from './queue.js';
export * from './worker.js';
