/**
 * Regression tests of item 10 of the third reliability round: an inspector view costs what it shows. The compression
 * view highlights a 40k-line raw page in time linear in both texts, reads one page of compressions and only the
 * events a compaction summarized (never the whole 100k-event session); the call view reads one call's body.
 * Reads are counted through the store handle the inspector is given.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleLine } from '../../packages/pagewise/src/compression/transcript.js';
import { InspectData } from '../../packages/inspect/src/data.js';
import { openSqliteReadOnly, type InspectDb } from '../../packages/inspect/src/db.js';
import { createInspectorApp } from '../../packages/inspect/src/server.js';
import { SubstringIndex } from '../../packages/inspect/src/substring-index.js';
import { highlightKept } from '../../packages/inspect/src/views.js';
import type { SessionEvent, SessionKey } from '../../packages/pagewise/src/session/types.js';
import { SqlitePageStore } from '../../packages/sqlite/src/sqlite-page-store.js';
import { SqliteSessionStore } from '../../packages/sqlite/src/sqlite-store.js';
import { recordReportRun, type RecordedRun } from './fixtures.js';

const EVENTS = 100_000;
const RAW_LINES = 40_000;

/** A store handle that counts the rows carrying a body that each request reads. */
function counting(db: InspectDb): { db: InspectDb; bodies: () => number; reset: () => void } {
  let bodies = 0;
  return {
    db: {
      dialect: db.dialect,
      label: db.label,
      async all<T>(sql: string, params?: readonly unknown[]) {
        const rows = await db.all<T>(sql, params);
        for (const row of rows) if (row !== null && typeof row === 'object' && 'body' in row) bodies += 1;
        return rows;
      },
      close: () => db.close(),
    },
    bodies: () => bodies,
    reset: () => (bodies = 0),
  };
}

/** A pretty-printed JSON record of `lines` fields, and the compressed text that kept every other field, minified. */
function rawAndKept(lines: number): { raw: string; compressed: string } {
  const fields = Array.from({ length: lines }, (_, i) => `  "field_${i}": "value number ${i} of the record",`);
  const kept: Record<string, string> = {};
  for (let field = 0; field < lines; field += 2) kept[`field_${field}`] = `value number ${field} of the record`;
  return { raw: ['{', ...fields, '}'].join('\n'), compressed: JSON.stringify(kept) };
}

describe('issue 31 item 10: each inspector view costs what it shows', () => {
  let dir: string;
  let file: string;
  let key: SessionKey;
  let report: RecordedRun;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-cost-'));
    file = path.join(dir, 'store.db');
    report = await recordReportRun(file, { n: 12 });
    const store = new SqliteSessionStore({ path: file });
    const pageStore = new SqlitePageStore({ database: store.db });
    try {
      key = { appName: 'pagewise', userId: 'long', sessionId: 'long-cost' };
      const session = await store.createSession(key);
      const invocationId = randomUUID();
      const events: SessionEvent[] = [];
      for (let index = 0; index < EVENTS; index += 1)
        events.push({
          id: `e${index}`,
          invocationId,
          timestamp: Date.now() + index,
          kind: 'user',
          author: 'user',
          text: `step ${index}: look up order #W${index}`,
        });
      const uri = 'tool://get_record/big';
      const { raw, compressed } = rawAndKept(RAW_LINES);
      await pageStore.put({
        namespace: `session:${key.sessionId}`,
        uri,
        title: 'record',
        body: raw,
        mediaType: 'application/json',
      });
      events.push(
        {
          id: 'obs',
          invocationId,
          timestamp: Date.now() + EVENTS,
          kind: 'tool-result',
          author: 'get_record',
          toolCallId: 'big',
          toolName: 'get_record',
          output: `${compressed}\n${handleLine(uri, 500_000)}`,
          isError: false,
        },
        {
          id: 'compaction',
          invocationId,
          timestamp: Date.now() + EVENTS + 1,
          kind: 'compaction',
          author: 'pagewise',
          fromEventId: `e${EVENTS - 40}`,
          toEventId: `e${EVENTS - 11}`,
          summary: 'The user looked up thirty orders.',
        },
      );
      await store.appendEvents(session, events);
    } finally {
      await store.close();
    }
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('highlights exactly the lines a substring test would, on any text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', ',', 'é') }),
        fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', 'é') }),
        (raw, compressed) => {
          const naive = (() => {
            const kept = compressed.replace(/\s+/g, '');
            return raw.split('\n').map((line) => {
              const unit = line.replace(/\s+/g, '').replace(/,$/, '');
              return unit.length > 3 ? (kept.includes(unit) ? 'kept' : 'dropped') : 'neither';
            });
          })();
          const marked = highlightKept(raw, compressed)
            .value.replace(/^<pre class="t raw">\n/, '')
            .split('\n')
            .map((line) => (line.startsWith('<mark>') ? 'kept' : line.startsWith('<del>') ? 'dropped' : 'neither'));
          expect(marked).toEqual(naive);
        },
      ),
      { numRuns: 300 },
    );
    const index = new SubstringIndex('abracadabra');
    for (const needle of ['', 'abra', 'cad', 'racadab', 'abracadabra', 'aa', 'dabrab', 'abracadabraa'])
      expect(index.has(needle)).toBe('abracadabra'.includes(needle));
  });

  it('renders the compression of a 40k-line raw page, reading one page of compressions and the compacted events only', async () => {
    const store = counting(openSqliteReadOnly(file));
    const app = createInspectorApp({ data: new InspectData(store.db), runs: [] });
    try {
      const query = new URLSearchParams({ a: key.appName, u: key.userId, s: key.sessionId });
      const started = performance.now();
      const res = await app.request(`/compression?${query}`);
      const ms = performance.now() - started;
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text.match(/<mark>/g)?.length).toBe(RAW_LINES / 2);
      // What the compression dropped is marked too: the other half of the fields, and the 30 compacted events.
      expect(text.match(/<del>/g)?.length).toBe(RAW_LINES / 2 + 30);
      expect(text).toContain(`class="dropped-lines"><span class="num" data-n="${RAW_LINES / 2}">`);
      expect(text).toContain('History compaction of 30 events');
      // The observation, the compaction, the stored page, the 30 compacted events; not the 100k of the session.
      expect(store.bodies()).toBeLessThan(40);
      // Linear highlighting: seconds on the busiest machine, where comparing each line with the whole text took minutes.
      expect(ms).toBeLessThan(20_000);
    } finally {
      await store.db.close();
    }
  }, 60_000);

  it('opens the page of compressions that holds a linked event', async () => {
    const store = counting(openSqliteReadOnly(file));
    const app = createInspectorApp({ data: new InspectData(store.db), runs: [] });
    try {
      const query = new URLSearchParams({ a: key.appName, u: key.userId, s: key.sessionId, at: String(EVENTS + 1) });
      const text = await (await app.request(`/compression?${query}`)).text();
      expect(text).toContain('id="c-100001"');
    } finally {
      await store.db.close();
    }
  }, 60_000);

  it('shows one call by reading one call body, with its position and neighbours', async () => {
    const store = counting(openSqliteReadOnly(file));
    const data = new InspectData(store.db);
    const app = createInspectorApp({ data, runs: [] });
    try {
      const calls = await data.calls(report.key);
      expect(calls.length).toBeGreaterThan(2);
      const second = calls[1]!;
      store.reset();
      const query = new URLSearchParams({
        a: report.key.appName,
        u: report.key.userId,
        s: report.key.sessionId,
        call: String(second.id),
      });
      const res = await app.request(`/call?${query}`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('Call #2');
      expect(text).toContain(`call=${calls[0]!.id}`);
      expect(text).toContain(`call=${calls[2]!.id}`);
      expect(store.bodies()).toBe(1);
    } finally {
      await store.db.close();
    }
  }, 60_000);
});
