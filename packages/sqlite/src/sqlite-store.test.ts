import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../pagewise/src/agents/agent.js';
import { Runner } from '../../pagewise/src/agents/runner.js';
import { tool } from '../../pagewise/src/agents/tool.js';
import { eventsToItems } from '../../pagewise/src/context/history.js';
import { itemText, measureRequest } from '../../pagewise/src/context/request.js';
import { StorageError, VersionConflictError } from '../../pagewise/src/errors.js';
import { SharedStateConflictError } from '../../pagewise/src/session/store.js';
import { scriptedModel } from '../../pagewise/src/models/scripted.js';
import { countTokens } from '../../pagewise/src/tokens/tokenizer.js';
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
    const dbPath = path.join(dir, 'future.db');
    const store = new SqliteSessionStore({ path: dbPath });
    const session = await store.createSession({ appName: 'a', userId: 'u' });
    await store.close();
    const raw = new Database(dbPath);
    raw.prepare('UPDATE sessions SET schema_version = 99').run();
    raw.close();
    const again = new SqliteSessionStore({ path: dbPath });
    await expect(again.getSession(session)).rejects.toBeInstanceOf(StorageError);
    await expect(again.getSession(session)).rejects.toThrow(/schema version 99/);
    await again.close();
  });

  it('reports a corrupt event record as a StorageError naming the session', async () => {
    const dbPath = path.join(dir, 'corrupt.db');
    const store = new SqliteSessionStore({ path: dbPath });
    const session = await store.createSession({ appName: 'a', userId: 'u' });
    await store.appendEvent(session, {
      kind: 'user',
      id: 'e1',
      invocationId: 'i',
      author: 'user',
      timestamp: 1,
      text: 'x',
    });
    store.db.prepare('UPDATE event_rows SET body = \'{"kind":"nope"}\'').run();
    await expect(store.getSession(session)).rejects.toThrow(new RegExp(session.sessionId));
    await store.close();
  });

  it('loads a database written before versioned shared state (schema 1 records, migrations 1-2)', async () => {
    const dbPath = path.join(dir, 'v1.db');
    // The tables as migrations 1 and 2 left them, with records written by that version.
    const raw = new Database(dbPath);
    raw.exec(`
      CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL);
      INSERT INTO schema_migrations VALUES (1, 0), (2, 0);
      CREATE TABLE sessions (app_name TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL, state TEXT NOT NULL, version INTEGER NOT NULL,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, schema_version INTEGER NOT NULL, PRIMARY KEY (app_name, user_id, session_id));
      CREATE TABLE events (app_name TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_id TEXT NOT NULL,
        body TEXT NOT NULL, schema_version INTEGER NOT NULL, PRIMARY KEY (app_name, user_id, session_id, seq));
      CREATE TABLE user_state (app_name TEXT NOT NULL, user_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (app_name, user_id, key));
      CREATE TABLE app_state (app_name TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (app_name, key));
      CREATE TABLE page_bodies (hash TEXT PRIMARY KEY, body TEXT NOT NULL, bytes INTEGER NOT NULL, tokens INTEGER NOT NULL);
      CREATE TABLE pages (namespace TEXT NOT NULL, uri TEXT NOT NULL, title TEXT NOT NULL, media_type TEXT NOT NULL, hash TEXT NOT NULL REFERENCES page_bodies(hash),
        fetched_at INTEGER NOT NULL, meta TEXT NOT NULL, schema_version INTEGER NOT NULL, PRIMARY KEY (namespace, uri));
      INSERT INTO sessions VALUES ('a', 'u', 'old', '{"topic":"x"}', 1, 1, 2, 1);
      INSERT INTO events VALUES ('a', 'u', 'old', 0, 'e0', '{"kind":"user","id":"e0","invocationId":"i","author":"user","timestamp":2,"text":"hi","delta":{"topic":"x","user:n":1}}', 1);
      INSERT INTO user_state VALUES ('a', 'u', 'user:n', '1');
      INSERT INTO app_state VALUES ('a', 'app:motd', '"hello"');
    `);
    raw.close();
    const store = new SqliteSessionStore({ path: dbPath });
    const session = (await store.getSession({ appName: 'a', userId: 'u', sessionId: 'old' }))!;
    expect(session.state).toEqual({ topic: 'x', 'user:n': 1, 'app:motd': 'hello' });
    expect(session.sharedVersions).toEqual({ 'user:n': 1, 'app:motd': 1 });
    expect(session.events.map((e) => e.id)).toEqual(['e0']);
    // Old keys take part in the version checks like new ones.
    await store.appendEvent(session, {
      kind: 'user',
      id: 'e1',
      invocationId: 'i',
      author: 'user',
      timestamp: 3,
      text: 'more',
      delta: { 'user:n': 2 },
      reads: { 'user:n': 1 },
    });
    expect((await store.getSession(session))?.sharedVersions?.['user:n']).toBe(2);
    await store.close();
  });

  it('uses WAL journaling', async () => {
    const store = new SqliteSessionStore({ path: path.join(dir, 'wal.db') });
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    await store.close();
  });
});

describe('SqliteSessionStore: token counts travel with the events', () => {
  it('a session the runner wrote is measured from its stored counts after reopening, as counting would give', async () => {
    const dbPath = path.join(dir, 'counts.db');
    const store = new SqliteSessionStore({ path: dbPath });
    const record = tool({
      name: 'record',
      description: 'Records a note.',
      inputSchema: z.object({ note: z.string() }),
      execute: ({ note }) => `recorded: ${note}`,
    });
    const runner = new Runner({
      agent: new Agent({ name: 'a', instruction: 'Record notes.', tools: [record] }),
      model: scriptedModel([{ toolCalls: [{ toolName: 'record', input: { note: 'the first note' } }] }, 'Done.']),
      store,
    });
    const { session } = await runner.run({ userId: 'u', message: 'Record one note.' });
    await store.close();
    const reopened = new SqliteSessionStore({ path: dbPath });
    const loaded = (await reopened.getSession(session))!;
    await reopened.close();
    expect(loaded.events.map((e) => e.kind)).toEqual(['user', 'model', 'tool-result', 'model']);
    const items = eventsToItems(loaded.events);
    expect(loaded.events.map((e) => e.tokens?.o200k_base)).toEqual(
      items.map((i) => countTokens(itemText(i), 'o200k_base')),
    );
    const request = { instruction: [], items, tools: [] };
    expect(measureRequest(request).total).toBe(items.reduce((n, i) => n + countTokens(itemText(i)), 0));
  });
});

describe('SqliteSessionStore: events loaded again', () => {
  const user = (id: string, text: string) =>
    ({ id, invocationId: 'i', author: 'user', timestamp: 1, kind: 'user', text }) as const;

  it('a row changed on disk after a load is read as it now is, and refused when it no longer parses', async () => {
    const store = new SqliteSessionStore({ path: path.join(dir, 'reload.db') });
    const session = await store.createSession({ appName: 'a', userId: 'u' });
    await store.appendEvents(session, [user('e1', 'first'), user('e2', 'second')]);
    expect((await store.getSession(session))!.events.map((e) => (e as { text: string }).text)).toEqual([
      'first',
      'second',
    ]);
    store.db.prepare("UPDATE event_rows SET body = replace(body, 'second', 'edited') WHERE k % 4294967296 = 1").run();
    expect((await store.getSession(session))!.events.map((e) => (e as { text: string }).text)).toEqual([
      'first',
      'edited',
    ]);
    store.db.prepare(`UPDATE event_rows SET body = replace(body, '"first"', '7') WHERE k % 4294967296 = 0`).run();
    await expect(store.getSession(session)).rejects.toBeInstanceOf(StorageError);
    await store.close();
  });

  it('loaded events are read-only and a session appended to after a load holds every event', async () => {
    const store = new SqliteSessionStore({ path: path.join(dir, 'shared.db') });
    const session = await store.createSession({ appName: 'a', userId: 'u' });
    await store.appendEvents(session, [user('e1', 'first')]);
    const loaded = (await store.getSession(session))!;
    expect(() => {
      (loaded.events[0] as { text: string }).text = 'changed';
    }).toThrow(TypeError);
    await store.appendEvents(loaded, [user('e2', 'second')]);
    await store.appendEvents(session, [user('e3', 'lost race')]).catch(() => undefined);
    const again = (await store.getSession(session))!;
    expect(again.events.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(again.events[0]).toMatchObject({ text: 'first' });
    await store.close();
  });

  it('events appended after a load are read from their rows by the next load, then shared by later loads', async () => {
    const store = new SqliteSessionStore({ path: path.join(dir, 'appended.db') });
    const session = await store.createSession({ appName: 'a', userId: 'u' });
    await store.appendEvents(session, [user('e1', 'first')]);
    await store.getSession(session);
    await store.appendEvents(session, [user('e2', 'second'), user('e3', 'third')]);
    store.db.prepare("UPDATE event_rows SET body = replace(body, 'third', 'edited') WHERE k % 4294967296 = 2").run();
    const one = (await store.getSession(session))!;
    expect(one.events.map((e) => (e as { text: string }).text)).toEqual(['first', 'second', 'edited']);
    expect(one.events.every((e) => Object.isFrozen(e))).toBe(true);
    const two = (await store.getSession(session))!;
    one.events.forEach((e, i) => expect(two.events[i]).toBe(e));
    store.db.prepare(`UPDATE event_rows SET body = replace(body, '"second"', '7') WHERE k % 4294967296 = 1`).run();
    await expect(store.getSession(session)).rejects.toBeInstanceOf(StorageError);
    await store.close();
  });
});

describe('SqliteSessionStore: an append after another process changed the session', () => {
  const user = (id: string, delta?: Record<string, string>) =>
    ({ id, invocationId: 'i', author: 'user', timestamp: 1, kind: 'user', text: id, ...(delta && { delta }) }) as const;
  /** The keys of every event row, as (integer session id, event number). */
  const rowKeys = (store: SqliteSessionStore) =>
    store.db
      .prepare<[], { sid: number; seq: number }>(
        'SELECT k / 4294967296 AS sid, k % 4294967296 AS seq FROM event_rows ORDER BY k',
      )
      .all();
  const sidOf = (store: SqliteSessionStore, sessionId: string) =>
    store.db.prepare<[string], { sid: number }>('SELECT sid FROM session_ids WHERE session_id = ?').get(sessionId)?.sid;

  /** Two store instances on one new file, as two processes would have it, and a session created through the first. */
  const twoStores = async (name: string) => {
    const dbPath = path.join(dir, name);
    const [one, two] = [new SqliteSessionStore({ path: dbPath }), new SqliteSessionStore({ path: dbPath })];
    const key = { appName: 'a', userId: 'u', sessionId: 's' };
    return { one, two, key, held: await one.createSession(key) };
  };

  it('lands in the session created again under the same key, never in the rows of the deleted one', async () => {
    const { one, two, key, held } = await twoStores('recreated.db');
    // Another session after it, so the session created again gets a new integer id.
    await one.createSession({ ...key, sessionId: 'later' });
    await one.appendEvents(held, [user('e1')]);
    const deadSid = sidOf(one, 's')!;

    await two.deleteSession(key);
    const recreated = await two.createSession(key);
    await two.appendEvents(recreated, [user('f1')]);
    const newSid = sidOf(two, 's')!;
    expect(newSid).not.toBe(deadSid);
    // The row is as `one` left it (version 1, the same state): only the integer id tells them apart.
    expect(held.version).toBe(recreated.version);

    await one.appendEvents(held, [user('e2')]);
    expect((await two.getSession(key))!.events.map((e) => e.id)).toEqual(['f1', 'e2']);
    expect(rowKeys(one)).toEqual([
      { sid: newSid, seq: 0 },
      { sid: newSid, seq: 1 },
    ]);
    await Promise.all([one.close(), two.close()]);
  });

  it('is refused with a VersionConflictError when the session created again is at another version', async () => {
    const { one, two, key, held } = await twoStores('recreated-version.db');
    await one.appendEvents(held, [user('e1')]);

    await two.deleteSession(key);
    await two.createSession(key);
    await expect(one.appendEvents(held, [user('e2')])).rejects.toBeInstanceOf(VersionConflictError);
    expect(rowKeys(one)).toEqual([]);

    await two.deleteSession(key);
    await expect(one.appendEvents(held, [user('e2')])).rejects.toMatchObject({ actualVersion: -1 });
    expect(rowKeys(one)).toEqual([]);
    await Promise.all([one.close(), two.close()]);
  });

  it('reports the version conflict, not one computed on the state it last wrote, when the session changed', async () => {
    const { one, two, key, held } = await twoStores('stale-plan.db');
    await one.appendEvents(held, [user('e1')]);
    // A read of a user: key at a version it never had: refused by the plan itself.
    const staleRead = { ...user('e2'), reads: { 'user:k': 5 } };
    await expect(one.appendEvents(held, [staleRead])).rejects.toBeInstanceOf(SharedStateConflictError);

    await two.deleteSession(key);
    await expect(one.appendEvents(held, [staleRead])).rejects.toMatchObject({
      name: 'VersionConflictError',
      actualVersion: -1,
    });
    expect(rowKeys(one)).toEqual([]);
    await Promise.all([one.close(), two.close()]);
  });

  it('reads and validates the state again when it changed on disk since its own append', async () => {
    const store = new SqliteSessionStore({ path: path.join(dir, 'state-changed.db') });
    const session = await store.createSession({ appName: 'a', userId: 'u' });
    await store.appendEvents(session, [user('e1', { topic: 'x' })]);
    store.db.prepare(`UPDATE sessions SET state = '{"topic":"edited"}'`).run();
    await store.appendEvents(session, [user('e2', { other: 'y' })]);
    expect((await store.getSession(session))!.state).toEqual({ topic: 'edited', other: 'y' });

    store.db.prepare(`UPDATE sessions SET state = '[1]'`).run();
    await expect(store.appendEvents(session, [user('e3')])).rejects.toThrow();
    expect(rowKeys(store).map((r) => r.seq)).toEqual([0, 1]);
    await store.close();
  });
});

describe('SqliteSessionStore: the rows of a run', () => {
  it('read back exactly the events the runner wrote, usage, finish reasons and state deltas included', async () => {
    const dbFile = path.join(dir, 'runner-rows.db');
    const store = new SqliteSessionStore({ path: dbFile });
    const record = tool({
      name: 'record',
      description: 'Records a delivery.',
      inputSchema: z.object({ id: z.string() }),
      execute: ({ id }, ctx) => {
        ctx.state.set('last_record', id);
        return { id, status: 'delivered', note: `left "at the door"\n${id}` };
      },
    });
    const runner = new Runner({
      agent: new Agent({ name: 'recorder', instruction: 'Record deliveries.', tools: [record] }),
      model: scriptedModel([
        {
          text: 'Recording "r1".',
          toolCalls: [{ toolName: 'record', input: { id: 'r1' } }],
          usage: { inputTokens: 1200, outputTokens: 14 },
        },
        { toolCalls: [{ toolName: 'record', input: { id: 'r2' } }], usage: { inputTokens: 1260, outputTokens: 9 } },
        { text: 'Recorded both.\nDone.', usage: { inputTokens: 1300, outputTokens: 6 } },
      ]),
      store,
    });
    const { session } = await runner.run({ userId: 'u', message: 'Record "r1" and r2.' });
    await store.close();
    const reopened = new SqliteSessionStore({ path: dbFile });
    const loaded = (await reopened.getSession(session))!;
    const bodies = reopened.db.prepare<[], { body: string }>('SELECT body FROM event_rows ORDER BY k').all();
    await reopened.close();
    expect(loaded.events.map((e) => e.kind)).toEqual(['user', 'model', 'tool-result', 'model', 'tool-result', 'model']);
    expect(loaded.events).toEqual(session.events);
    const models = session.events.filter((e) => e.kind === 'model');
    expect(models.map((e) => e.usage?.providerPromptTokens)).toEqual([1200, 1260, 1300]);
    expect(session.events.filter((e) => e.delta).map((e) => e.delta)).toEqual([
      { last_record: 'r1' },
      { last_record: 'r2' },
    ]);
    // The lean form: no usage key names, and the tool's JSON output stored as it is, not escaped.
    expect(bodies.some((row) => row.body.includes('Tokens'))).toBe(false);
    expect(bodies.filter((row) => row.body.includes('\n{\n  "id": ')).length).toBe(2);
  });
});
