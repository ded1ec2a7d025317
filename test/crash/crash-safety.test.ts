/**
 * Crash safety of the SQLite stores, reduced count: a child process appends events and puts pages and
 * is killed with SIGKILL at random moments; after every kill the database is reopened and checked (see
 * harness.ts). The full run, at least 20 kills and 10,000 events, is `bench/crash-safety.ts`.
 */
import { describe, expect, it } from 'vitest';
import { describeCrashRun, runCrashRounds } from './harness.js';

describe('SQLite crash safety under SIGKILL', () => {
  it('survives 5 kills over ~1,000 events: no corruption, every acknowledged append and page present', async () => {
    const figures = await runCrashRounds({ kills: 5, events: 1000 });
    console.log(`crash-safety: ${describeCrashRun(figures)}`);
    expect(figures.kills).toBeGreaterThanOrEqual(5);
    expect(figures.eventsStored).toBeGreaterThanOrEqual(1000);
    expect(figures.checks).toBe(figures.rounds);
    // Kills landed while data was being written, not only between runs.
    expect(figures.kills - figures.startupKills).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
