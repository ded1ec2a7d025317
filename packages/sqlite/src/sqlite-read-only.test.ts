/**
 * `readOnly: true` opens someone's store as a reader should: it creates, migrates and writes nothing, reads what is
 * there, and refuses a file that is missing, not pagewise's, or older than this version's schema.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../pagewise/src/errors.js';
import { migrate } from './migrations.js';
import { SqliteSessionStore } from './sqlite-store.js';

const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('SqliteSessionStore readOnly', () => {
  it('reads the sessions and app names of a store, writes nothing, and refuses a write', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-sqlite-ro-'));
    const file = path.join(dir, 'store.db');
    const writer = new SqliteSessionStore({ path: file });
    const session = await writer.createSession({ appName: 'support', userId: 'u1' });
    await writer.appendEvent(session, {
      kind: 'user',
      id: 'e1',
      invocationId: 'i1',
      author: 'user',
      timestamp: 1,
      text: 'hello',
    });
    await writer.createSession({ appName: 'billing', userId: 'u2' });
    await writer.close();
    const before = digest(file);

    const reader = new SqliteSessionStore({ path: file, readOnly: true });
    expect(await reader.listAppNames()).toEqual(['billing', 'support']);
    const [summary] = await reader.listSessions({ appName: 'support' });
    const read = await reader.getSession(summary!);
    expect(read?.events.map((event) => event.kind)).toEqual(['user']);
    await expect(reader.createSession({ appName: 'support', userId: 'u3' })).rejects.toThrow(/readonly/i);
    await reader.close();
    expect(digest(file)).toBe(before);
  });

  it('refuses a missing file without creating it or its folder', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-sqlite-ro-'));
    const file = path.join(dir, 'absent', 'store.db');
    expect(() => new SqliteSessionStore({ path: file, readOnly: true })).toThrow(StorageError);
    expect(existsSync(path.dirname(file))).toBe(false);
  });

  it('refuses a SQLite file pagewise did not write, and one older than this schema, saying how to migrate', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-sqlite-ro-'));
    const foreign = path.join(dir, 'foreign.db');
    const other = new Database(foreign);
    other.exec('CREATE TABLE notes (body TEXT)');
    other.close();
    expect(() => new SqliteSessionStore({ path: foreign, readOnly: true })).toThrow(/pagewise did not write/);

    const old = path.join(dir, 'old.db');
    const raw = new Database(old);
    migrate(raw, 6);
    raw.close();
    const before = digest(old);
    expect(() => new SqliteSessionStore({ path: old, readOnly: true })).toThrow(
      /lacks schema migration\(s\) 7, 8, and a read-only open does not migrate/,
    );
    expect(digest(old)).toBe(before);
  });
});
