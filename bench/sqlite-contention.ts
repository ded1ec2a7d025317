/**
 * SQLite under contention: 4 processes open one new database file at the same moment and each creates
 * 300 sessions and puts 500 pages, interleaved, as fast as it can. Every call must succeed or fail with
 * a typed pagewise error; a raw driver error (SQLITE_BUSY escaping) fails the target. Reports the
 * counts, typed failures by code, and the wall time.
 *
 * Options (environment): PAGEWISE_CONTENTION_PROCESSES (4), PAGEWISE_CONTENTION_SESSIONS (300),
 * PAGEWISE_CONTENTION_PUTS (500).
 */
import { pathToFileURL } from 'node:url';
import { runSqliteContention } from '../test/concurrency/sqlite-contention.js';
import { fmt } from './stats.js';

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got "${raw}".`);
  return value;
}

/** Runs the benchmark and prints a markdown table; returns whether the target (0 raw errors) was met. */
export async function main(): Promise<boolean> {
  const figures = await runSqliteContention({
    processes: intFromEnv('PAGEWISE_CONTENTION_PROCESSES', 4),
    sessions: intFromEnv('PAGEWISE_CONTENTION_SESSIONS', 300),
    puts: intFromEnv('PAGEWISE_CONTENTION_PUTS', 500),
  });
  const typed = Object.entries(figures.typed)
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');
  console.log(`\n## sqlite-contention: ${figures.processes} processes, one SQLite file\n`);
  console.log('| calls | attempted | succeeded | typed errors | raw errors | wall ms | calls/s |');
  console.log('|---|---:|---:|---|---:|---:|---:|');
  const calls = figures.sessionsAttempted + figures.putsAttempted;
  console.log(
    `| createSession + page put | ${figures.sessionsAttempted} + ${figures.putsAttempted} | ${figures.sessionsCreated} + ${figures.pagesPut} | ${typed || '0'} | ${figures.raw} | ${fmt(figures.ms, 0)} | ${fmt((calls / figures.ms) * 1000, 0)} |`,
  );
  if (figures.rawSamples.length > 0)
    console.log(`\nRaw errors, first ${figures.rawSamples.length}: ${figures.rawSamples.join(' | ')}`);
  const met = figures.raw === 0;
  console.log(`\nTarget: 0 raw errors: ${met ? 'met' : 'NOT met'} (${figures.raw}).`);
  return met;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!(await main())) process.exitCode = 1;
}
