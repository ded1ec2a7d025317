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
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer, got "${raw}".`);
  return n;
}

/** Runs the benchmark and prints a markdown table; returns whether the target (0 raw errors) was met. */
export async function main(): Promise<boolean> {
  const f = await runSqliteContention({
    processes: intFromEnv('PAGEWISE_CONTENTION_PROCESSES', 4),
    sessions: intFromEnv('PAGEWISE_CONTENTION_SESSIONS', 300),
    puts: intFromEnv('PAGEWISE_CONTENTION_PUTS', 500),
  });
  const typed = Object.entries(f.typed)
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');
  console.log(`\n## sqlite-contention: ${f.processes} processes, one SQLite file\n`);
  console.log('| calls | attempted | succeeded | typed errors | raw errors | wall ms | calls/s |');
  console.log('|---|---:|---:|---|---:|---:|---:|');
  const calls = f.sessionsAttempted + f.putsAttempted;
  console.log(
    `| createSession + page put | ${f.sessionsAttempted} + ${f.putsAttempted} | ${f.sessionsCreated} + ${f.pagesPut} | ${typed || '0'} | ${f.raw} | ${fmt(f.ms, 0)} | ${fmt((calls / f.ms) * 1000, 0)} |`,
  );
  if (f.rawSamples.length > 0) console.log(`\nRaw errors, first ${f.rawSamples.length}: ${f.rawSamples.join(' | ')}`);
  const met = f.raw === 0;
  console.log(`\nTarget: 0 raw errors: ${met ? 'met' : 'NOT met'} (${f.raw}).`);
  return met;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!(await main())) process.exitCode = 1;
}
