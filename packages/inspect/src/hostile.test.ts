/**
 * Issue 31, the inspector: item 11 (unknown routes answered 200 with a "Not found" page) and the smaller
 * points: a tampered page body shown without a warning while the store refuses it, `InspectDb.all`
 * able to write on PostgreSQL (`BEGIN READ WRITE; …`), and bidi and zero-width characters shown raw.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, pgTestUrl, skipPg, uniqueSchema } from '../../../test/contracts/pg-test-database.js';
import { IntegrityError } from '../../pagewise/src/errors.js';
import { openPgDatabase } from '../../postgres/src/pg-database.js';
import { PgSessionStore } from '../../postgres/src/pg-session-store.js';
import { SqlitePageStore } from '../../sqlite/src/sqlite-page-store.js';
import { SqliteSessionStore } from '../../sqlite/src/sqlite-store.js';
import { InspectData } from './data.js';
import { openPostgresReadOnly, openSqliteReadOnly, requireSingleSelect } from './db.js';
import { html } from './html.js';
import { createInspectorApp } from './server.js';

describe('the inspector against hostile stores and addresses', () => {
  let dir: string;
  let file: string;
  const key = { appName: 'pagewise', userId: 'u', sessionId: 's' };
  const page = (uri: string) => `/page?a=pagewise&u=u&s=s&uri=${encodeURIComponent(uri)}`;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-hostile-'));
    file = path.join(dir, 'store.db');
    const store = new SqliteSessionStore({ path: file });
    await store.createSession(key);
    await store.close();
    const pages = new SqlitePageStore({ path: file });
    await pages.put({ namespace: 'session:s', uri: 'doc://tampered', title: 'T', body: 'revenue was 1,192,884' });
    await pages.put({ namespace: 'session:s', uri: 'doc://intact', title: 'I', body: 'revenue was 7' });
    await pages.put({
      namespace: 'session:s',
      uri: 'doc://bidi',
      title: 'B',
      body: 'pay to \u202Egnp.exe\u202C and\u200B hidden\u2066x\u2069 \u{E0041}',
    });
    // Altered at rest, behind the store's back: the row keeps its recorded hash.
    pages.db.prepare("UPDATE page_bodies SET body = replace(body, '1,192,884', '9,999,999')").run();
    await expect(pages.get('session:s', 'doc://tampered')).rejects.toBeInstanceOf(IntegrityError);
    await pages.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('issue 31 item 11: answers an unknown route with 404', async () => {
    const data = new InspectData(openSqliteReadOnly(file));
    const app = createInspectorApp({ data, runs: [] });
    for (const route of ['/no-such-view', '/runs/extra/segments', '/session/x', '/%2e%2e/etc/passwd']) {
      const response = await app.request(route);
      expect(response.status, route).toBe(404);
      expect(await response.text()).toContain('No such page.');
    }
    expect((await app.request('/runs')).status).toBe(200);
    await data.close();
  });

  it('shows the integrity state of a page: a tampered body under a warning, an intact one as verified', async () => {
    const data = new InspectData(openSqliteReadOnly(file));
    const app = createInspectorApp({ data, runs: [] });
    const tampered = await (await app.request(page('doc://tampered'))).text();
    expect(tampered).toContain('id="integrity"');
    expect(tampered).toContain('ALTERED: body does not match its SHA-256');
    const intact = await (await app.request(page('doc://intact'))).text();
    expect(intact).not.toContain('id="integrity"');
    expect(intact).toContain('body matches its SHA-256');
    await data.close();
  });

  it('shows bidi, zero-width and tag characters visibly, never raw', async () => {
    const data = new InspectData(openSqliteReadOnly(file));
    const app = createInspectorApp({ data, runs: [] });
    const text = await (await app.request(page('doc://bidi'))).text();
    for (const shown of ['⟦U+202E⟧', '⟦U+202C⟧', '⟦U+200B⟧', '⟦U+2066⟧', '⟦U+2069⟧', '⟦U+E0041⟧'])
      expect(text).toContain(shown);
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b\u{e0000}-\u{e007f}]/u);
    // Visible in attribute values as in text, and ordinary text untouched.
    expect(html`<a title="${'a\u202eb'}">${'plain é 売上'}</a>`.value).toBe('<a title="a⟦U+202E⟧b">plain é 売上</a>');
    await data.close();
  });

  it('refuses any statement but one SELECT, on SQLite too', async () => {
    const db = openSqliteReadOnly(file);
    for (const sql of [
      'DELETE FROM pages',
      'SELECT 1; DELETE FROM pages',
      'BEGIN',
      'PRAGMA query_only = 0',
      '/* */ ATTACH x AS y',
    ])
      await expect(db.all(sql), sql).rejects.toThrow(/read-only/);
    expect(await db.all('-- a comment\nSELECT 1 AS one;')).toEqual([{ one: 1 }]);
    await db.close();
  });

  it('requireSingleSelect reads through comments and a trailing semicolon only', () => {
    expect(() => requireSingleSelect('WITH x AS (SELECT 1) SELECT * FROM x')).not.toThrow();
    expect(() => requireSingleSelect('SELECT 1 -- ; DELETE')).not.toThrow();
    expect(() => requireSingleSelect('SELECT 1 /* ; */; DROP TABLE pages')).toThrow(/read-only/);
  });
});

describe.skipIf(!pgTestUrl)('the inspector over PostgreSQL cannot write', () => {
  const schema = uniqueSchema('inspect_ro');
  afterAll(async () => {
    if (pgTestUrl) await dropSchema(pgTestUrl, schema);
  });

  it("issue 31: InspectDb.all('BEGIN READ WRITE; …') and a lifted session default write nothing", async () => {
    const database = openPgDatabase({ url: pgTestUrl!, schema });
    const store = new PgSessionStore({ database });
    await store.createSession({ appName: 'pagewise', userId: 'u', sessionId: 's' });
    await database.close();
    const count = async (): Promise<number> => {
      const client = new pg.Client({ connectionString: pgTestUrl });
      await client.connect();
      try {
        return Number((await client.query(`SELECT count(*) AS n FROM ${schema}.sessions`)).rows[0].n);
      } finally {
        await client.end();
      }
    };
    expect(await count()).toBe(1);
    const db = openPostgresReadOnly(pgTestUrl!, schema);
    try {
      const attempts = [
        'BEGIN READ WRITE; DELETE FROM sessions; COMMIT',
        'BEGIN READ WRITE',
        'SET default_transaction_read_only = off',
        'DELETE FROM sessions',
      ];
      for (const sql of attempts) await expect(db.all(sql), sql).rejects.toThrow(/read-only/);
      // A SELECT that lifts the session default: undone with its transaction, so the next read is still read-only.
      await db.all("SELECT set_config('default_transaction_read_only', 'off', false)");
      await expect(db.all('WITH gone AS (DELETE FROM sessions RETURNING 1) SELECT count(*) FROM gone')).rejects.toThrow(
        /read-only/,
      );
      expect(await count()).toBe(1);
    } finally {
      await db.close();
    }
  });
});

if (!pgTestUrl) skipPg('inspector over PostgreSQL (read-only)');
