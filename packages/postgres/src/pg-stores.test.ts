import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../pagewise/src/agents/agent.js';
import { Runner } from '../../pagewise/src/agents/runner.js';
import { tool } from '../../pagewise/src/agents/tool.js';
import { ConfigurationError, IntegrityError, StorageError, VersionConflictError } from '../../pagewise/src/errors.js';
import { scriptedModel } from '../../pagewise/src/models/scripted.js';
import { SESSION_SCHEMA_VERSION } from '../../pagewise/src/session/store.js';
import type { SessionEvent } from '../../pagewise/src/session/types.js';
import { pageStoreContract } from '../../../test/contracts/page-store.contract.js';
import { dropSchema, pgTestUrl, skipPg, uniqueSchema } from '../../../test/contracts/pg-test-database.js';
import { sessionStoreContract } from '../../../test/contracts/session-store.contract.js';
import { LATEST_PG_SCHEMA, PG_MIGRATIONS } from './migrations.js';
import { openPgDatabase, redactDatabaseUrl, resolveDatabaseUrl } from './pg-database.js';
import { PgPageStore } from './pg-page-store.js';
import { PgSessionStore } from './pg-session-store.js';

describe('PostgreSQL URL resolution (no server needed)', () => {
  it('names PAGEWISE_DATABASE_URL when no URL is configured', () => {
    let err: unknown;
    try {
      resolveDatabaseUrl(undefined, {});
    } catch (error) {
      err = error;
    }
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toMatch(/PAGEWISE_DATABASE_URL/);
  });

  it('refuses a URL that is not postgres:// and says which setting to fix', () => {
    expect(() => resolveDatabaseUrl(undefined, { PAGEWISE_DATABASE_URL: 'mysql://x@h/db' })).toThrow(
      /PAGEWISE_DATABASE_URL.*"mysql:"|"mysql:".*PAGEWISE_DATABASE_URL/,
    );
    expect(() => resolveDatabaseUrl('not a url', {})).toThrow(/`url` option is not a URL.*PAGEWISE_DATABASE_URL/);
    expect(resolveDatabaseUrl(undefined, { PAGEWISE_DATABASE_URL: 'postgresql://u@h/db' })).toBe('postgresql://u@h/db');
  });

  it('never shows the password', () => {
    expect(redactDatabaseUrl('postgres://me:s3cret@db.example:5432/app')).toBe('postgres://me:***@db.example:5432/app');
  });

  it('refuses a schema that is not a plain lower-case identifier', () => {
    expect(() => openPgDatabase({ url: 'postgres://u@127.0.0.1/db', schema: 'x; DROP TABLE y' })).toThrow(
      ConfigurationError,
    );
  });

  it('reports an unreachable server as a StorageError naming the URL without its password', async () => {
    const store = new PgSessionStore({ url: 'postgres://me:s3cret@127.0.0.1:1/nowhere' });
    const err = await store.getSession({ appName: 'a', userId: 'u', sessionId: 's' }).catch((e: unknown) => e);
    await store.close();
    expect(err).toBeInstanceOf(StorageError);
    expect((err as Error).message).toMatch(
      /Cannot connect to PostgreSQL at postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/nowhere/,
    );
    expect((err as Error).message).toMatch(/PAGEWISE_DATABASE_URL/);
    expect((err as Error).message).not.toContain('s3cret');
  });
});

const url = pgTestUrl;
if (!url) {
  skipPg('PostgreSQL stores');
} else {
  const schema = uniqueSchema('stores');
  const schemas = [schema];
  const fresh = (label: string): string => {
    const schemaName = uniqueSchema(label);
    schemas.push(schemaName);
    return schemaName;
  };
  afterAll(async () => {
    for (const schemaName of schemas) await dropSchema(url, schemaName);
  });

  sessionStoreContract('postgres', async () => new PgSessionStore({ url, schema }), {
    reopen: async (old) => {
      await old.close();
      return new PgSessionStore({ url, schema });
    },
  });
  pageStoreContract('postgres', async () => new PgPageStore({ url, schema }));

  describe('PostgreSQL migrations', () => {
    it('applies every migration on first use, once, even with several workers starting together', async () => {
      const schemaName = fresh('migrate');
      const dbs = Array.from({ length: 4 }, () => openPgDatabase({ url, schema: schemaName }));
      const results = await Promise.all(dbs.map((db) => db.migrate()));
      expect(results.flatMap((r) => r.applied).sort()).toEqual(PG_MIGRATIONS.map((m) => m.version));
      expect(results.every((r) => r.version === LATEST_PG_SCHEMA)).toBe(true);
      const again = await dbs[0]!.migrate();
      expect(again.applied).toEqual([]);
      await Promise.all(dbs.map((db) => db.close()));
    });

    it('with migrate: false, refuses an unmigrated schema and says to run `pagewise db migrate`', async () => {
      const schemaName = fresh('nomig');
      const store = new PgSessionStore({ url, schema: schemaName, migrate: false });
      const err = await store.listSessions({ appName: 'a' }).catch((e: unknown) => e);
      await store.close();
      expect(err).toBeInstanceOf(ConfigurationError);
      expect((err as Error).message).toMatch(/version 0.*needs \d+.*pagewise db migrate/);
    });

    it('reads a schema that version 3 left (one row per event with its key strings), then appends, lists and deletes', async () => {
      const schemaName = fresh('v3');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`CREATE SCHEMA ${schemaName}; SET search_path = ${schemaName}`);
      await client.query('CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)');
      for (const migration of PG_MIGRATIONS.filter((x) => x.version <= 3)) {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations VALUES ($1, 1)', [migration.version]);
      }
      const event = (id: string, text: string): SessionEvent => ({
        kind: 'user',
        id,
        invocationId: 'i',
        author: 'user',
        timestamp: 5,
        text,
      });
      const mine = [event('a0', 'first'), event('a1', 'second')];
      const theirs = [event('b0', 'other')];
      const insertSession = 'INSERT INTO sessions VALUES ($1, $2, $3, $4, $5, 1, 5, $6)';
      await client.query(insertSession, ['old', 'u', 'mine', '{"topic":"x"}', 2, SESSION_SCHEMA_VERSION]);
      await client.query(insertSession, ['old', 'v', 'theirs', '{}', 1, SESSION_SCHEMA_VERSION]);
      await client.query(insertSession, ['old', 'u', 'empty', '{}', 0, SESSION_SCHEMA_VERSION]);
      const rows: [string, string, SessionEvent[]][] = [
        ['u', 'mine', mine],
        ['v', 'theirs', theirs],
      ];
      for (const [userId, sessionId, events] of rows)
        for (const [seq, sessionEvent] of events.entries())
          await client.query('INSERT INTO events VALUES ($1, $2, $3, $4, $5, $6, $7)', [
            'old',
            userId,
            sessionId,
            seq,
            sessionEvent.id,
            JSON.stringify(sessionEvent),
            SESSION_SCHEMA_VERSION,
          ]);
      await client.end();

      const store = new PgSessionStore({ url, schema: schemaName });
      const session = (await store.getSession({ appName: 'old', userId: 'u', sessionId: 'mine' }))!;
      expect(session.events).toEqual(mine);
      expect(session.state).toEqual({ topic: 'x' });
      const added = event('a2', 'third');
      await store.appendEvents(session, [added]);
      expect((await store.getSession(session))!.events).toEqual([...mine, added]);
      expect((await store.getSession({ appName: 'old', userId: 'v', sessionId: 'theirs' }))!.events).toEqual(theirs);
      const listed = (await store.listSessions({ appName: 'old' })).map((x) => `${x.sessionId}:${x.eventCount}`);
      expect(listed.sort()).toEqual(['empty:0', 'mine:3', 'theirs:1']);
      // The old table's shape stays readable as a view: the copied row in its JSON object form, the new in the compact one.
      const view = await store.database.query<{ seq: number; body: string }>(
        "SELECT seq, body FROM events WHERE app_name = 'old' AND session_id = 'mine' ORDER BY seq",
        [],
      );
      expect(view.rows.map((r) => [r.seq, r.body[0]])).toEqual([
        [0, '{'],
        [1, '{'],
        [2, '['],
      ]);
      expect(await store.deleteSession(session)).toBe(true);
      const left = await store.database.query<{ n: string }>('SELECT count(*) AS n FROM event_rows', []);
      expect(left.rows[0]!.n).toBe('1');
      await store.close();
    });

    it('keeps each schema apart', async () => {
      const first = new PgSessionStore({ url, schema: fresh('iso_a') });
      const second = new PgSessionStore({ url, schema: fresh('iso_b') });
      await first.createSession({ appName: 'iso', userId: 'u', sessionId: 'only-in-a' });
      expect(await second.listSessions({ appName: 'iso' })).toEqual([]);
      expect(await first.listSessions({ appName: 'iso' })).toHaveLength(1);
      await first.close();
      await second.close();
    });
  });

  describe('PgSessionStore', () => {
    const raw = async (sql: string, params: unknown[] = []): Promise<void> => {
      const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
      await client.connect();
      await client.query(sql, params);
      await client.end();
    };

    it('refuses to read a session written by an unknown schema version', async () => {
      const store = new PgSessionStore({ url, schema });
      const session = await store.createSession({ appName: 'pg-only', userId: 'u' });
      await raw('UPDATE sessions SET schema_version = 99 WHERE session_id = $1', [session.sessionId]);
      await expect(store.getSession(session)).rejects.toThrow(/schema version 99/);
      await raw('UPDATE sessions SET schema_version = $2 WHERE session_id = $1', [
        session.sessionId,
        SESSION_SCHEMA_VERSION,
      ]);
      expect((await store.getSession(session))?.sessionId).toBe(session.sessionId);
      await store.close();
    });

    it('reports a corrupt event record as a StorageError naming the session', async () => {
      const store = new PgSessionStore({ url, schema });
      const session = await store.createSession({ appName: 'pg-only', userId: 'u' });
      await store.appendEvent(session, {
        kind: 'user',
        id: 'e1',
        invocationId: 'i',
        author: 'user',
        timestamp: 1,
        text: 'x',
      });
      await raw(
        `UPDATE event_rows SET body = '{"kind":"nope"}' WHERE sid = (SELECT sid FROM sessions WHERE session_id = $1)`,
        [session.sessionId],
      );
      const err = await store.getSession(session).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StorageError);
      expect((err as Error).message).toContain(session.sessionId);
      await store.close();
    });

    it('lets exactly one of two pools win a race on the same session version', async () => {
      const first = new PgSessionStore({ url, schema });
      const second = new PgSessionStore({ url, schema });
      const session = await first.createSession({ appName: 'pg-only', userId: 'race' });
      const copies = [(await first.getSession(session))!, (await second.getSession(session))!];
      const results = await Promise.allSettled(
        copies.map((copy, index) =>
          (index === 0 ? first : second).appendEvent(copy, {
            kind: 'user',
            id: `r${index}`,
            invocationId: 'i',
            author: 'user',
            timestamp: 1,
            text: `w${index}`,
            delta: { w: index },
          }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toBeInstanceOf(VersionConflictError);
      expect((await first.getSession(session))?.events).toHaveLength(1);
      await first.close();
      await second.close();
    });

    const ev = (text: string, extra: Partial<SessionEvent> = {}): SessionEvent =>
      ({
        kind: 'user',
        id: `${text}-${Math.random()}`,
        invocationId: 'i',
        author: 'user',
        timestamp: Date.now(),
        text,
        ...extra,
      }) as SessionEvent;

    it('appendEventsLocked reloads a stale session under the locks, builds, appends, and makes other writers wait', async () => {
      const store = new PgSessionStore({ url, schema });
      const session = await store.createSession({ appName: 'pg-lock', userId: 'u' });
      const stale = (await store.getSession(session))!;
      stale.state['temp:keep'] = 1;
      await store.appendEvent(session, ev('first', { delta: { 'user:n': 1 } }));
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const order: string[] = [];
      const locked = store.appendEventsLocked(stale, ['user:n'], async () => {
        order.push('build');
        await gate;
        const count = stale.state['user:n'] as number;
        return [
          ev('locked', { delta: { 'user:n': count + 1 }, reads: { 'user:n': stale.sharedVersions!['user:n']! } }),
        ];
      });
      await new Promise((r) => setTimeout(r, 50));
      // Another writer of the same session and key: it must wait for the lock, then find the version moved.
      const other = store.appendEvent(session, ev('other', { delta: { 'user:n': 100 } })).then(
        () => order.push('other ok'),
        (e: unknown) => order.push(e instanceof VersionConflictError ? 'other conflict' : 'other failed'),
      );
      await new Promise((r) => setTimeout(r, 100));
      expect(order).toEqual(['build']);
      release();
      await locked;
      await other;
      expect(order).toEqual(['build', 'other conflict']);
      expect(stale.state).toMatchObject({ 'user:n': 2, 'temp:keep': 1 });
      expect(stale.version).toBe(2);
      expect((await store.getSession(session))?.events.map((e) => (e.kind === 'user' ? e.text : ''))).toEqual([
        'first',
        'locked',
      ]);
      await store.close();
    });

    it('lets the runner finish a step that keeps losing optimistically, by appending under the locks', async () => {
      const store = new PgSessionStore({ url, schema });
      const calls = { locked: 0 };
      const appendEventsLocked = store.appendEventsLocked.bind(store);
      store.appendEventsLocked = (...args) => {
        calls.locked += 1;
        return appendEventsLocked(...args);
      };
      const other = await store.createSession({ appName: 'pagewise', userId: 'starved' });
      let runs = 0;
      const bump = tool({
        name: 'bump',
        description: 'read-modify-write of a shared counter, overtaken on its first three runs',
        inputSchema: z.object({}),
        execute: async (_args, ctx) => {
          runs += 1;
          const count = (ctx.state.get<number>('user:count') ?? 0) as number;
          if (runs <= 3) {
            const fresh = (await store.getSession(other))!;
            await store.appendEvent(fresh, ev('elsewhere', { increments: { 'user:count': 1 } }));
          }
          ctx.state.set('user:count', count + 1);
          return `now ${count + 1}`;
        },
      });
      const model = scriptedModel([{ toolCalls: [{ toolName: 'bump', input: {} }] }, 'done']);
      const result = await new Runner({ agent: new Agent({ name: 'a', tools: [bump] }), model, store }).run({
        userId: 'starved',
        message: 'go',
      });
      expect(result.text).toBe('done');
      expect(calls.locked).toBe(1);
      expect(runs).toBe(4);
      expect((await store.getSession(other))?.state['user:count']).toBe(4);
      await store.close();
    });

    it('integrity is not checked on read (finding): a changed page body is an IntegrityError naming the page', async () => {
      const pages = new PgPageStore({ url, schema });
      const info = await pages.put({ namespace: 'pg-integrity', uri: 'report-7', body: 'Revenue 1,192,884.' });
      await raw('UPDATE page_bodies SET body = $2 WHERE hash = $1', [info.hash, Buffer.from('Revenue 1,631,190.')]);
      const err = await pages.get('pg-integrity', 'report-7').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IntegrityError);
      expect((err as Error).message).toContain('report-7');
      await pages.close();
    });

    it('shares one pool between the session and page stores', async () => {
      const database = openPgDatabase({ url, schema });
      const sessions = new PgSessionStore({ database });
      const pages = new PgPageStore({ database });
      await sessions.createSession({ appName: 'pg-shared', userId: 'u' });
      await pages.put({ namespace: 'pg-shared', uri: 'a', body: 'x' });
      await sessions.close();
      await pages.close();
      // Neither store owns the pool, so it is still usable.
      expect(
        (await database.query<{ n: string }>('SELECT count(*) AS n FROM pages WHERE namespace = $1', ['pg-shared']))
          .rows[0]?.n,
      ).toBe('1');
      await database.close();
    });
  });
}
