import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeEvent } from '../../pagewise/src/session/event-codec.js';
import { SESSION_SCHEMA_VERSION } from '../../pagewise/src/session/store.js';
import type { SessionEvent } from '../../pagewise/src/session/types.js';
import { migrate } from './migrations.js';
import { SqliteSessionStore } from './sqlite-store.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-event-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const key = { appName: 'a', userId: 'u', sessionId: 's' };
const base = (i: number) => ({ id: randomUUID(), invocationId: 'inv', author: 'a', timestamp: 1_700_000_000_000 + i });
const output = (index: number) =>
  JSON.stringify({ id: `r${index}`, status: 'delivered', total: 100 + index, note: 'x'.repeat(120) });

/** A model event with one call and its result, as the runner writes them. */
function pair(index: number): SessionEvent[] {
  return [
    {
      ...base(2 * index),
      kind: 'model',
      text: `Recording ${index}.`,
      toolCalls: [{ toolCallId: `call-${index}`, toolName: 'record', input: { id: `r${index}` } }],
      tokens: { o200k_base: 12 },
    },
    {
      ...base(2 * index + 1),
      kind: 'tool-result',
      toolCallId: `call-${index}`,
      toolName: 'record',
      output: output(index),
      isError: false,
      tokens: { o200k_base: 40 },
    },
  ];
}

describe('SQLite event rows (schemas 6 to 8)', () => {
  it('reads a database written with schema 5 (JSON object rows), then appends, lists and deletes in it', async () => {
    const dbPath = path.join(dir, 'v5.db');
    // The database as version 5 left it, with rows in the form that version wrote.
    const raw = new Database(dbPath);
    migrate(raw, 5);
    const old = [...pair(0), ...pair(1)];
    raw
      .prepare('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, 2)')
      .run(key.appName, key.userId, key.sessionId, '{"topic":"x"}', old.length, 1, 2);
    const insert = raw.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, 2)');
    old.forEach((e, seq) => insert.run(key.appName, key.userId, key.sessionId, seq, e.id, JSON.stringify(e)));
    // An empty session of another user, with no events.
    raw.prepare("INSERT INTO sessions VALUES ('a', 'v', 'empty', '{}', 0, 1, 1, 2)").run();
    raw.close();

    const store = new SqliteSessionStore({ path: dbPath });
    const session = (await store.getSession(key))!;
    expect(session.events).toEqual(old);
    expect(session.state).toEqual({ topic: 'x' });
    const added = pair(2);
    await store.appendEvents(session, added);
    await store.close();

    const reopened = new SqliteSessionStore({ path: dbPath });
    expect((await reopened.getSession(key))!.events).toEqual([...old, ...added]);
    const listed = (await reopened.listSessions({ appName: 'a' })).map((x) => [x.sessionId, x.eventCount]);
    expect(listed.sort()).toEqual([
      ['empty', 0],
      ['s', 6],
    ]);
    // The old table's shape stays readable as a view, old and new rows alike.
    const viewRows = reopened.db.prepare('SELECT seq, body FROM events WHERE session_id = ? ORDER BY seq').all('s') as {
      body: string;
    }[];
    expect(viewRows).toHaveLength(6);
    expect(viewRows[0]!.body.startsWith('{')).toBe(true);
    expect(viewRows[5]!.body.startsWith('[')).toBe(true);
    expect(await reopened.deleteSession(key)).toBe(true);
    expect(reopened.db.prepare('SELECT COUNT(*) AS n FROM event_rows').get()).toEqual({ n: 0 });
    await reopened.close();
  });

  it('reads a database written with schema 6 ((sid, seq) rows), keeping each session its own rows', async () => {
    const dbPath = path.join(dir, 'v6.db');
    // The database as version 6 left it: two sessions whose rows were appended alternately.
    const raw = new Database(dbPath);
    migrate(raw, 6);
    const other = { ...key, sessionId: 'other' };
    const mine = [...pair(0), ...pair(1)];
    const theirs = [...pair(2), ...pair(3), ...pair(4)];
    const insertSession = raw.prepare('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, 2)');
    insertSession.run(key.appName, key.userId, key.sessionId, '{}', mine.length, 1, 2);
    insertSession.run(other.appName, other.userId, other.sessionId, '{}', theirs.length, 1, 2);
    const insertSid = raw.prepare('INSERT INTO session_ids (app_name, user_id, session_id) VALUES (?, ?, ?)');
    const sidOf = (k: typeof key) => Number(insertSid.run(k.appName, k.userId, k.sessionId).lastInsertRowid);
    const [ownSid, otherSid] = [sidOf(key), sidOf(other)];
    const insert = raw.prepare('INSERT INTO event_rows VALUES (?, ?, ?, 2)');
    for (let seq = 0; seq < theirs.length; seq++) {
      if (mine[seq]) insert.run(ownSid, seq, encodeEvent(mine[seq]!));
      insert.run(otherSid, seq, encodeEvent(theirs[seq]!));
    }
    raw.close();

    const store = new SqliteSessionStore({ path: dbPath });
    const session = (await store.getSession(key))!;
    expect(session.events).toEqual(mine);
    expect((await store.getSession(other))!.events).toEqual(theirs);
    const added = pair(5);
    await store.appendEvents(session, added);
    expect((await store.getSession(key))!.events).toEqual([...mine, ...added]);
    const listed = (await store.listSessions({ appName: 'a' })).map((x) => [x.sessionId, x.eventCount]);
    expect(listed.sort()).toEqual([
      ['other', 6],
      ['s', 6],
    ]);
    // The view reads as the old table did: each session's rows numbered from 0, with the session's version.
    const view = store.db
      .prepare('SELECT session_id, seq, schema_version FROM events ORDER BY session_id, seq')
      .all() as { session_id: string; seq: number; schema_version: number }[];
    expect(view.map((r) => `${r.session_id}:${r.seq}:${r.schema_version}`)).toEqual([
      ...theirs.map((_, i) => `other:${i}:2`),
      // The session this store appended to carries the version it writes.
      ...[...mine, ...added].map((_, i) => `s:${i}:${SESSION_SCHEMA_VERSION}`),
    ]);
    expect(await store.deleteSession(key)).toBe(true);
    expect((await store.getSession(other))!.events).toEqual(theirs);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM event_rows').get()).toEqual({ n: theirs.length });
    await store.close();
  });

  it('reads a database written with schema 7 (whole events in the body), and writes new rows with their identity in columns', async () => {
    const file = path.join(dir, 'v7.db');
    const raw = new Database(file);
    migrate(raw, 7);
    const old = [...pair(0), ...pair(1)];
    raw
      .prepare('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, 3)')
      .run(key.appName, key.userId, key.sessionId, '{}', old.length, 1, 2);
    const sid = Number(
      raw
        .prepare('INSERT INTO session_ids (app_name, user_id, session_id) VALUES (?, ?, ?)')
        .run(key.appName, key.userId, key.sessionId).lastInsertRowid,
    );
    const insert = raw.prepare('INSERT INTO event_rows (k, body) VALUES (?, ?)');
    old.forEach((event, seq) => insert.run(sid * 2 ** 32 + seq, encodeEvent(event)));
    raw.close();

    const store = new SqliteSessionStore({ path: file });
    const session = (await store.getSession(key))!;
    expect(session.events).toEqual(old);
    // A UUID id, an id of another form (one that looks packed included), and an event outside the compact layout.
    const added: SessionEvent[] = [
      ...pair(2),
      { ...base(9), id: '~not-packed', invocationId: 'inv-2', author: 'user', kind: 'user', text: 'again' },
      {
        ...base(10),
        kind: 'tool-result',
        toolCallId: 'c',
        toolName: 'read',
        output: 'short',
        isError: false,
        compression: { guideline: 'g@1', backend: 'extractive', originalTokens: 900 },
      },
    ];
    await store.appendEvents(session, added);
    await store.close();

    const reopened = new SqliteSessionStore({ path: file });
    expect((await reopened.getSession(key))!.events).toEqual([...old, ...added]);
    const rows = reopened.db
      .prepare(
        'SELECT typeof(e.id) AS id, i.invocation_id AS inv, a.author, e.ts, e.body FROM event_rows e LEFT JOIN invocations i ON i.iid = e.iid LEFT JOIN authors a ON a.aid = e.aid ORDER BY e.k',
      )
      .all() as { id: string; inv: string | null; author: string | null; ts: number | null; body: string }[];
    // Rows written before the migration keep their whole event in the body.
    expect(rows.slice(0, old.length).map((row) => [row.id, row.ts])).toEqual(old.map(() => ['null', null]));
    expect(rows.slice(old.length).map((row) => [row.id, row.inv, row.author, row.ts])).toEqual([
      ['blob', 'inv', 'a', added[0]!.timestamp],
      ['blob', 'inv', 'a', added[1]!.timestamp],
      ['text', 'inv-2', 'user', added[2]!.timestamp],
      ['null', null, null, null],
    ]);
    // The identity is not stored again in the body.
    for (const [index, row] of rows.slice(old.length, -1).entries()) {
      expect(row.body).not.toContain(String(added[index]!.timestamp));
      expect(row.body).not.toContain('"inv');
    }
    expect(rows.at(-1)!.body).toContain(added[3]!.id);
    expect(reopened.db.prepare('SELECT COUNT(*) AS n FROM invocations').get()).toEqual({ n: 2 });
    // The view gives each row's identity as stored.
    const view = reopened.db.prepare('SELECT invocation_id, author, ts FROM events ORDER BY seq').all();
    expect(view.at(-2)).toEqual({ invocation_id: 'inv-2', author: 'user', ts: added[2]!.timestamp });
    await reopened.close();
  });

  it('refuses an append past the 2^32 events of a session key range, writing nothing', async () => {
    const store = new SqliteSessionStore({ path: path.join(dir, 'span.db') });
    const session = await store.createSession(key);
    // A session as if it held 2^32 - 1 events: the next event is its last.
    store.db.prepare('UPDATE sessions SET version = ? WHERE session_id = ?').run(2 ** 32 - 1, key.sessionId);
    session.version = 2 ** 32 - 1;
    await expect(store.appendEvents(session, pair(0))).rejects.toThrow(/more than 4294967296 events/);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM event_rows').get()).toEqual({ n: 0 });
    await store.appendEvents(session, pair(0).slice(0, 1));
    expect(store.db.prepare('SELECT k FROM event_rows').get()).toEqual({ k: 2 * 2 ** 32 - 1 });
    await store.close();
  });

  it('stores large bodies deflated when asked, and reads them back', async () => {
    const dbPath = path.join(dir, 'deflate.db');
    const store = new SqliteSessionStore({ path: dbPath, compressEventsAbove: 1024 });
    const session = await store.createSession(key);
    const big: SessionEvent = {
      ...base(0),
      kind: 'tool-result',
      toolCallId: 'c',
      toolName: 't',
      output: 'row 1;\n'.repeat(2000),
      isError: false,
    };
    const small = pair(1);
    await store.appendEvents(session, [big, ...small]);
    const blobs = store.db.prepare('SELECT typeof(body) AS t FROM event_rows ORDER BY k').all() as { t: string }[];
    expect(blobs.map((b) => b.t)).toEqual(['blob', 'text', 'text']);
    await store.close();
    const reopened = new SqliteSessionStore({ path: dbPath });
    expect((await reopened.getSession(key))!.events).toEqual([big, ...small]);
    await reopened.close();
    expect(() => new SqliteSessionStore({ path: dbPath, compressEventsAbove: -1 })).toThrow(/compressEventsAbove/);
  });

  // Content: a result's output, call id and tool name; a model event's text and tool calls as JSON. The
  // events carry UUIDs as the runner's do, which the content does not count.
  it('costs less than twice the content it records, per event, over 2,000 runner-like events', async () => {
    const dbPath = path.join(dir, 'size.db');
    const store = new SqliteSessionStore({ path: dbPath });
    // What an empty database costs (schema, one page per table) is not the events'.
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    const empty = statSync(dbPath).size;
    const session = await store.createSession(key);
    let content = 0;
    for (let index = 0; index < 1000; index++) {
      const events = pair(index);
      for (const event of events)
        content +=
          event.kind === 'tool-result'
            ? Buffer.byteLength(event.output + event.toolCallId + event.toolName)
            : event.kind === 'model'
              ? Buffer.byteLength(event.text + JSON.stringify(event.toolCalls))
              : 0;
      await store.appendEvents(session, events);
    }
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    await store.close();
    const bytes = statSync(dbPath).size - empty;
    expect(bytes / 2000).toBeLessThan((2 * content) / 2000);
  });
});
