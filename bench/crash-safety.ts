/**
 * Crash safety of the SQLite stores, full count: a writer process appends 10,000 events (and puts pages)
 * while being killed with SIGKILL at random moments at least 20 times; after every kill the database is
 * reopened and checked: integrity, contiguous events that are exactly what was written, state agreeing
 * with the events, every acknowledged append and page present. `npm test` runs a reduced count.
 *
 * Options (environment): PAGEWISE_CRASH_KILLS (default 20), PAGEWISE_CRASH_EVENTS (default 10000),
 * PAGEWISE_CRASH_SEED (replays a kill schedule).
 */
import { pathToFileURL } from 'node:url';
import { describeCrashRun, runCrashRounds, type CrashRunFigures } from '../test/crash/harness.js';

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer, got "${raw}".`);
  return value;
}

/** Runs the full crash-safety run, prints a markdown table of its figures and returns them. */
export async function main(): Promise<CrashRunFigures> {
  const kills = intFromEnv('PAGEWISE_CRASH_KILLS', 20);
  const events = intFromEnv('PAGEWISE_CRASH_EVENTS', 10_000);
  const seed = process.env.PAGEWISE_CRASH_SEED ? intFromEnv('PAGEWISE_CRASH_SEED', 0) : undefined;
  console.log(`\n## Crash safety: SQLite session and page store under SIGKILL (${kills} kills, ${events} events)\n`);
  const figures = await runCrashRounds({
    kills,
    events,
    ...(seed !== undefined ? { seed } : {}),
    log: (line) => console.log(`    ${line}`),
  });
  console.log(`
| figure | value |
| --- | --- |
| SIGKILLs survived | ${figures.kills} (${figures.startupKills} during startup) |
| rounds | ${figures.rounds} |
| acknowledged appends verified | ${figures.appendsAcknowledged} (${figures.eventsAcknowledged} events) |
| acknowledged pages verified | ${figures.pagesAcknowledged} |
| stored after the last kill | ${figures.eventsStored} events, ${figures.pagesStored} pages |
| calls in flight at a kill that committed | ${figures.storedUnacknowledged} |
| reopen-and-check passes | ${figures.checks} |
| time | ${(figures.ms / 1000).toFixed(1)} s |
| seed | ${figures.seed} |
`);
  console.log(describeCrashRun(figures));
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
