/**
 * Files an older pagewise wrote, read by this one. test/fixtures/persisted holds, for every earlier version of each
 * persisted schema, what that version's own code wrote (its Runner, stores and CLI at the commit named in the
 * fixtures' README) and what that same code read back from it (`schema-N.json`, `results*.json`): SQLite databases
 * and PostgreSQL dumps (loaded into a fresh schema) at every schema version a release left before the current one,
 * and saved bench runs in the oldest runs.json form. Each is opened with the current code, which must migrate it and read back what the old
 * code read: every field the old version returned, with the value it returned.
 */
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InspectData, openStore } from '@pagewise/inspect';
import { readRuns, rebuildReport, readPrices } from '@pagewise/lab';
import { LATEST_PG_SCHEMA, PgPageStore, PgSessionStore } from '@pagewise/postgres';
import { LATEST_SQLITE_SCHEMA, SqliteCompressorCallStore, SqlitePageStore, SqliteSessionStore } from '@pagewise/sqlite';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { SessionStore } from 'pagewise';
import type { PageStore } from 'pagewise/paging';
import { afterAll, describe, expect, it } from 'vitest';
import { dropSchema, pgTestUrl, skipPg, uniqueSchema } from './contracts/pg-test-database.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures/persisted');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What an old version read back from the file it wrote (`schema-N.json`). */
interface OldReads {
  appName: string;
  schema: number;
  sessions: { userId: string; sessionId: string; [field: string]: Json }[];
  listed: { sessionId: string; [field: string]: Json }[];
  page: { [field: string]: Json };
  compressorCalls?: { id: string; [field: string]: Json }[];
  callLog: { id: number; session_id: string; user_id: string; body: string; [column: string]: Json }[];
}

/**
 * `actual` cut down to the fields `old` has, recursively: what the old version returned must come back with the
 * same values, and fields added since are left out. Arrays keep their length (an item lost or added shows).
 */
function asOldSaw(actual: unknown, old: Json): unknown {
  if (Array.isArray(old)) {
    return Array.isArray(actual) ? actual.map((item, i) => (i < old.length ? asOldSaw(item, old[i]!) : item)) : actual;
  }
  if (old !== null && typeof old === 'object') {
    if (actual === null || typeof actual !== 'object') return actual;
    return Object.fromEntries(
      Object.keys(old).map((key) => [key, asOldSaw((actual as Record<string, unknown>)[key], old[key]!)]),
    );
  }
  return actual;
}

const expectAsOld = (actual: unknown, old: Json, what: string): void =>
  expect(asOldSaw(actual, old), what).toEqual(JSON.parse(JSON.stringify(old)));

const readOld = (file: string): OldReads => JSON.parse(readFileSync(file, 'utf8')) as OldReads;

/** Sessions, listing and the page, read through the current stores, compared with what the old version read. */
async function expectSessionsAndPage(store: SessionStore, pages: PageStore, old: OldReads): Promise<void> {
  expect(old.sessions.length).toBeGreaterThan(0);
  for (const session of old.sessions) {
    const key = { appName: old.appName, userId: session.userId, sessionId: session.sessionId };
    const now = await store.getSession(key);
    expect(now, `session ${session.sessionId}`).toBeDefined();
    expectAsOld(now, session, `session ${session.sessionId}`);
  }
  const listed = await store.listSessions({ appName: old.appName });
  const byId = (rows: readonly { sessionId: string }[]) =>
    [...rows].sort((a, b) => a.sessionId.localeCompare(b.sessionId));
  expectAsOld(byId(listed), byId(old.listed) as Json, 'listSessions');
  const uri = String(old.page.uri);
  expectAsOld(await pages.get(String(old.page.namespace), uri), old.page, `page ${uri}`);
}

/** The call log, read by the inspector (the reader of call logs), against the rows the old version wrote. */
async function expectCallLog(data: InspectData, old: OldReads): Promise<void> {
  for (const row of old.callLog) {
    const key = { appName: old.appName, userId: row.user_id, sessionId: row.session_id };
    const call = await data.call(key, Number(row.id));
    expect(call, `call ${row.id}`).toBeDefined();
    const body = JSON.parse(row.body) as { request: Json; response: Json };
    expect({
      eventId: call!.eventId,
      invocationId: call!.invocationId,
      agent: call!.agent,
      model: call!.model,
      promptTokens: call!.promptTokens,
      completionTokens: call!.completionTokens,
      createdAt: call!.createdAt,
    }).toEqual({
      eventId: row.event_id,
      invocationId: row.invocation_id,
      agent: row.agent,
      model: row.model,
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      createdAt: Number(row.created_at),
    });
    expectAsOld(call!.request, body.request, `call ${row.id} request`);
    expectAsOld(call!.response, body.response, `call ${row.id} response`);
  }
}

const work: string[] = [];
afterAll(() => {
  for (const dir of work) rmSync(dir, { recursive: true, force: true });
});

const SQLITE = readdirSync(path.join(FIXTURES, 'sqlite'))
  .filter((file) => /^schema-\d+\.db$/.test(file))
  .map((file) => Number(/\d+/.exec(file)![0]))
  .sort((a, b) => a - b);

describe('SQLite databases an older pagewise wrote', () => {
  it('cover every schema before the current one that a release wrote', () => {
    // Migrations 1 and 2 came in one commit, so no pagewise left a database at schema 1.
    expect(SQLITE).toEqual(Array.from({ length: LATEST_SQLITE_SCHEMA - 2 }, (_, i) => i + 2));
  });

  for (const version of SQLITE) {
    it(`schema ${version}: migrated on open, reads back sessions, state, the page, compressor calls and the call log`, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'pagewise-fixture-'));
      work.push(dir);
      const file = path.join(dir, 'old.db');
      copyFileSync(path.join(FIXTURES, 'sqlite', `schema-${version}.db`), file);
      const old = readOld(path.join(FIXTURES, 'sqlite', `schema-${version}.json`));
      const versionOf = (): number => {
        const raw = new Database(file, { readonly: true });
        try {
          return (raw.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number }).v;
        } finally {
          raw.close();
        }
      };
      expect([versionOf(), old.schema]).toEqual([version, version]);

      const store = new SqliteSessionStore({ path: file });
      try {
        expect(versionOf()).toBe(LATEST_SQLITE_SCHEMA);
        await expectSessionsAndPage(store, new SqlitePageStore({ database: store.db }), old);
        const calls = await new SqliteCompressorCallStore({ database: store.db }).list({});
        expectAsOld(calls, (old.compressorCalls ?? []) as Json, 'compressor calls');
      } finally {
        await store.close();
      }
      const data = new InspectData(openStore(file));
      try {
        await expectCallLog(data, old);
      } finally {
        await data.close();
      }
    });
  }
});

const POSTGRES = readdirSync(path.join(FIXTURES, 'postgres'))
  .filter((file) => /^schema-\d+\.sql$/.test(file))
  .map((file) => Number(/\d+/.exec(file)![0]))
  .sort((a, b) => a - b);

if (!pgTestUrl) skipPg('PostgreSQL schemas an older pagewise wrote');
else {
  const url = pgTestUrl;
  describe('PostgreSQL schemas an older pagewise wrote', () => {
    const schemas: string[] = [];
    afterAll(async () => {
      for (const schema of schemas) await dropSchema(url, schema);
    });

    it('cover every schema before the current one that a release wrote', () => {
      expect(POSTGRES).toEqual(Array.from({ length: LATEST_PG_SCHEMA - 2 }, (_, i) => i + 2));
    });

    for (const version of POSTGRES) {
      it(`schema ${version}: loaded into a fresh schema, migrated on open, reads back sessions, the page and the call log`, async () => {
        const schema = uniqueSchema(`fixture${version}`);
        schemas.push(schema);
        const dump = readFileSync(path.join(FIXTURES, 'postgres', `schema-${version}.sql`), 'utf8');
        const old = readOld(path.join(FIXTURES, 'postgres', `schema-${version}.json`));
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        const versionOf = async (): Promise<number> =>
          Number((await client.query(`SELECT MAX(version) AS v FROM ${schema}.schema_migrations`)).rows[0].v);
        try {
          await client.query(dump.replaceAll('__SCHEMA__', schema));
          expect([await versionOf(), old.schema]).toEqual([version, version]);
          const store = new PgSessionStore({ url, schema });
          try {
            await expectSessionsAndPage(store, new PgPageStore({ database: store.database }), old);
            expect(await versionOf()).toBe(LATEST_PG_SCHEMA);
          } finally {
            await store.close();
          }
        } finally {
          await client.end();
        }
        const data = new InspectData(openStore(url, schema));
        try {
          await expectCallLog(data, old);
        } finally {
          await data.close();
        }
      });
    }
  });
}

describe('saved bench runs in the oldest runs.json form', () => {
  const runsDir = path.join(FIXTURES, 'bench-runs');

  it('rebuild to the results the version that saved them reported, unpriced and repriced', async () => {
    const runs = await readRuns(runsDir);
    const old = JSON.parse(readFileSync(path.join(runsDir, 'results.json'), 'utf8')) as { results: Json[] };
    const oldPriced = JSON.parse(readFileSync(path.join(runsDir, 'results-priced.json'), 'utf8')) as {
      results: Json[];
    };
    expect(old.results.length).toBeGreaterThan(0);
    expectAsOld(rebuildReport(runs).results, old.results as Json, 'results');
    const prices = await readPrices(path.join(runsDir, 'prices.json'));
    const priced = rebuildReport(runs, { prices }).results;
    expectAsOld(priced, oldPriced.results as Json, 'results repriced');
    // The repricing changed something: the fixture's prices are not the saved ones.
    expect(priced.map((row) => row.costUsd)).not.toEqual(rebuildReport(runs).results.map((row) => row.costUsd));
  });
});
