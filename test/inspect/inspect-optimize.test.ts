/**
 * `pagewise optimize` records each episode's session and model calls in its --db, as the demo does, so the
 * inspector's session list and call view work for an optimization: the calls are listed per episode, labelled
 * with the mode, the task and the guideline under test, and a call opens with the request as sent.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { optimizeCommand } from '../../packages/cli/src/optimize.js';
import { InspectData } from '../../packages/inspect/src/data.js';
import { openSqliteReadOnly } from '../../packages/inspect/src/db.js';
import { createInspectorApp } from '../../packages/inspect/src/server.js';
import { retailDataAvailable, retailDataMissing } from '../../packages/lab/src/scenarios/retail/index.js';
import { runCommand } from '../support/cli.js';

const available = retailDataAvailable();
if (!available) console.log(`optimize call log skipped: ${retailDataMissing()}`);

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-optimize-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(available)('the call log of pagewise optimize', () => {
  it('holds every episode it ran, with its model calls, and the inspector opens them', async () => {
    const db = path.join(dir, 'calls.db');
    const argv = ['--scenario', 'retail-tool-use', '--target', 'observation', '--train', '2', '--val', '1'];
    const result = await runCommand(optimizeCommand, [
      ...argv,
      '--candidates',
      '2',
      '--out',
      path.join(dir, 'out'),
      '--db',
      db,
    ]);
    expect(result.code, result.err).toBe(0);
    expect(result.err).toContain(`pagewise inspect --store sqlite:${db}`);
    // Every episode the run ran, each once, is in its progress file.
    const progress = JSON.parse(readFileSync(path.join(dir, 'out', 'progress.json'), 'utf8')) as {
      evaluations: Record<string, unknown>;
    };
    const episodes = Object.keys(progress.evaluations).length;

    const data = new InspectData(openSqliteReadOnly(db));
    try {
      const { rows, total } = await data.listSessions({}, 0, 1000);
      expect(total).toBe(episodes);
      expect(rows.every((row) => row.calls > 0 && row.status === 'answered')).toBe(true);
      const tags = new Set(rows.flatMap((row) => row.tags));
      expect(tags).toContain('strategy=optimize-uncompressed');
      expect(tags).toContain('strategy=optimize-compressed');
      expect([...tags].some((tag) => /^guideline=observation-default-(?:ut|co)\d@\d$/u.test(tag))).toBe(true);
      const compressed = await data.listSessions({ strategy: 'optimize-compressed' }, 0, 1000);
      expect(compressed.total).toBeGreaterThan(0);
      expect(compressed.total).toBeLessThan(total);

      const session = compressed.rows[0]!;
      const calls = await data.calls(session);
      expect(calls).toHaveLength(session.calls);
      const last = await data.call(session, calls.at(-1)!.id);
      expect(last?.request.items.length).toBeGreaterThan(1);
      expect(last?.request.items[0]).toMatchObject({ type: 'user' });

      const app = createInspectorApp({ data, runs: [] });
      const query = new URLSearchParams({
        a: session.appName,
        u: session.userId,
        s: session.sessionId,
        call: String(calls[0]!.id),
      });
      const page = await app.request(`/call?${query}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Call #1');
    } finally {
      await data.close();
    }
  }, 120_000);
});
