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
import type { BenchScenario } from '../../packages/lab/src/bench/scenario.js';
import type { EpisodeEvaluator } from '../../packages/lab/src/optimize/evaluate.js';
import { optimizeGuideline } from '../../packages/lab/src/optimize/optimize.js';
import { OPTIMIZER_SESSION } from '../../packages/lab/src/optimize/optimizer-log.js';
import { DEFAULT_OBSERVATION_GUIDELINE } from '../../packages/pagewise/src/compression/default-guidelines.js';
import { formatGuideline } from '../../packages/pagewise/src/compression/guideline.js';
import { scriptedModel } from '../../packages/pagewise/src/models/scripted.js';
import { emptyParts } from '../../packages/pagewise/src/tokens/ledger.js';
import { SqliteCallLog } from '../../packages/sqlite/src/sqlite-call-log.js';
import { openSqliteDatabase, SqliteSessionStore } from '../../packages/sqlite/src/sqlite-store.js';

const available = retailDataAvailable();
if (!available) console.log(`optimize call log skipped: ${retailDataMissing()}`);

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-optimize-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the call log of pagewise optimize', () => {
  it.runIf(available)(
    'holds every episode it ran, with its model calls, and the inspector opens them',
    async () => {
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
    },
    120_000,
  );

  it('holds every optimizer call, an unreadable reply included, in one session', async () => {
    const scenario: BenchScenario = {
      name: 'test-optimize-call-log',
      description: 'two tasks that fail compressed',
      strategies: [],
      prepare: async ({ tasks }) => Array.from({ length: tasks }, (_, i) => ({ id: `t${i}`, prompt: `Task ${i}.` })),
      runEpisode: () => Promise.reject(new Error('the test passes its own evaluator')),
    };
    const evaluator: EpisodeEvaluator = async (job) => ({
      success: job.mode === 'uncompressed',
      answer: 'Answer: x',
      ledger: [
        {
          index: 0,
          kind: 'agent',
          agent: 'a',
          model: 'fake',
          invocationId: 'i',
          parts: { ...emptyParts(), observation: 100 },
          promptTokens: 100,
          completionTokens: 5,
          modelMs: 0,
          frameworkMs: 0,
          at: 0,
        },
      ],
      toolCalls: [],
      compressions: [],
    });
    const feedback = JSON.stringify({ divergence: 'lost', rootCauses: [], lostFacts: [], recommendations: [] });
    const good = formatGuideline({
      ...DEFAULT_OBSERVATION_GUIDELINE,
      description: 'more',
      rules: { ...DEFAULT_OBSERVATION_GUIDELINE.rules, ratio: 0.9 },
    });
    const garbage = 'No files today.';
    const optimizer = scriptedModel([
      feedback,
      feedback,
      garbage,
      `=== CANDIDATE 1 ===\n${good}\n=== END CANDIDATE 1 ===`,
    ]);
    const db = path.join(dir, 'optimizer.db');
    const database = openSqliteDatabase(db);
    try {
      const result = await optimizeGuideline({
        scenario,
        target: 'observation',
        train: 2,
        val: 0,
        candidates: 1,
        optimizer,
        evaluator,
        sessions: {
          store: new SqliteSessionStore({ database }),
          callLog: (tags) => new SqliteCallLog({ database, tags }),
        },
      });
      optimizer.assertComplete();
      expect(result.report.usage.calls).toBe(4);
    } finally {
      database.close();
    }

    const data = new InspectData(openSqliteReadOnly(db));
    try {
      const { rows } = await data.listSessions({ user: OPTIMIZER_SESSION.userId }, 0, 10);
      expect(rows).toHaveLength(1);
      const session = rows[0]!;
      expect(session.tags).toContain('strategy=optimize-optimizer');
      expect(session.eventCount).toBe(8);
      const calls = await data.calls(session);
      expect(calls).toHaveLength(4);
      const unreadable = await data.call(session, calls[2]!.id);
      expect(unreadable?.request.items[0]).toMatchObject({ type: 'user' });
      expect((unreadable?.request.items[0] as { text: string }).text).toContain('revised guideline files');
      expect(unreadable?.response.text).toBe(garbage);
      const retried = await data.call(session, calls[3]!.id);
      expect((retried?.request.items[0] as { text: string }).text).toContain('could not be read');
      const app = createInspectorApp({ data, runs: [] });
      const query = new URLSearchParams({
        a: session.appName,
        u: session.userId,
        s: session.sessionId,
        call: String(calls[2]!.id),
      });
      const page = await app.request(`/call?${query}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(garbage);
    } finally {
      await data.close();
    }
  });
});
