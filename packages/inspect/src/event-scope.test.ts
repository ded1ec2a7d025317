/**
 * The inspector reads a session's events by the key the store keeps them under (see event-scope.ts): the
 * rowid range of SQLite schema 7 and later (with the identity in columns since schema 8), the `events` table or view of older files it opens read-only
 * (and so never migrates). The same two sessions, their rows appended alternately, are written as schemas
 * 5, 6 and the current one; every event query answers the same on all three.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeEvent } from '../../pagewise/src/session/event-codec.js';
import type { SessionEvent, SessionKey } from '../../pagewise/src/session/types.js';
import { migrate } from '../../sqlite/src/migrations.js';
import { SqliteSessionStore } from '../../sqlite/src/sqlite-store.js';
import { InspectData } from './data.js';
import { openSqliteReadOnly } from './db.js';
import { eventLayoutOf } from './event-scope.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-layout-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mine: SessionKey = { appName: 'a', userId: 'u', sessionId: 'mine' };
const theirs: SessionKey = { appName: 'a', userId: 'u', sessionId: 'theirs' };
const base = (tag: string, index: number) => ({
  id: `${tag}-${index}`,
  invocationId: 'inv',
  author: 'a',
  timestamp: 1_700_000_000_000 + index,
});

/**
 * Events of a session: questions, tool results (every fifth an error; every third written raw after its row, as
 * text with quotes and line breaks is) and a run error every seventh.
 */
function eventsOf(tag: string, count: number): SessionEvent[] {
  return Array.from({ length: count }, (_, index): SessionEvent => {
    if (index % 7 === 6)
      return { ...base(tag, index), kind: 'error', scope: 'run', code: 'unknown', message: `failed ${tag} ${index}` };
    if (index % 2)
      return {
        ...base(tag, index),
        kind: 'tool-result',
        toolCallId: `c${index}`,
        toolName: 'get',
        output: index % 3 === 0 ? `result ${tag} ${index}:\n{"rows": [0,1]}\n` : `result ${tag} ${index}`,
        isError: index % 5 === 0,
      };
    return { ...base(tag, index), kind: 'user', text: `question ${tag} ${index}` };
  });
}

const sessions: [SessionKey, SessionEvent[]][] = [
  [mine, eventsOf('mine', 30)],
  [theirs, eventsOf('theirs', 45)],
];

/** A database as schema `version` (5 or 6) left it, each session's rows appended in turn with the other's. */
function oldFile(version: 5 | 6): string {
  const file = path.join(dir, `v${version}.db`);
  const raw = new Database(file);
  migrate(raw, version);
  const insertSession = raw.prepare('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, 2)');
  for (const [key, events] of sessions)
    insertSession.run(key.appName, key.userId, key.sessionId, '{}', events.length, 1, events.at(-1)!.timestamp);
  const sids =
    version === 6
      ? sessions.map(([key]) =>
          Number(
            raw
              .prepare('INSERT INTO session_ids (app_name, user_id, session_id) VALUES (?, ?, ?)')
              .run(key.appName, key.userId, key.sessionId).lastInsertRowid,
          ),
        )
      : [];
  const v5 = version === 5 ? raw.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, 2)') : undefined;
  const v6 = version === 6 ? raw.prepare('INSERT INTO event_rows VALUES (?, ?, ?, 2)') : undefined;
  for (let seq = 0; seq < Math.max(...sessions.map(([, e]) => e.length)); seq++)
    sessions.forEach(([key, events], sessionIndex) => {
      const event = events[seq];
      if (!event) return;
      if (v6) v6.run(sids[sessionIndex], seq, encodeEvent(event));
      else v5!.run(key.appName, key.userId, key.sessionId, seq, event.id, JSON.stringify(event));
    });
  raw.close();
  return file;
}

/** A database written by the current store, the sessions' appends alternating. */
async function currentFile(): Promise<string> {
  const file = path.join(dir, 'current.db');
  const store = new SqliteSessionStore({ path: file });
  const live = await Promise.all(sessions.map(([k]) => store.createSession(k)));
  for (let from = 0; from < 45; from += 5)
    for (const [sessionIndex, [, events]] of sessions.entries())
      if (from < events.length) await store.appendEvents(live[sessionIndex]!, events.slice(from, from + 5));
  await store.close();
  return file;
}

/** What the inspector's event queries answer for one database. */
async function answers(file: string) {
  const data = new InspectData(openSqliteReadOnly(file));
  try {
    const list = await data.listSessions({}, 0, 10);
    const perSession = [];
    for (const [key] of sessions) {
      const needles = ['question', 'failed'];
      const matching = await data.eventsMatching(key, needles, { offset: 3, limit: 4 });
      // The time of creation is the clock's when the store wrote the session, not the test's.
      const { createdAt, ...header } = (await data.session(key, { errors: true }))!;
      expect(createdAt).toBeGreaterThan(0);
      perSession.push({
        header,
        version: await data.version(key),
        first: (await data.events(key, 0, 3)).map((e) => [e.seq, e.event?.id]),
        window: (await data.events(key, 27, 5)).map((e) => [e.seq, e.event?.id]),
        matching: matching.map((e) => [e.seq, e.event?.id]),
        counted: [await data.countMatching(key, needles), await data.countMatching(key, needles, 20)],
        range: (await data.eventRange(key, `${key.sessionId}-4`, `${key.sessionId}-9`))?.map((e) => e.event?.id),
      });
    }
    const rows = list.rows.map((r) => [r.sessionId, r.eventCount, r.errors, r.status, r.preview]);
    return { layout: await eventLayoutOf(data.db), rows, perSession };
  } finally {
    await data.close();
  }
}

describe('the inspector on each event layout', () => {
  it('answers the same from the rowid-keyed rows as from the events table and view of older files', async () => {
    const current = await answers(await currentFile());
    expect(current.layout).toBe('columns');
    for (const version of [5, 6] as const) {
      const old = await answers(oldFile(version));
      expect(old.layout).toBe('view');
      expect({ ...old, layout: 'columns' }).toEqual(current);
    }
    // Read from the rows as written, not from what the queries share.
    const [mineAnswers, theirsAnswers] = current.perSession;
    expect(current.rows.map((r) => r.slice(0, 2)).sort()).toEqual([
      ['mine', 30],
      ['theirs', 45],
    ]);
    expect(mineAnswers!.version).toEqual({ version: 30, eventCount: 30 });
    expect(theirsAnswers!.window).toEqual([27, 28, 29, 30, 31].map((i) => [i, `theirs-${i}`]));
    expect(mineAnswers!.window).toEqual([27, 28, 29].map((i) => [i, `mine-${i}`]));
    const isError = (e: SessionEvent) => e.kind === 'error' || (e.kind === 'tool-result' && e.isError);
    expect(mineAnswers!.header.errors).toBe(sessions[0]![1].filter(isError).length);
    const hits = sessions[1]![1].flatMap((e, i) => (e.kind === 'user' || e.kind === 'error' ? [i] : []));
    expect(theirsAnswers!.matching.map(([seq]) => seq)).toEqual(hits.slice(3, 7));
    expect(theirsAnswers!.counted).toEqual([hits.length, hits.filter((i) => i < 20).length]);
    expect(theirsAnswers!.range).toEqual([4, 5, 6, 7, 8, 9].map((i) => `theirs-${i}`));
  });
});
