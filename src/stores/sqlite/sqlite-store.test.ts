import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../errors.js';
import { sessionStoreContract } from '../../../test/contracts/session-store.contract.js';
import { SqliteSessionStore } from './sqlite-store.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-sqlite-'));
const file = path.join(dir, 'contract.db');

sessionStoreContract('sqlite', async () => new SqliteSessionStore({ path: file }), {
  reopen: async (old) => {
    await old.close();
    return new SqliteSessionStore({ path: file });
  },
});

describe('SqliteSessionStore', () => {
  it('refuses to read a session written by an unknown schema version', async () => {
    const f = path.join(dir, 'future.db');
    const store = new SqliteSessionStore({ path: f });
    const s = await store.createSession({ appName: 'a', userId: 'u' });
    await store.close();
    const raw = new Database(f);
    raw.prepare('UPDATE sessions SET schema_version = 99').run();
    raw.close();
    const again = new SqliteSessionStore({ path: f });
    await expect(again.getSession(s)).rejects.toBeInstanceOf(StorageError);
    await expect(again.getSession(s)).rejects.toThrow(/schema version 99/);
    await again.close();
  });

  it('reports a corrupt event record as a StorageError naming the session', async () => {
    const f = path.join(dir, 'corrupt.db');
    const store = new SqliteSessionStore({ path: f });
    const s = await store.createSession({ appName: 'a', userId: 'u' });
    await store.appendEvent(s, { kind: 'user', id: 'e1', invocationId: 'i', author: 'user', timestamp: 1, text: 'x' });
    store.db.prepare("UPDATE events SET body = '{\"kind\":\"nope\"}'").run();
    await expect(store.getSession(s)).rejects.toThrow(new RegExp(s.sessionId));
    await store.close();
  });

  it('uses WAL journaling', async () => {
    const store = new SqliteSessionStore({ path: path.join(dir, 'wal.db') });
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    await store.close();
  });
});
