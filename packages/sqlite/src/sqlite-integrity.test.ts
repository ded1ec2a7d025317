/**
 * Regression tests of two reliability findings on the SQLite stores: "integrity is not checked on read"
 * (a flipped byte in a stored page body was answered silently; a truncated or damaged database gave a
 * raw SqliteError or a misleading "table … already exists") and "SQLite contention surfaces as raw
 * errors" (a lock held past the busy timeout must be a typed, retryable error).
 */
import {
  closeSync,
  copyFileSync,
  mkdtempSync,
  openSync,
  readFileSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  DatabaseCorruptError,
  IntegrityError,
  PagewiseError,
  StorageBusyError,
  StorageError,
} from '../../pagewise/src/errors.js';
import { SqliteCompressorCallStore } from './sqlite-compressor-calls.js';
import { SqlitePageStore } from './sqlite-page-store.js';
import { SqliteSessionStore } from './sqlite-store.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-sqlite-integrity-'));

async function filledDatabase(name: string): Promise<string> {
  const file = path.join(dir, name);
  const store = new SqliteSessionStore({ path: file });
  const pages = new SqlitePageStore({ database: store.db });
  for (let index = 0; index < 30; index++) {
    const session = await store.createSession({ appName: 'a', userId: 'u', sessionId: `s${index}` });
    await store.appendEvent(session, {
      kind: 'user',
      id: `e${index}`,
      invocationId: 'i',
      author: 'user',
      timestamp: 1,
      text: 'x'.repeat(400),
    });
    await pages.put({
      namespace: 'n',
      uri: `report-${index}`,
      body: `Report ${index}: revenue ${1000 + index}. ${'y'.repeat(600)}`,
    });
  }
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  await store.close();
  return file;
}

/** Opens the stores on `file` and reads everything; returns what was thrown. */
async function readAll(file: string): Promise<unknown> {
  try {
    const store = new SqliteSessionStore({ path: file });
    try {
      const pages = new SqlitePageStore({ database: store.db });
      for (const listed of await store.listSessions({ appName: 'a' })) await store.getSession(listed);
      for (const page of await pages.list('n')) await pages.get('n', page.uri);
    } finally {
      await store.close();
    }
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('integrity is not checked on read (finding)', () => {
  it('a flipped byte in a stored page body is an IntegrityError naming the page, never a silent answer', async () => {
    const store = new SqlitePageStore({ path: path.join(dir, 'flip.db') });
    await store.put({ namespace: 'n', uri: 'report-7', body: 'Revenue 1,192,884 over 20 reports.' });
    store.db.prepare("UPDATE page_bodies SET body = replace(body, '1,192,884', '1,631,190')").run();
    const err = await store.get('n', 'report-7').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IntegrityError);
    expect(err).toBeInstanceOf(StorageError);
    expect((err as IntegrityError).code).toBe('integrity');
    expect((err as IntegrityError).retryable).toBe(false);
    expect((err as Error).message).toContain('report-7');
    expect((err as IntegrityError).uri).toBe('report-7');
    // Metadata reads do not touch the body and still work, so the page can be listed and put again.
    expect((await store.info('n', 'report-7'))?.uri).toBe('report-7');
    await store.put({ namespace: 'n', uri: 'report-7', body: 'Revenue 1,192,884 over 20 reports, again.' });
    expect((await store.get('n', 'report-7'))?.body).toContain('again');
    await store.close();
  });

  it('a flipped byte on disk is caught too', async () => {
    const file = await filledDatabase('disk-flip.db');
    // Find report-12's body on disk and change one digit of it.
    const needle = Buffer.from('Report 12: revenue 1012');
    const at = readFileSync(file).indexOf(needle);
    expect(at).toBeGreaterThan(0);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from('9'), 0, 1, at + needle.length - 1);
    closeSync(fd);
    const err = await readAll(file);
    expect(err).toBeInstanceOf(IntegrityError);
    expect((err as Error).message).toContain('report-12');
  });

  it.each([0.9, 0.5, 0.1])(
    'a database truncated to %s of its size is a DatabaseCorruptError with the path and what to do',
    async (share) => {
      const source = await filledDatabase(`trunc-src-${share}.db`);
      const file = path.join(dir, `trunc-${share}.db`);
      copyFileSync(source, file);
      truncateSync(file, Math.floor(statSync(file).size * share));
      const err = await readAll(file);
      expect(err).toBeInstanceOf(DatabaseCorruptError);
      expect(PagewiseError.isInstance(err)).toBe(true);
      expect((err as Error).message).toContain(file);
      expect((err as Error).message).toMatch(/is corrupt/);
      expect((err as Error).message).toMatch(/backup/);
      expect((err as Error).constructor.name).not.toBe('SqliteError');
    },
  );

  it('a file that is not a database is a DatabaseCorruptError, not a raw SqliteError', async () => {
    const file = await filledDatabase('header.db');
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(32, 0x41), 0, 32, 0);
    closeSync(fd);
    const err = await readAll(file);
    expect(err).toBeInstanceOf(DatabaseCorruptError);
    expect((err as DatabaseCorruptError).path).toBe(file);
  });

  it('a lost migration record is reported as corruption, not "table … already exists"', async () => {
    const file = await filledDatabase('migrations.db');
    const raw = new Database(file);
    raw.prepare('DELETE FROM schema_migrations WHERE version = 4').run();
    raw.close();
    const err = await readAll(file);
    expect(err).toBeInstanceOf(DatabaseCorruptError);
    expect((err as Error).message).toMatch(/disagree with its migration record/);
    expect((err as Error).message).toContain(file);
  });
});

describe('SQLite contention surfaces as raw errors (finding): a lock held past the busy timeout', () => {
  it('is a retryable StorageBusyError from every writing store, and the call succeeds once repeated', async () => {
    const file = path.join(dir, 'busy.db');
    const store = new SqliteSessionStore({ path: file, busyTimeoutMs: 50 });
    const pages = new SqlitePageStore({ path: file, busyTimeoutMs: 50 });
    const calls = new SqliteCompressorCallStore({ path: file, busyTimeoutMs: 50 });
    const session = await store.createSession({ appName: 'a', userId: 'u' });
    // Another connection (as another process would) holds the write lock.
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const attempts: Promise<unknown>[] = [
      store.createSession({ appName: 'a', userId: 'u' }),
      store.appendEvent(session, {
        kind: 'user',
        id: 'e1',
        invocationId: 'i',
        author: 'user',
        timestamp: 1,
        text: 'x',
      }),
      store.deleteSession(session),
      pages.put({ namespace: 'n', uri: 'p', body: 'b' }),
      pages.delete('n', 'p'),
      calls.setEpisodeSuccess('ep', 1),
    ];
    for (const attempt of attempts) {
      const err = await attempt.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StorageBusyError);
      expect((err as StorageBusyError).retryable).toBe(true);
      expect((err as StorageBusyError).code).toBe('storage-busy');
      expect((err as Error).message).toContain(file);
      expect((err as Error).message).toMatch(/50 ms/);
    }
    other.exec('ROLLBACK');
    other.close();
    // Nothing was half-written: the session is where it was and the repeated call succeeds.
    expect((await store.getSession(session))?.version).toBe(0);
    await store.appendEvent(session, {
      kind: 'user',
      id: 'e1',
      invocationId: 'i',
      author: 'user',
      timestamp: 1,
      text: 'x',
    });
    expect((await store.getSession(session))?.version).toBe(1);
    await Promise.all([store.close(), pages.close(), calls.close()]);
  });
});
