/**
 * One process of the SQLite contention run: opens the shared database file (racing the others through
 * open and migration), waits for the parent's go, then interleaves session creations and page puts and
 * reports every failure by kind: a pagewise error (typed, with its code and whether it is retryable) or
 * anything else (raw). Started by sqlite-contention.ts with its task in PAGEWISE_CONTENTION_TASK.
 */
import { PagewiseError } from '../../packages/pagewise/src/errors.js';
import { SqlitePageStore } from '../../packages/sqlite/src/sqlite-page-store.js';
import { SqliteSessionStore } from '../../packages/sqlite/src/sqlite-store.js';
import type { ContentionReport, ContentionTask } from './sqlite-contention.js';

const task = JSON.parse(process.env.PAGEWISE_CONTENTION_TASK ?? '{}') as ContentionTask;
const report: ContentionReport = {
  worker: task.worker,
  sessionsCreated: 0,
  pagesPut: 0,
  typed: {},
  raw: 0,
  rawSamples: [],
  ms: 0,
};

function record(error: unknown): void {
  if (PagewiseError.isInstance(error)) {
    const key = `${error.code}${error.retryable ? ' (retryable)' : ''}`;
    report.typed[key] = (report.typed[key] ?? 0) + 1;
    return;
  }
  report.raw += 1;
  const details = error as { code?: unknown; message?: unknown };
  if (report.rawSamples.length < 5)
    report.rawSamples.push(`${String(details?.code ?? '')} ${String(details?.message ?? error)}`);
}

let store: SqliteSessionStore | undefined;
let pages: SqlitePageStore | undefined;
try {
  store = new SqliteSessionStore({ path: task.file });
  pages = new SqlitePageStore({ database: store.db });
} catch (error) {
  record(error);
}
process.send!({ ready: true });
await new Promise<void>((resolve) => process.once('message', () => resolve()));

const started = performance.now();
if (store && pages) {
  const total = Math.max(task.sessions, task.puts);
  for (let index = 0; index < total; index++) {
    if (index < task.sessions) {
      try {
        await store.createSession({
          appName: 'contention',
          userId: `u${task.worker}`,
          sessionId: `w${task.worker}-s${index}`,
          // A shared app: key, so creations of different processes write the same row.
          state: { 'app:created': index, [`user:last`]: index },
        });
        report.sessionsCreated += 1;
      } catch (error) {
        record(error);
      }
    }
    if (index < task.puts) {
      try {
        // Half the bodies are shared by every process, so puts also race on the same body row.
        const body = index % 2 === 0 ? `shared body ${index % 50}` : `body of worker ${task.worker} page ${index}`;
        await pages.put({ namespace: `ns${index % 4}`, uri: `doc:${task.worker}:${index}`, body });
        report.pagesPut += 1;
      } catch (error) {
        record(error);
      }
    }
  }
}
report.ms = performance.now() - started;
await store?.close();
process.send!(report, () => process.exit(0));
