/**
 * The child process of the crash test: opens the SQLite session store and page store at a path, resumes
 * where the stored data ends, and appends events and puts pages in a loop until killed, printing an
 * acknowledgement line after each call RETURNS:
 *
 *   ready <session version> <pages stored>
 *   E <first index> <end index>      events [first, end) are appended
 *   P <k> <sha256 of the body>       page k is stored
 *
 * stdout to a pipe is synchronous on Linux, so a line printed is a line the parent can still read after
 * a SIGKILL. Usage: node --import tsx test/crash/crash-writer.ts <db-file> <max-appends>
 */
import { SqliteSessionStore } from '../../packages/sqlite/src/sqlite-store.js';
import { SqlitePageStore } from '../../packages/sqlite/src/sqlite-page-store.js';
import { batchSizeAt, CRASH_NAMESPACE, CRASH_SESSION, eventAt, pageBody, pageUri } from './workload.js';

const [file, maxArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: crash-writer.ts <db-file> <max-appends>\n');
  process.exit(64);
}
const maxAppends = Number(maxArg ?? 1_000_000);

const store = new SqliteSessionStore({ path: file });
const pages = new SqlitePageStore({ database: store.db });
const session = (await store.getSession(CRASH_SESSION)) ?? (await store.createSession(CRASH_SESSION));
// Pages are put in order, so the stored ones are page:0 .. page:(n-1).
let nextPage = (await pages.list(CRASH_NAMESPACE)).length;
process.stdout.write(`ready ${session.version} ${nextPage}\n`);

for (let appends = 0; appends < maxAppends; appends++) {
  const first = session.version;
  const events = Array.from({ length: batchSizeAt(first) }, (_, j) => eventAt(first + j));
  await store.appendEvents(session, events);
  process.stdout.write(`E ${first} ${session.version}\n`);
  // A page every other append, so kills land in both kinds of transaction.
  if (appends % 2 === 0) {
    const pageIndex = nextPage++;
    const info = await pages.put({
      namespace: CRASH_NAMESPACE,
      uri: pageUri(pageIndex),
      title: `Page ${pageIndex}`,
      body: pageBody(pageIndex),
      fetchedAt: 1_700_000_000_000 + pageIndex,
    });
    process.stdout.write(`P ${pageIndex} ${info.hash}\n`);
  }
}
await store.close();
