import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, pgTestUrl, skipPg, uniqueSchema } from '../../../test/contracts/pg-test-database.js';
import {
  generateQuestions,
  generateReports,
  inMemoryCorpus,
  runReportAnalysis,
} from '../../lab/src/scenarios/report-analysis/index.js';
import { PgCallLog } from '../../postgres/src/pg-call-log.js';
import { openPgDatabase } from '../../postgres/src/pg-database.js';
import { PgPageStore } from '../../postgres/src/pg-page-store.js';
import { PgSessionStore } from '../../postgres/src/pg-session-store.js';
import { SqliteSessionStore } from '../../sqlite/src/sqlite-store.js';
import { escapeHtml, html } from './html.js';
import { InspectData } from './data.js';
import { openPostgresReadOnly, openSqliteReadOnly } from './db.js';
import { createInspectorApp, INSPECT_CSP, startInspector } from './server.js';

/** GET / with a chosen Host header (fetch does not let a caller set it). */
function statusWithHost(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

describe('the escaping template', () => {
  it('escapes every interpolated value and nothing else', () => {
    const evil = `"><img src=x onerror=alert(1)> & 'x'`;
    expect(html`<p title="${evil}">${evil}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &#39;x&#39;">&quot;&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &#39;x&#39;</p>',
    );
    expect(html`${[evil, html`<b>${evil}</b>`]}`.value).toBe(`${escapeHtml(evil)}<b>${escapeHtml(evil)}</b>`);
    expect(html`${undefined}${null}${false}${0}`.value).toBe('0');
  });
});

describe('the inspector server', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-server-'));
    file = path.join(dir, 'store.db');
    const store = new SqliteSessionStore({ path: file });
    await store.createSession({ appName: 'pagewise', userId: 'u', sessionId: 's' });
    await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sends a strict CSP and serves only GET and HEAD', async () => {
    const data = new InspectData(openSqliteReadOnly(file));
    const app = createInspectorApp({ data, runs: [] });
    const res = await app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(INSPECT_CSP);
    expect(INSPECT_CSP).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'])
      expect((await app.request('/', { method })).status, method).toBe(405);
    expect((await app.request('/assets/inspect.js')).headers.get('content-type')).toMatch(/javascript/);
    await data.close();
  });

  it('answers bad and unknown addresses with typed pages, not crashes', async () => {
    const data = new InspectData(openSqliteReadOnly(file));
    const app = createInspectorApp({ data, runs: [] });
    expect((await app.request('/session')).status).toBe(400);
    expect((await app.request('/session?a=pagewise&u=u&s=absent')).status).toBe(404);
    expect((await app.request('/session?a=pagewise&u=u&s=s&offset=-1')).status).toBe(400);
    expect((await app.request('/call?a=pagewise&u=u&s=s&call=9')).status).toBe(404);
    expect((await app.request('/runs/7')).status).toBe(404);
    const page = await (await app.request('/session?a=pagewise&u=u&s=<script>')).text();
    expect(page).not.toContain('<script>');
    await data.close();
  });

  it('refuses a store that does not exist instead of creating one', () => {
    expect(() => openSqliteReadOnly(path.join(dir, 'absent.db'))).toThrow(/Cannot open the SQLite store .*--store/);
  });

  it('on loopback, refuses another Host (DNS rebinding); elsewhere, needs the printed token on every request', async () => {
    const local = await startInspector({ store: `sqlite:${file}`, port: 0 });
    try {
      expect(local.token).toBeUndefined();
      expect((await fetch(local.url)).status).toBe(200);
      expect(await statusWithHost(local.port, 'attacker.example')).toBe(403);
      expect(await statusWithHost(local.port, `localhost:${local.port}`)).toBe(200);
    } finally {
      await local.close();
    }
    const shared = await startInspector({ store: `sqlite:${file}`, port: 0, host: '0.0.0.0' });
    try {
      expect(shared.token).toMatch(/^[A-Za-z0-9_-]{16,}$/);
      const base = `http://127.0.0.1:${shared.port}`;
      expect((await fetch(`${base}/`)).status).toBe(401);
      expect((await fetch(`${base}/assets/inspect.js`)).status).toBe(401);
      expect((await fetch(`${base}/?token=${'x'.repeat(shared.token!.length)}`)).status).toBe(401);
      const ok = await fetch(`${base}/?token=${shared.token}`);
      expect(ok.status).toBe(200);
      const cookie = ok.headers.get('set-cookie')!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      expect((await fetch(`${base}/runs`, { headers: { cookie: cookie.split(';')[0]! } })).status).toBe(200);
    } finally {
      await shared.close();
    }
  });
});

describe.skipIf(!pgTestUrl)('the inspector over PostgreSQL', () => {
  const schema = uniqueSchema('inspect');
  afterAll(async () => {
    if (pgTestUrl) await dropSchema(pgTestUrl, schema);
  });

  it('shows a run recorded in PostgreSQL with the ledger figures, and its pool refuses writes', async () => {
    const database = openPgDatabase({ url: pgTestUrl!, schema });
    const store = new PgSessionStore({ database });
    const pageStore = new PgPageStore({ database });
    const callLog = new PgCallLog({ database, tags: { strategy: 'paging' } });
    const reports = generateReports(12, 4);
    const result = await runReportAnalysis({
      corpus: inMemoryCorpus(reports),
      question: generateQuestions(reports, 4, 1)[0]!.text,
      store,
      pageStore,
      callLog,
      contextWindow: 0,
    });
    await database.close();

    const db = openPostgresReadOnly(pgTestUrl!, schema);
    const data = new InspectData(db);
    try {
      const key = { appName: 'pagewise', userId: result.session.userId, sessionId: result.session.sessionId };
      const header = (await data.session(key))!;
      expect(header.peakPromptTokens).toBe(result.ledger.summary.peakPromptTokens);
      expect(header.cumulativePromptTokens).toBe(result.ledger.summary.cumulativePromptTokens);
      expect(header.calls).toBe(result.ledger.summary.modelCalls);
      const calls = await data.calls(key);
      expect(calls.map((c) => c.entry?.parts)).toEqual(result.ledger.entries.map((e) => e.parts));
      expect((await data.listSessions({ strategy: 'paging' }, 0, 10)).total).toBe(1);
      expect((await data.listSessions({ strategy: 'none' }, 0, 10)).total).toBe(0);
      const app = createInspectorApp({ data, runs: [] });
      const page = await (
        await app.request(`/call?a=pagewise&u=${key.userId}&s=${key.sessionId}&call=${calls[0]!.id}`)
      ).text();
      expect(page).toContain('id="ledger"');
      // A call with pages shows them where they were sent: in the step block, after the history.
      const views = await Promise.all(
        calls.map(async (call) =>
          (await app.request(`/call?a=pagewise&u=${key.userId}&s=${key.sessionId}&call=${call.id}`)).text(),
        ),
      );
      const pagedView = views.find((view) => view.includes('class="paged-page"'))!;
      expect(pagedView).toBeDefined();
      const history = pagedView.indexOf('<h2>History');
      expect(history).toBeGreaterThan(0);
      const stepBlock = pagedView.indexOf('<ol class="sections step-block">');
      expect(stepBlock).toBeGreaterThan(history);
      expect(pagedView.indexOf('class="paged-page"')).toBeGreaterThan(stepBlock);
      await expect(db.all('DELETE FROM events')).rejects.toThrow(/read-only/);
    } finally {
      await data.close();
    }
  });
});

if (!pgTestUrl) skipPg('inspector over PostgreSQL');
