/**
 * Regression tests of issue 28 item 18: the inspector shows failure. A session whose run failed (the context window
 * exceeded, as the demo's `none` session), one whose compressor failed or whose tool returned an error, must look
 * different from one that answered: a status and an error count in the session list, a first-message preview, the
 * failure with its message above the timeline and its own row in it; the compression view marks what was dropped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InspectData } from '../../packages/inspect/src/data.js';
import { openSqliteReadOnly } from '../../packages/inspect/src/db.js';
import { createInspectorApp } from '../../packages/inspect/src/server.js';
import { Agent } from '../../packages/pagewise/src/agents/agent.js';
import { Runner } from '../../packages/pagewise/src/agents/runner.js';
import { tool } from '../../packages/pagewise/src/agents/tool.js';
import { observationCompressor } from '../../packages/pagewise/src/compression/observation.js';
import { SystemError } from '../../packages/pagewise/src/errors.js';
import { scriptedModel } from '../../packages/pagewise/src/models/scripted.js';
import { SqliteCallLog } from '../../packages/sqlite/src/sqlite-call-log.js';
import { SqliteSessionStore } from '../../packages/sqlite/src/sqlite-store.js';

const APP = 'pagewise';

/** The rows of the session table, by session id: the text of each cell with its class. */
function sessionRows(page: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const match of page.matchAll(/<tr data-session="([^"]+)"[\s\S]*?<\/tr>/g)) rows.set(match[1]!, match[0]);
  return rows;
}

describe('issue 28 item 18: the inspector shows failure', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-failure-'));
    file = path.join(dir, 'store.db');
    const store = new SqliteSessionStore({ path: file });
    const callLog = new SqliteCallLog({ database: store.db });
    const lookup = tool({
      name: 'lookup',
      description: 'reads a long report',
      inputSchema: z.object({}),
      execute: () => 'line of a long report about order #W1\n'.repeat(120),
    });
    const broken = tool({
      name: 'broken',
      description: 'always fails',
      inputSchema: z.object({}),
      execute: () => {
        throw new Error('the order service is down');
      },
    });
    const run = (sessionId: string, message: string, model: ReturnType<typeof scriptedModel>, extra = {}) =>
      new Runner({ agent: new Agent({ name: 'analyst', tools: [lookup, broken] }), model, store, callLog, ...extra })
        .run({ userId: 'u', sessionId, message })
        .catch((e: unknown) => e);
    try {
      await run('ok-session', 'What is the status of order #W1?', scriptedModel(['It shipped.']));
      // As the demo's `none` strategy: the history outgrows the window and the run ends on the next call.
      await run(
        'none-session',
        'Compare every report, without compression.',
        scriptedModel([{ toolCalls: [{ toolName: 'lookup', input: {} }] }, 'never reached']),
        { contextWindow: 400 },
      );
      const down = {
        name: 'down',
        compress: () => Promise.reject(new SystemError('provider-server-error', 'Compressor overloaded.')),
      };
      await run(
        'degraded-session',
        'Read the report, then try the broken tool.',
        scriptedModel([
          { toolCalls: [{ toolName: 'lookup', input: {} }] },
          { toolCalls: [{ toolName: 'broken', input: {} }] },
          'Done, with one tool error.',
        ]),
        { observationProcessors: [observationCompressor({ compressor: down, thresholdTokens: 50 })] },
      );
    } finally {
      await store.close();
    }
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const app = () => createInspectorApp({ data: new InspectData(openSqliteReadOnly(file)), runs: [] });
  const queryOf = (sessionId: string) => new URLSearchParams({ a: APP, u: 'u', s: sessionId }).toString();

  it('lists each session with its status, its errors and the start of its first message', async () => {
    const page = await (await app().request('/')).text();
    const rows = sessionRows(page);
    expect(rows.get('ok-session')).toContain('class="status-answered"');
    expect(rows.get('ok-session')).toContain('What is the status of order #W1?');
    expect(rows.get('ok-session')).toMatch(/class="r errors"><span class="num" data-n="0">/);

    const none = rows.get('none-session')!;
    expect(none).toContain('class="status-failed"');
    expect(none).toContain('context-window-exceeded');
    expect(none).toContain('Compare every report, without compression.');
    expect(none).toMatch(/class="r errors err"><span class="num" data-n="1">/);

    // Answered, but a compression failed and a tool returned an error: two errors on an answered session.
    const degraded = rows.get('degraded-session')!;
    expect(degraded).toContain('class="status-answered"');
    expect(degraded).toMatch(/class="r errors err"><span class="num" data-n="2">/);
  });

  it('shows a failed run above its timeline, with its message, and as a row of its own', async () => {
    const page = await (await app().request(`/session?${queryOf('none-session')}`)).text();
    const banner = /<div class="banner banner-failed" id="status">([\s\S]*?)<\/div>/.exec(page)?.[1];
    expect(banner).toBeDefined();
    expect(banner).toContain('context-window-exceeded');
    // The message names the window: the reason the run failed, not only that it did.
    expect(banner).toMatch(/context window/i);
    expect(page).toMatch(/<tr\s+id="e\d+"\s+class="ev ev-error ev-error-run"/);
    expect(page).toContain('run failed');

    const ok = await (await app().request(`/session?${queryOf('ok-session')}`)).text();
    expect(ok).not.toContain('banner-failed');
    expect(ok).not.toContain('ev-error');
  });

  it('marks a failed compression and a tool error in the timeline', async () => {
    const page = await (await app().request(`/session?${queryOf('degraded-session')}`)).text();
    expect(page).toMatch(/class="ev ev-error ev-error-compression"/);
    expect(page).toContain('Compressor overloaded.');
    expect(page).toMatch(/class="ev ev-tool-result ev-tool-error"/);
    expect(page).toContain('the order service is down');
    expect(page).toContain('banner-warn');
    expect(page).toMatch(/data-n="2">2<\/span> error events/);
  });

  it('shows the failure on every view of the session, not only the timeline', async () => {
    for (const view of ['/calls', '/context', '/compression']) {
      const page = await (await app().request(`${view}?${queryOf('none-session')}`)).text();
      expect(page, view).toContain('banner-failed');
    }
  });
});
