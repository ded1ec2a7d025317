/**
 * The inspector's prompt-cache figures: modelled from stored requests they agree with what the runner recorded for
 * the same calls; the first changed token is located in the part of the request that changed; prices come from the
 * built-in table by model, and a model without one is unpriced.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LedgerEntry } from 'pagewise';
import { STEP_BLOCK_HEADER, type ContextItem, type ContextRequest, type ToolDefinition } from 'pagewise/context';
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
import { SessionCacheReplay, describeFirstChange, priceFor, type CacheCallInput } from './cache.js';
import { callLogCache } from './cache-report.js';
import { InspectData } from './data.js';
import { openSqliteReadOnly } from './db.js';
import { createInspectorApp } from './server.js';

const KEY = { appName: 'app', userId: 'u', sessionId: 's' };
const TOOLS: ToolDefinition[] = [
  { name: 'lookup', description: 'Looks up an order by id.', inputSchema: { type: 'object' } },
];
const SYSTEM = `You answer questions about orders. ${'Cite the order ids you used. '.repeat(200)}`;

function entry(model: string, index: number): LedgerEntry {
  return {
    index,
    kind: 'agent',
    agent: 'a',
    model,
    invocationId: 'inv',
    parts: { instruction: 0, paged: 0, history: 0, observation: 0, tools: 0 },
    promptTokens: 0,
    completionTokens: 10,
    modelMs: 1,
    frameworkMs: 1,
    at: 1_000 + index,
  };
}

const request = (items: ContextItem[], step?: string): ContextRequest => ({
  instruction: [
    { part: 'instruction', text: SYSTEM },
    ...(step ? [{ part: 'paged' as const, text: `${STEP_BLOCK_HEADER}\n${step}` }] : []),
  ],
  items,
  tools: TOOLS,
});

const result = (id: string, output: string): ContextItem => ({
  type: 'tool-result',
  toolCallId: id,
  toolName: 'lookup',
  output,
  isError: false,
});

const history: ContextItem[] = [
  { type: 'user', text: 'Which orders shipped late?' },
  { type: 'assistant', text: '', toolCalls: [{ toolCallId: 'c1', toolName: 'lookup', input: { id: 'o1' } }] },
  result('c1', 'order o1 shipped on time'),
  { type: 'assistant', text: '', toolCalls: [{ toolCallId: 'c2', toolName: 'lookup', input: { id: 'o2' } }] },
  result('c2', 'order o2 shipped two days late'),
];

const call = (model: string, index: number, req: ContextRequest): CacheCallInput => ({
  model,
  at: 1_000 + index,
  entry: entry(model, index),
  request: req,
});

describe('SessionCacheReplay on stored requests', () => {
  it('locates the first change in the history item that changed, with the text from there on', () => {
    const replay = new SessionCacheReplay(KEY);
    const first = replay.next(call('openai:gpt-4.1', 0, request(history)))!;
    expect(first.firstChange?.status).toBe('first');
    expect(first.read).toBe(0);
    const changed = [...history.slice(0, 4), result('c2', 'order o2 shipped two weeks late')];
    const second = replay.next(call('openai:gpt-4.1', 1, request(changed)))!;
    expect(second.source).toBe('computed');
    expect(second.rules).toBe('openai');
    expect(second.read).toBeGreaterThanOrEqual(1024);
    expect(second.read % 128).toBe(0);
    expect(second.read + second.uncached).toBe(second.promptTokens);
    const change = second.firstChange!;
    expect([change.status, change.requestPart, change.item]).toEqual(['changed', 'history', 4]);
    expect([change.location?.role, change.location?.part, change.location?.name]).toEqual([
      'tool',
      'tool-result',
      'lookup',
    ]);
    expect(change.excerpt?.before).toBe('order o2 shipped two');
    expect(change.excerpt?.after).toBe(' weeks late');
    expect(describeFirstChange(change)).toMatch(/^message #6 \(tool, tool-result lookup\) · history item #5 · token /);
    // The same request again extends it unchanged, and is read up to the last whole block.
    const third = replay.next(call('openai:gpt-4.1', 2, request(changed)))!;
    expect(third.firstChange?.status).toBe('unchanged');
    expect(third.read).toBe(Math.floor(third.promptTokens / 128) * 128);
    expect(replay.totals.read).toBe(second.read + third.read);
    expect(replay.totals.hitRate).toBeCloseTo(
      (second.read + third.read) / (first.promptTokens + second.promptTokens + third.promptTokens),
      12,
    );
  });

  it('says a change in the per-step instruction is in the step block, and one in the tools is in the tools', () => {
    const replay = new SessionCacheReplay(KEY);
    replay.next(call('openai:gpt-4.1', 0, request(history, 'Reading plan: 3 of 9 read')));
    const step = replay.next(call('openai:gpt-4.1', 1, request(history, 'Reading plan: 6 of 9 read')))!;
    expect([step.firstChange?.requestPart, step.firstChange?.location?.role]).toEqual(['step block', 'user']);
    expect(step.firstChange?.excerpt?.after.startsWith('6 of 9 read')).toBe(true);
    const tools = { ...request(history), tools: [{ ...TOOLS[0]!, description: 'Finds an order by id.' }] };
    const changedTools = replay.next(call('openai:gpt-4.1', 2, tools))!;
    expect(changedTools.firstChange?.requestPart).toBe('tools');
    expect(changedTools.firstChange?.location?.name).toBe('lookup');
    expect(changedTools.read).toBe(0);
  });

  it('models Anthropic writes at the breakpoints the runner would set, and prices them', () => {
    const model = 'anthropic:claude-sonnet-4-5';
    const replay = new SessionCacheReplay(KEY);
    const first = replay.next(call(model, 0, request(history)))!;
    expect(first.rules).toBe(promptCacheRulesFor('anthropic', 'claude-sonnet-4-5')!.name);
    expect(first.write).toBeGreaterThan(0);
    const second = replay.next(call(model, 1, request([...history, { type: 'user', text: 'And o3?' }])))!;
    expect(second.read).toBeGreaterThan(0);
    const price = DEFAULT_PRICES[model]!;
    const expected =
      (second.uncached * price.inputPerMTok +
        second.read * price.cacheReadPerMTok! +
        second.write * price.cacheWritePerMTok! +
        10 * price.outputPerMTok) /
      1_000_000;
    expect(second.costUsd).toBeCloseTo(expected, 12);
    expect(second.price).toBe(model);
  });

  it('prices a call by its model, the offline model at zero, and leaves a model without a price unpriced', () => {
    expect(priceFor('openai:gpt-4.1')?.key).toBe('openai:gpt-4.1');
    expect(priceFor('pagewise:offline')?.key).toBe('offline');
    expect(priceFor('acme:model-9')).toBeUndefined();
    const replay = new SessionCacheReplay(KEY);
    // No cache rules for an unknown provider: no figures, and nothing priced.
    expect(replay.next(call('acme:model-9', 0, request(history)))).toBeUndefined();
    expect(replay.totals).toMatchObject({ calls: 0, withoutFigures: 1, hitRate: null });
    const asOpenAi = new SessionCacheReplay(KEY, { priceAs: 'openai:gpt-4.1' });
    const priced = asOpenAi.next(call('acme:model-9', 0, request(history)))!;
    expect(priced.price).toBe('openai:gpt-4.1');
    expect(priced.costUsd).toBeGreaterThan(0);
    expect(() => new SessionCacheReplay(KEY, { priceAs: 'acme:model-9' })).toThrow(/No built-in price/);
  });
});

describe('the figures of a recorded run', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-cache-'));
    file = path.join(dir, 'store.db');
    const store = new SqliteSessionStore({ path: file });
    const reports = generateReports(30, 5);
    try {
      await runReportAnalysis({
        corpus: inMemoryCorpus(reports),
        question: generateQuestions(reports, 5, 1)[0]!.text,
        strategy: 'none',
        store,
        pageStore: new SqlitePageStore({ database: store.db }),
        callLog: new SqliteCallLog({ database: store.db }),
        userId: 'analyst',
        contextWindow: 0,
        promptCache: promptCacheRulesFor('openai', 'gpt-4.1')!,
      });
    } finally {
      await store.close();
    }
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('models, from the stored requests alone, what the runner recorded for every call', async () => {
    const data = new InspectData(openSqliteReadOnly(file));
    try {
      const [session] = (await data.listSessions({}, 0, 10)).rows;
      const calls = await data.calls(session!);
      expect(calls.length).toBeGreaterThan(3);
      const recorded = new SessionCacheReplay(session!);
      const computed = new SessionCacheReplay(session!);
      let hits = 0;
      for (const callSummary of calls) {
        const detail = (await data.call(session!, callSummary.id))!;
        const modelled = callSummary.entry!.cache!.modelled;
        const { cache: _recorded, ...bare } = callSummary.entry!;
        const fromRecord = recorded.next({
          model: callSummary.model,
          at: callSummary.entry!.at,
          entry: callSummary.entry,
          request: detail.request,
        })!;
        const fromReplay = computed.next({
          model: callSummary.model,
          at: callSummary.entry!.at,
          entry: bare,
          request: detail.request,
        })!;
        expect([fromRecord.source, fromReplay.source]).toEqual(['recorded', 'computed']);
        expect([fromReplay.read, fromReplay.write, fromReplay.uncached, fromReplay.firstChange?.token]).toEqual([
          modelled.readTokens,
          modelled.writeTokens,
          modelled.uncachedTokens,
          modelled.firstChangedToken,
        ]);
        expect(fromRecord.firstChange).toEqual(fromReplay.firstChange);
        if (fromReplay.read > 0) hits += 1;
      }
      expect(hits).toBeGreaterThan(0);
      const ledgerRead = calls.reduce((n, c) => n + c.entry!.cache!.modelled.readTokens, 0);
      const ledgerPrompt = calls.reduce((n, c) => n + c.entry!.cache!.modelled.promptTokens, 0);
      expect(computed.totals.hitRate).toBeCloseTo(ledgerRead / ledgerPrompt, 12);
      // Through the inspector's own reader, and the report of the whole log priced as another model.
      const view = await data.sessionCache(session!, calls.length);
      expect(view.totals.read).toBe(ledgerRead);
      const [row] = await callLogCache(data.db, { priceAs: 'openai:gpt-4.1' });
      const price = DEFAULT_PRICES['openai:gpt-4.1']!;
      expect(row!.totals.costUsd).toBeCloseTo(
        calls.reduce((n, c) => n + callCostUsd(c.entry!, price), 0),
        12,
      );
    } finally {
      await data.close();
    }
  }, 60_000);
});

describe('the cache views of a hostile request', () => {
  let dir: string;
  let file: string;
  const hostile = 'late <script>alert("x")</script><img src=x onerror=alert(1)> pay \u202Egnp.exe\u202C';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-cache-hostile-'));
    file = path.join(dir, 'store.db');
    const store = new SqliteSessionStore({ path: file });
    await store.createSession(KEY);
    const log = new SqliteCallLog({ database: store.db });
    const outputs = ['order o2 shipped on time', `order o2 shipped ${hostile}`];
    outputs.forEach((output, index) =>
      log.recordCall({
        ...KEY,
        invocationId: 'inv',
        eventId: `m${index}`,
        entry: entry('openai:gpt-4.1', index),
        request: request([...history.slice(0, 4), result('c2', output)]),
        response: { text: 'done', toolCalls: [] },
      }),
    );
    await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('shows the text at the first change as text, in the calls view and the call view', async () => {
    const data = new InspectData(openSqliteReadOnly(file));
    const app = createInspectorApp({ data, runs: [] });
    try {
      const query = new URLSearchParams({ a: KEY.appName, u: KEY.userId, s: KEY.sessionId });
      const list = await (await app.request(`/calls?${query}`)).text();
      const [, second] = await data.calls(KEY);
      query.set('call', String(second!.id));
      const one = await (await app.request(`/call?${query}`)).text();
      for (const page of [list, one]) {
        const cell = /<mark class="changed"\s*>([^<]*)<\/mark/.exec(page)?.[1] ?? '';
        expect(cell.startsWith(' late &lt;script&gt;alert(&quot;x&quot;)')).toBe(true);
        expect(page).not.toContain('<script>alert');
        expect(page).not.toContain('<img src=x');
        expect(page).not.toContain('\u202E');
      }
      expect(one).toContain('⟦U+202E⟧gnp.exe');
      expect(one).toContain('history item #5');
    } finally {
      await data.close();
    }
  });
});

describe('a session of the offline model', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-cache-offline-'));
    file = path.join(dir, 'store.db');
    const store = new SqliteSessionStore({ path: file });
    await store.createSession(KEY);
    const log = new SqliteCallLog({ database: store.db });
    for (let index = 0; index < 3; index++)
      log.recordCall({
        ...KEY,
        invocationId: 'inv',
        eventId: `m${index}`,
        entry: { ...entry('pagewise:offline', index), promptTokens: 4_000, completionTokens: 20 },
        request: request(history.slice(0, 2 + index)),
        response: { text: 'done', toolCalls: [] },
      });
    await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function header(priceAs?: string): Promise<{ page: string; costUsd: number; free: string[] }> {
    const data = new InspectData(openSqliteReadOnly(file), priceAs !== undefined ? { priceAs } : {});
    const app = createInspectorApp({ data, runs: [] });
    try {
      const query = new URLSearchParams({ a: KEY.appName, u: KEY.userId, s: KEY.sessionId });
      await (await app.request(`/calls?${query}`)).text();
      const page = await (await app.request(`/session?${query}`)).text();
      const { totals } = await data.sessionCache(KEY);
      return { page, costUsd: totals.costUsd, free: totals.free };
    } finally {
      await data.close();
    }
  }

  it('says a $0 cost is the free model, and prices it as a provider when asked', async () => {
    const own = await header();
    expect(own.costUsd).toBe(0);
    expect(own.free).toEqual(['offline']);
    expect(own.page).toContain('offline bills nothing');
    const priced = await header('openai:gpt-4.1');
    expect(priced.free).toEqual([]);
    expect(priced.costUsd).toBeGreaterThan(0);
    expect(priced.page).not.toContain('bills nothing');
  });
});
