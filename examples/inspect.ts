/**
 * See what the model saw: one offline report-analysis run with instruction paging, recorded in SQLite with
 * its call log, then the read-only inspector on it. Offline, no API key:
 * npx tsx examples/inspect.ts            (in a terminal: serves until Ctrl-C)
 * npx tsx examples/inspect.ts --once     (prints the address and a few figures, then stops)
 * npx tsx examples/inspect.ts --serve    (serves until Ctrl-C even when not run from a terminal)
 * Run from a script, a pipe or CI (no terminal) it stops on its own, as with --once, rather than wait forever.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteCallLog, SqlitePageStore, SqliteSessionStore } from '@pagewise/sqlite';
import { startInspector } from '@pagewise/inspect';
import {
  generateQuestions,
  generateReports,
  inMemoryCorpus,
  runReportAnalysis,
} from '@pagewise/lab/scenarios/report-analysis';

const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-example-')), 'runs.db');
const store = new SqliteSessionStore({ path: file });
const reports = generateReports(40, 7);
const result = await runReportAnalysis({
  corpus: inMemoryCorpus(reports),
  question: generateQuestions(reports, 7, 1)[0]!.text,
  strategy: 'paging',
  store,
  pageStore: new SqlitePageStore({ database: store.db }),
  // The call log keeps each request as sent: instruction sections with their fenced pages, history, tools.
  callLog: new SqliteCallLog({ database: store.db, tags: { strategy: 'paging' } }),
});
await store.close();
const { peakPromptTokens, cumulativePromptTokens, modelCalls } = result.ledger.summary;
console.log(
  `${modelCalls} model calls, peak ${peakPromptTokens} and cumulative ${cumulativePromptTokens} prompt tokens`,
);

const inspector = await startInspector({ store: `sqlite:${file}`, port: 0 });
const session = `a=pagewise&u=${result.session.userId}&s=${result.session.sessionId}`;
console.log(`Inspector: ${inspector.url}  (this session: ${inspector.url.replace(/\/$/, '')}/session?${session})`);
const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
const serve = process.argv.includes('--serve') || (interactive && !process.argv.includes('--once'));
if (!serve) {
  const page = await fetch(`${inspector.url.replace(/\/$/, '')}/context?${session}`);
  console.log(`context view: HTTP ${page.status}, ${(await page.text()).length} bytes`);
  await inspector.close();
  console.log(interactive ? 'Stopped (--once).' : 'Stopped: not run from a terminal (--serve keeps it running).');
} else {
  console.log('Ctrl-C stops it.');
  const stop = () => void inspector.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
