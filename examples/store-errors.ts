/**
 * What the stores promise when things go wrong, offline with SQLite: a write that waits too long for
 * another writer fails with the retryable StorageBusyError (and succeeds when repeated), and a page body
 * changed at rest is refused with IntegrityError instead of being answered.
 * npx tsx examples/store-errors.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { PagewiseError } from 'pagewise';
import { SqlitePageStore } from '@pagewise/sqlite';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-example-'));
const file = path.join(dir, 'pagewise.db');
const pages = new SqlitePageStore({ path: file, busyTimeoutMs: 100 });

/** Repeats a store call while it fails with a retryable pagewise error, a few times at most. */
async function withRetry<T>(call: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!PagewiseError.isInstance(error) || !error.retryable || attempt >= attempts) throw error;
      console.log(`attempt ${attempt}: ${error.code}, retrying`);
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

// Another process holds the write lock for 250 ms; the put waits 100 ms, fails retryably, and is repeated.
const other = new Database(file);
other.exec('BEGIN IMMEDIATE');
setTimeout(() => other.exec('COMMIT'), 250);
const info = await withRetry(() => pages.put({ namespace: 'demo', uri: 'report-1', body: 'Revenue: 1,192,884.' }));
console.log(`stored ${info.uri} (${info.bytes} bytes, sha256 ${info.hash.slice(0, 12)}…)`);
other.close();

// Someone edits the stored body behind the store's back: the read is refused, not answered.
pages.db.prepare("UPDATE page_bodies SET body = 'Revenue: 1,631,190.'").run();
try {
  await pages.get('demo', 'report-1');
} catch (error) {
  if (!PagewiseError.isInstance(error) || error.code !== 'integrity') throw error;
  console.log(`refused: ${error.message}`);
}
await pages.close();
rmSync(dir, { recursive: true, force: true });
