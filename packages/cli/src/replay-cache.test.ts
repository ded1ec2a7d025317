/**
 * `pagewise replay` on a session database reports each recorded session's cache hit rate and cost with caching
 * beside its prompt tokens, as the ledger recorded them; on trace files it says the figures are unavailable.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LedgerEntry } from 'pagewise';
import { DEFAULT_PRICES, callCostUsd, promptCacheRulesFor } from 'pagewise/cost';
import {
  generateQuestions,
  generateReports,
  inMemoryCorpus,
  runReportAnalysis,
} from '../../lab/src/scenarios/report-analysis/index.js';
import { SqliteCallLog } from '../../sqlite/src/sqlite-call-log.js';
import { SqlitePageStore } from '../../sqlite/src/sqlite-page-store.js';
import { SqliteSessionStore } from '../../sqlite/src/sqlite-store.js';
import { main } from './main.js';

const fixture = path.join(import.meta.dirname, '..', '..', 'lab', 'src', 'replay', 'testdata', 'openai-chat.jsonl');
let tmp: string;
let db: string;

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pagewise-replay-cache-'));
  db = path.join(tmp, 'sessions.db');
  const store = new SqliteSessionStore({ path: db });
  const reports = generateReports(24, 4);
  try {
    for (const strategy of ['none', 'paging'] as const)
      await runReportAnalysis({
        corpus: inMemoryCorpus(reports),
        question: generateQuestions(reports, 4, 1)[0]!.text,
        strategy,
        store,
        pageStore: new SqlitePageStore({ database: store.db }),
        callLog: new SqliteCallLog({ database: store.db }),
        userId: strategy,
        contextWindow: 0,
        promptCache: promptCacheRulesFor('openai', 'gpt-4.1')!,
      });
  } finally {
    await store.close();
  }
}, 120_000);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** The ledger entries of each session, read from the call log directly. */
function entriesBySession(): Map<string, LedgerEntry[]> {
  const file = new Database(db, { readonly: true });
  try {
    const rows = file.prepare('SELECT app_name, user_id, session_id, body FROM model_calls ORDER BY id').all() as {
      app_name: string;
      user_id: string;
      session_id: string;
      body: string;
    }[];
    const out = new Map<string, LedgerEntry[]>();
    for (const row of rows) {
      const key = `${row.app_name}/${row.user_id}/${row.session_id}`;
      out.set(key, [...(out.get(key) ?? []), (JSON.parse(row.body) as { entry: LedgerEntry }).entry]);
    }
    return out;
  } finally {
    file.close();
  }
}

describe('pagewise replay: the recorded prompt cache', () => {
  it('gives each session of a database its cache hit rate and cost with caching, as the ledger recorded them', async () => {
    const { code, out, err } = await run('replay', db, '--strategies', 'none', '--price-as', 'openai:gpt-4.1');
    expect(code, err).toBe(0);
    const price = DEFAULT_PRICES['openai:gpt-4.1']!;
    const sessions = entriesBySession();
    expect(sessions.size).toBe(2);
    let read = 0;
    let prompt = 0;
    for (const [key, entries] of sessions) {
      const sessionRead = entries.reduce((n, e) => n + e.cache!.modelled.readTokens, 0);
      const sessionPrompt = entries.reduce((n, e) => n + e.cache!.modelled.promptTokens, 0);
      const usd = entries.reduce((n, e) => n + callCostUsd(e, price), 0);
      read += sessionRead;
      prompt += sessionPrompt;
      const row = out.split('\n').find((line) => line.startsWith(`| ${key} |`));
      expect(row, out).toBe(
        `| ${key} | ${entries.length} | ${sessionPrompt.toLocaleString('en-US')} | ${sessionRead.toLocaleString('en-US')} | ${((sessionRead / sessionPrompt) * 100).toFixed(1)}% | $${usd.toFixed(4)} |`,
      );
    }
    expect(read).toBeGreaterThan(0);
    expect(out).toContain(`| all | `);
    expect(out).toContain(`| ${((read / prompt) * 100).toFixed(1)}% |`);
    expect(out).toContain('priced as openai:gpt-4.1');

    const json = await run('replay', db, '--strategies', 'none', '--json');
    expect(json.code, json.err).toBe(0);
    const report = JSON.parse(json.out) as {
      recordedCache: { available: boolean; all: { cacheHitRate: number; costUsd: number | null } };
    };
    expect(report.recordedCache.available).toBe(true);
    expect(report.recordedCache.all.cacheHitRate).toBeCloseTo(read / prompt, 12);
    // Priced as each call's own model: the offline model's calls cost nothing.
    expect(report.recordedCache.all.costUsd).toBe(0);
  }, 60_000);

  it('says the figures are unavailable for trace files, and refuses an unknown --price-as', async () => {
    const traces = await run('replay', fixture, '--strategies', 'none');
    expect(traces.code).toBe(0);
    expect(traces.out).toContain('cache hit and cost with caching unavailable');
    const bad = await run('replay', db, '--price-as', 'acme:model-9');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--price-as acme:model-9 has no built-in price');
  });
});
