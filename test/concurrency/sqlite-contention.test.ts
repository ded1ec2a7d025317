/**
 * Regression test of the finding "SQLite contention surfaces as raw errors": with deferred transactions,
 * 4 processes creating sessions and putting pages in one file got raw SQLITE_BUSY / SQLITE_BUSY_SNAPSHOT
 * on a large share of calls. Writes now take the write lock up front (BEGIN IMMEDIATE) and wait up to
 * the busy timeout; a timeout would be the typed, retryable StorageBusyError. The full count is
 * `bench/sqlite-contention.ts`.
 */
import { describe, expect, it } from 'vitest';
import { runSqliteContention } from './sqlite-contention.js';

describe('SQLite contention surfaces as raw errors (finding)', () => {
  it('4 processes creating sessions and putting pages in one file: every call succeeds, no raw error', async () => {
    const figures = await runSqliteContention({ processes: 4, sessions: 60, puts: 100 });
    console.log(`sqlite-contention: ${JSON.stringify(figures)}`);
    expect(figures.rawSamples).toEqual([]);
    expect(figures.raw).toBe(0);
    // Under the default 5 s busy timeout nothing here waits that long, so nothing fails at all.
    expect(figures.typed).toEqual({});
    expect(figures.sessionsCreated).toBe(figures.sessionsAttempted);
    expect(figures.pagesPut).toBe(figures.putsAttempted);
  }, 120_000);
});
