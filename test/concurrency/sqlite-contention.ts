/**
 * The SQLite contention harness: several processes open one database file at once and create sessions
 * and put pages as fast as they can. Every failure is counted as typed (a pagewise error, such as the
 * retryable `storage-busy`) or raw (a driver error that escaped, e.g. SQLITE_BUSY). Used by the vitest
 * regression test (small counts) and by bench/sqlite-contention.ts (4 × 300 sessions and 500 puts).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./sqlite-contention-child.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What one process is asked to do. */
export interface ContentionTask {
  file: string;
  worker: number;
  sessions: number;
  puts: number;
}

/** What one process did. */
export interface ContentionReport {
  worker: number;
  sessionsCreated: number;
  pagesPut: number;
  /** Typed failures by code. */
  typed: Record<string, number>;
  /** Failures that were not pagewise errors. */
  raw: number;
  rawSamples: string[];
  ms: number;
}

/** The run's totals. */
export interface ContentionFigures {
  processes: number;
  sessionsAttempted: number;
  sessionsCreated: number;
  putsAttempted: number;
  pagesPut: number;
  typed: Record<string, number>;
  raw: number;
  rawSamples: string[];
  /** Wall time from the go signal to the last process done. */
  ms: number;
}

function runChild(task: ContentionTask, go: Promise<void>): { ready: Promise<void>; done: Promise<ContentionReport> } {
  const child = fork(CHILD, [], {
    cwd: REPO_ROOT,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, PAGEWISE_CONTENTION_TASK: JSON.stringify(task) },
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const done = new Promise<ContentionReport>((resolve, reject) => {
    let report: ContentionReport | undefined;
    child.on('message', (message: { ready?: boolean } | ContentionReport) => {
      if ('ready' in message) {
        markReady();
        void go.then(() => child.send('go'));
      } else report = message as ContentionReport;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      markReady();
      if (code === 0 && report) resolve(report);
      else reject(new Error(`contention process ${task.worker} exited with ${code}: ${stderr.slice(-2000)}`));
    });
  });
  return { ready, done };
}

/** Runs `processes` processes against one new database file and adds up what they report. */
export async function runSqliteContention(options: {
  processes: number;
  sessions: number;
  puts: number;
}): Promise<ContentionFigures> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-contention-'));
  const file = path.join(dir, 'shared.db');
  try {
    let start!: () => void;
    const go = new Promise<void>((resolve) => (start = resolve));
    const children = Array.from({ length: options.processes }, (_, worker) =>
      runChild({ file, worker, sessions: options.sessions, puts: options.puts }, go),
    );
    await Promise.all(children.map((c) => c.ready));
    const t0 = performance.now();
    start();
    const reports = await Promise.all(children.map((c) => c.done));
    const ms = performance.now() - t0;
    const typed: Record<string, number> = {};
    for (const report of reports)
      for (const [kind, count] of Object.entries(report.typed)) typed[kind] = (typed[kind] ?? 0) + count;
    return {
      processes: options.processes,
      sessionsAttempted: options.processes * options.sessions,
      sessionsCreated: reports.reduce((a, r) => a + r.sessionsCreated, 0),
      putsAttempted: options.processes * options.puts,
      pagesPut: reports.reduce((a, r) => a + r.pagesPut, 0),
      typed,
      raw: reports.reduce((a, r) => a + r.raw, 0),
      rawSamples: reports.flatMap((r) => r.rawSamples).slice(0, 5),
      ms,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
