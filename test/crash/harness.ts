/**
 * The crash-safety harness: runs the writer child (crash-writer.ts) against one SQLite file again and
 * again, kills it with SIGKILL at random moments (during startup and open, or in the middle of its
 * appends), and after every kill reopens the database and checks it: integrity, the session loads and
 * validates, events are contiguous and exactly what was written, state agrees with the events, every
 * acknowledged append and page is present, and at most the one call in flight was stored unacknowledged.
 * Used by the vitest suite (a reduced count) and by bench/crash-safety.ts (the full count).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { hashBody } from '../../packages/pagewise/src/store-kit.js';
import { SqliteSessionStore } from '../../packages/sqlite/src/index.js';
import { SqlitePageStore } from '../../packages/sqlite/src/sqlite-page-store.js';
import { CRASH_NAMESPACE, CRASH_SESSION, eventAt, MAX_BATCH, pageBody, pageUri } from './workload.js';
import { seededRandom } from '../../packages/pagewise/src/util/random.js';

const WRITER = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A round that takes longer than this has hung; it fails the run. */
const ROUND_TIMEOUT_MS = 60_000;

/** Options of {@link runCrashRounds}. */
export interface CrashRunOptions {
  /** SIGKILLs to survive; the run goes on until this many and `events` are reached. */
  kills: number;
  /** Events to append across all rounds (the last round may add a few more). */
  events: number;
  /** Share of rounds killed during startup (module load, database open and migration). Default 0.2. */
  startupKillShare?: number;
  /** Seed of the kill schedule; printed, so a failing schedule can be replayed. Default: random. */
  seed?: number;
  /** Where the database goes. Default: a new temporary folder, removed after a run that passes (kept for inspection when one fails). */
  dir?: string;
  log?: (line: string) => void;
}

/** What a run survived and verified. */
export interface CrashRunFigures {
  seed: number;
  file: string;
  rounds: number;
  /** Rounds ended by SIGKILL. */
  kills: number;
  /** Of those, kills before the writer had reported ready. */
  startupKills: number;
  /** Appends (calls of appendEvents) the writer acknowledged; every one verified present after every later reopen. */
  appendsAcknowledged: number;
  eventsAcknowledged: number;
  eventsStored: number;
  pagesAcknowledged: number;
  pagesStored: number;
  /** Calls stored though the kill came before their acknowledgement (the call in flight). */
  storedUnacknowledged: number;
  /** Reopen-and-check passes, one after every round. */
  checks: number;
  ms: number;
}

class CrashCheckError extends Error {}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CrashCheckError(message);
}

interface Acks {
  /** Acknowledged appends as [first, end) index ranges. */
  appends: [number, number][];
  /** Acknowledged pages: index to hash. */
  pages: Map<number, string>;
}

interface RoundOutcome {
  killed: boolean;
  beforeReady: boolean;
  startupMs: number | undefined;
}

/** Runs the writer once and kills it when `killAt` says so. */
function round(
  file: string,
  maxAppends: number,
  acks: Acks,
  killAt: { afterMs?: number; afterEvents?: number; jitterMs: number },
): Promise<RoundOutcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file, String(maxAppends)], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let readyAt: number | undefined;
    let eventsThisRound = 0;
    let killScheduled = false;
    let buffer = '';
    const stderr: string[] = [];
    const kill = (delayMs: number) => {
      if (killScheduled) return;
      killScheduled = true;
      setTimeout(() => child.kill('SIGKILL'), delayMs);
    };
    const watchdog = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new CrashCheckError(
          `A writer round ran over ${ROUND_TIMEOUT_MS} ms; it was killed. stderr: ${stderr.join('')}`,
        ),
      );
    }, ROUND_TIMEOUT_MS);
    if (killAt.afterMs !== undefined) kill(killAt.afterMs);

    const onLine = (line: string) => {
      const [tag, firstField, secondField] = line.split(' ');
      if (tag === 'ready') readyAt = performance.now();
      else if (tag === 'E') {
        const first = Number(firstField);
        const end = Number(secondField);
        acks.appends.push([first, end]);
        eventsThisRound += end - first;
        if (killAt.afterEvents !== undefined && eventsThisRound >= killAt.afterEvents) kill(killAt.jitterMs);
      } else if (tag === 'P') acks.pages.set(Number(firstField), String(secondField));
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        onLine(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => stderr.push(chunk));
    // 'close' comes after the pipes are drained: every acknowledgement printed before the kill is in.
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      // A partial last line was cut by the kill mid-write; it acknowledges nothing.
      if (signal !== 'SIGKILL' && code !== 0) {
        reject(
          new CrashCheckError(
            `The writer failed by itself (exit ${code}, signal ${signal}): ${stderr.join('').slice(0, 4000)}`,
          ),
        );
        return;
      }
      resolve({
        killed: signal === 'SIGKILL',
        beforeReady: readyAt === undefined,
        startupMs: readyAt === undefined ? undefined : readyAt - started,
      });
    });
  });
}

/**
 * Reopens the database as a restarted process would and checks everything the writer was told is
 * stored. Returns the stored event and page counts.
 */
async function verify(file: string, acks: Acks): Promise<{ events: number; pages: number }> {
  const store = new SqliteSessionStore({ path: file });
  const pages = new SqlitePageStore({ database: store.db });
  try {
    const integrity = store.db.pragma('integrity_check', { simple: true });
    check(integrity === 'ok', `PRAGMA integrity_check: ${String(integrity)}`);
    const fk = store.db.pragma('foreign_key_check') as unknown[];
    check(fk.length === 0, `PRAGMA foreign_key_check found ${fk.length} dangling references`);

    // getSession validates every stored event and the state against their schemas.
    const session = await store.getSession(CRASH_SESSION);
    const ackedEnd = acks.appends.reduce((m, [, end]) => Math.max(m, end), 0);
    check(session || ackedEnd === 0, `the session is gone, though ${ackedEnd} events were acknowledged`);
    const events = session?.events ?? [];
    const version = session?.version ?? 0;
    check(events.length === version, `the session is at version ${version} but holds ${events.length} events`);
    events.forEach((event, index) =>
      check(
        isDeepStrictEqual(event, eventAt(index)),
        `event ${index} is not what was written (id ${event.id}): a gap, a duplicate or a torn record`,
      ),
    );
    for (const [first, end] of acks.appends)
      check(end <= version, `acknowledged events [${first}, ${end}) are missing: the session ends at ${version}`);
    check(
      version - ackedEnd <= MAX_BATCH,
      `${version - ackedEnd} events are stored beyond the last acknowledged one; at most one append (${MAX_BATCH} events) can be in flight`,
    );
    if (version > 0) {
      check(
        session!.state.count === version,
        `state.count is ${String(session!.state.count)} but ${version} events are stored: state and events disagree`,
      );
      check(
        session!.state['user:total'] === version,
        `user:total is ${String(session!.state['user:total'])} but ${version} events are stored`,
      );
    }

    const stored = await pages.list(CRASH_NAMESPACE);
    const indices = new Set(stored.map((p) => Number(p.uri.slice('page:'.length))));
    for (let pageIndex = 0; pageIndex < stored.length; pageIndex++)
      check(indices.has(pageIndex), `pages are not contiguous: page ${pageIndex} is missing of ${stored.length}`);
    for (const info of stored) {
      const pageIndex = Number(info.uri.slice('page:'.length));
      const page = await pages.get(CRASH_NAMESPACE, pageUri(pageIndex));
      check(page !== undefined && page.body === pageBody(pageIndex), `page ${pageIndex} does not read back as written`);
      check(
        page.hash === hashBody(page.body) && info.hash === page.hash,
        `page ${pageIndex}'s hash does not match its body`,
      );
    }
    for (const [pageIndex, hash] of acks.pages) {
      check(indices.has(pageIndex), `acknowledged page ${pageIndex} is missing`);
      check(
        stored.find((p) => p.uri === pageUri(pageIndex))?.hash === hash,
        `acknowledged page ${pageIndex} has another hash than the one acknowledged`,
      );
    }
    check(
      stored.length - acks.pages.size <= 1,
      `${stored.length - acks.pages.size} pages are stored unacknowledged; at most one can be in flight`,
    );
    // Bodies are shared per hash: none lost, none orphaned by a kill between a body and its page.
    check(
      pages.distinctBodies === new Set(stored.map((p) => p.hash)).size,
      `the store holds ${pages.distinctBodies} bodies for ${new Set(stored.map((p) => p.hash)).size} distinct page hashes`,
    );
    return { events: version, pages: stored.length };
  } finally {
    await store.close();
  }
}

/**
 * Runs rounds of writer-then-SIGKILL until `kills` kills and `events` events, checking the database
 * after every round. Throws on the first check that fails, naming it and the seed.
 */
export async function runCrashRounds(options: CrashRunOptions): Promise<CrashRunFigures> {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const random = seededRandom(seed);
  const log = options.log ?? (() => {});
  const dir = options.dir ?? mkdtempSync(path.join(os.tmpdir(), 'pagewise-crash-'));
  const file = path.join(dir, 'crash.db');
  const startupShare = options.startupKillShare ?? 0.2;
  const acks: Acks = { appends: [], pages: new Map() };
  const figures: CrashRunFigures = {
    seed,
    file,
    rounds: 0,
    kills: 0,
    startupKills: 0,
    appendsAcknowledged: 0,
    eventsAcknowledged: 0,
    eventsStored: 0,
    pagesAcknowledged: 0,
    pagesStored: 0,
    storedUnacknowledged: 0,
    checks: 0,
    ms: 0,
  };
  const started = performance.now();
  let startupMs: number | undefined;
  let stored = { events: 0, pages: 0 };
  log(`crash-safety: seed ${seed}, database ${file}`);
  try {
    while (figures.kills < options.kills || stored.events < options.events) {
      const killsLeft = Math.max(1, options.kills - figures.kills);
      const eventsLeft = Math.max(10, options.events - stored.events);
      // A kill at a random moment of startup (once its length is known), or after a random number of
      // events with a little random delay, so it lands anywhere in an append or a page put.
      const atStartup = startupMs !== undefined && random() < startupShare;
      const killAt = atStartup
        ? { afterMs: random() * startupMs!, jitterMs: 0 }
        : {
            afterEvents: 1 + Math.floor(random() * ((2 * eventsLeft) / killsLeft)),
            jitterMs: Math.floor(random() * 4),
          };
      const before = {
        events: stored.events,
        pages: stored.pages,
        appends: acks.appends.length,
        pageAcks: acks.pages.size,
      };
      const outcome = await round(file, eventsLeft + 10_000, acks, killAt);
      figures.rounds += 1;
      if (outcome.killed) figures.kills += 1;
      if (outcome.killed && outcome.beforeReady) figures.startupKills += 1;
      if (outcome.startupMs !== undefined)
        startupMs = startupMs === undefined ? outcome.startupMs : Math.max(startupMs, outcome.startupMs);

      stored = await verify(file, acks);
      figures.checks += 1;
      const ackedEvents = acks.appends.slice(before.appends).reduce((s, [a, b]) => s + b - a, 0);
      const newlyStored = stored.events - before.events;
      // What this round stored beyond what it acknowledged: the append in flight at the kill.
      figures.storedUnacknowledged +=
        (newlyStored > ackedEvents ? 1 : 0) + (stored.pages - before.pages > acks.pages.size - before.pageAcks ? 1 : 0);
      log(
        `round ${figures.rounds}: ${outcome.killed ? `SIGKILL ${outcome.beforeReady ? 'during startup' : `after ${ackedEvents} acknowledged events`}` : 'exited'}; ` +
          `reopened: ${stored.events} events, ${stored.pages} pages, checks passed`,
      );
    }
  } catch (error) {
    if (error instanceof CrashCheckError) error.message = `${error.message} (seed ${seed}, database ${file})`;
    throw error;
  }
  figures.appendsAcknowledged = acks.appends.length;
  figures.eventsAcknowledged = acks.appends.reduce((s, [a, b]) => s + b - a, 0);
  figures.eventsStored = stored.events;
  figures.pagesAcknowledged = acks.pages.size;
  figures.pagesStored = stored.pages;
  figures.ms = performance.now() - started;
  if (!options.dir) rmSync(dir, { recursive: true, force: true });
  return figures;
}

/** One line of figures for logs and reports. */
export function describeCrashRun(figures: CrashRunFigures): string {
  return (
    `${figures.kills} SIGKILLs survived (${figures.startupKills} during startup) in ${figures.rounds} rounds; ` +
    `${figures.appendsAcknowledged} acknowledged appends (${figures.eventsAcknowledged} events) and ${figures.pagesAcknowledged} acknowledged pages all verified present ` +
    `after every reopen; stored ${figures.eventsStored} events and ${figures.pagesStored} pages, ${figures.storedUnacknowledged} of the calls in flight at a kill committed; ` +
    `${figures.checks} integrity checks passed; ${(figures.ms / 1000).toFixed(1)} s (seed ${figures.seed})`
  );
}
