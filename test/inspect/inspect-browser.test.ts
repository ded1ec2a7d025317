/**
 * The inspector in a real browser (the machine's Chromium through playwright-core): stores written by
 * real offline runs, every view opened, figures compared with the runs' ledgers, the click path session →
 * call → paged page → compression diff, hostile content that must stay text, a store that must not
 * change, live updates, and the first screen of a 20,000-event session timed.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBench } from '../../packages/lab/src/bench/harness.js';
import { writeBenchOutput } from '../../packages/lab/src/bench/report.js';
import { getScenario } from '../../packages/lab/src/bench/registry.js';
import { registerStandardBench } from '../../packages/lab/src/bench/standard.js';
import type { BenchReport } from '../../packages/lab/src/bench/harness.js';
import { parseFencedPages } from '../../packages/pagewise/src/paging/fence.js';
import { PROMPT_PARTS } from '../../packages/pagewise/src/tokens/ledger.js';
import { startInspector, type Inspector } from '../../packages/inspect/src/index.js';
import {
  addHostileEvents,
  appendUserEvent,
  HOSTILE,
  recordLongSession,
  recordReportRun,
  recordRetailAconRun,
  retailDataDir,
  type RecordedRun,
} from './fixtures.js';

const CHROMIUM = process.env.PAGEWISE_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.log(`inspect browser tests skipped: no Chromium at ${CHROMIUM} (set PAGEWISE_CHROMIUM)`);
const retail = retailDataDir();
if (!retail.dir) console.log(`inspect retail ACON browser test skipped: ${retail.reason}`);
/** When set, the README's screenshots are written there too (docs/ of the repository). */
const DOCS_DIR = process.env.PAGEWISE_INSPECT_DOCS;

const LONG_EVENTS = 20_000;
const queryOf = (key: { appName: string; userId: string; sessionId: string }) =>
  `a=${encodeURIComponent(key.appName)}&u=${encodeURIComponent(key.userId)}&s=${encodeURIComponent(key.sessionId)}`;

/** Every row of every table, hashed: equal before and after means nothing was written. */
function storeDigest(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const hash = createHash('sha256');
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all();
    for (const { name } of tables)
      hash.update(`${name}:${JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).all())}`);
    return hash.digest('hex');
  } finally {
    db.close();
  }
}

const numbers = async (page: Page, selector: string) =>
  (
    await page
      .locator(`${selector} .num`)
      .evaluateAll((nodes) => nodes.map((n) => (n as unknown as { dataset: { n: string } }).dataset.n))
  ).map(Number);

describe.skipIf(!haveChromium)('pagewise inspect in Chromium', () => {
  let dir: string;
  let shots: string;
  let file: string;
  let browser: Browser;
  let inspector: Inspector;
  let origin: string;
  let report: RecordedRun;
  let hostile: RecordedRun;
  let hostilePage: string;
  let acon: RecordedRun | undefined;
  let bench: BenchReport;
  let benchDir: string;
  let longKey: { appName: string; userId: string; sessionId: string };
  const screenshots: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-'));
    shots = path.join(dir, 'screenshots');
    mkdirSync(shots);
    file = path.join(dir, 'runs.db');
    report = await recordReportRun(file);
    hostile = await recordReportRun(file, { hostile: true, n: 8 });
    hostilePage = (await addHostileEvents(file, hostile.key)).uri;
    if (retail.dir) acon = await recordRetailAconRun(file, retail.dir);
    longKey = await recordLongSession(file, LONG_EVENTS);
    registerStandardBench();
    bench = await runBench({
      scenario: getScenario('report-analysis'),
      strategies: ['none', 'paging'],
      n: [12],
      tasks: 2,
      seed: 5,
    });
    benchDir = path.join(dir, 'bench-out');
    await writeBenchOutput(benchDir, bench);
    inspector = await startInspector({ store: `sqlite:${file}`, runs: [benchDir], port: 0 });
    origin = new URL(inspector.url).origin;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await inspector?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A page that fails the test on any dialog or any request outside the inspector. */
  async function guardedPage(): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on('request', (request) => {
      if (!request.url().startsWith(origin)) problems.push(`request to ${request.url()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    return { page, problems };
  }

  async function shot(page: Page, name: string): Promise<void> {
    const target = path.join(shots, `${name}.png`);
    await page.screenshot({ path: target, fullPage: false });
    screenshots.push(target);
  }

  it('shows the ledger figures of a paging run, and clicks session → call → paged page', async () => {
    const { page, problems } = await guardedPage();
    const summary = report.result.ledger.summary;
    await page.goto(`${origin}/?user=analyst`);
    const row = page.locator(`tr[data-session="${report.key.sessionId}"]`);
    expect(await numbers(page, `tr[data-session="${report.key.sessionId}"] td.peak`)).toEqual([
      summary.peakPromptTokens,
    ]);
    expect(await numbers(page, `tr[data-session="${report.key.sessionId}"] td.cumulative`)).toEqual([
      summary.cumulativePromptTokens,
    ]);
    expect(await numbers(page, `tr[data-session="${report.key.sessionId}"] td.calls`)).toEqual([summary.modelCalls]);
    await shot(page, 'sessions');

    await row.locator('a.session').click();
    await page.waitForSelector('#events tr.ev');
    expect(await page.locator('#events tr.ev').count()).toBe(report.result.session.events.length);
    expect(await page.locator('.ev-transfer').count()).toBeGreaterThan(0); // the planner hands over to the analyst
    await shot(page, 'timeline');

    // The call list: every part of every call equals the ledger entry.
    await page.goto(`${origin}/calls?${queryOf(report.key)}`);
    const entries = report.result.ledger.entries.filter((e) => e.kind === 'agent');
    for (const part of PROMPT_PARTS)
      expect(await numbers(page, `#calls-table td.part-${part}`), part).toEqual(entries.map((e) => e.parts[part]));
    expect(await numbers(page, '#calls-table td.total')).toEqual(entries.map((e) => e.promptTokens));

    // The peak call, as sent: its ledger row, then one of its paged pages.
    const peakIndex = entries.findIndex((e) => e.promptTokens === summary.peakPromptTokens);
    await page.locator('#calls-table a.call').nth(peakIndex).click();
    await page.waitForSelector('#ledger');
    for (const part of PROMPT_PARTS)
      expect(await numbers(page, `#ledger td.part-${part}`)).toEqual([entries[peakIndex]!.parts[part]]);
    expect(await page.locator('a.paged-page').count()).toBeGreaterThan(0);
    await shot(page, 'call');
    await page.locator('a.paged-page').first().click();
    const body = await page.locator('pre.page-body').textContent();
    expect(body).toContain('Quarterly report');
    await shot(page, 'page');

    await page.goto(`${origin}/context?${queryOf(report.key)}`);
    for (const id of ['#context-chart', '#working-set-chart'])
      expect(
        await page.locator(id).evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      ).toBeGreaterThan(100);
    await shot(page, 'context');
    if (DOCS_DIR) {
      await page.screenshot({ path: path.join(DOCS_DIR, 'inspect-context.png') });
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it.skipIf(!retail.dir)(
    'shows a retail ACON run: compressed observations beside their raw text, compactions',
    async () => {
      const { page, problems } = await guardedPage();
      const run = acon!;
      await page.goto(`${origin}/session?${queryOf(run.key)}`);
      expect(await numbers(page, '#peak')).toEqual([run.result.ledger.summary.peakPromptTokens]);
      expect(await numbers(page, '#cumulative')).toEqual([run.result.ledger.summary.cumulativePromptTokens]);
      await page.locator('a.tab', { hasText: 'Compression' }).click();
      const sections = page.locator('section.compression-observation');
      expect(await sections.count()).toBeGreaterThan(0);
      // The raw text is the stored page the handle names; the kept lines are marked in it.
      const first = sections.first();
      expect(await first.locator('.guideline').textContent()).toMatch(/^[\w.-]+@\d+$/);
      expect(Number(await first.locator('.ratio').textContent())).toBeLessThan(1);
      expect(await first.locator('pre.raw mark').count()).toBeGreaterThan(0);
      // What the compression dropped is marked as well, and counted beside what it kept.
      expect(await first.locator('pre.raw del').count()).toBe(
        Number(await first.locator('.dropped-lines .num').getAttribute('data-n')),
      );
      expect(await first.locator('pre.raw del').count()).toBeGreaterThan(0);
      // C_hist ran too: a compaction with its raw events and summary.
      expect(await page.locator('section.compression-history').count()).toBeGreaterThan(0);
      await shot(page, 'compression');
      await first.locator('a.handle').click();
      expect((await page.locator('pre.page-body').textContent())!.length).toBeGreaterThan(0);
      // The context view marks the calls that first read a compaction's summary, found from the calls themselves.
      await page.goto(`${origin}/context?${queryOf(run.key)}`);
      expect(await page.locator('p.sub', { hasText: /Compactions before calls \d/ }).count()).toBe(1);
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it('keeps hostile reports and tool results as text: nothing runs, nothing is fetched, the text is exact', async () => {
    const { page, problems } = await guardedPage();
    const views = [
      `/session?${queryOf(hostile.key)}`,
      `/calls?${queryOf(hostile.key)}`,
      `/context?${queryOf(hostile.key)}`,
      `/compression?${queryOf(hostile.key)}`,
      `/?q=hostile`,
    ];
    for (const view of views) {
      await page.goto(origin + view);
      expect(await page.locator('script').count(), view).toBe(1);
      expect(await page.locator('script').getAttribute('src')).toBe('/assets/inspect.js');
      expect(await page.locator('[onerror], [onload], svg').count(), view).toBe(0);
      expect(await page.locator('a[href^="javascript:"]').count(), view).toBe(0);
    }
    // A paged page, as fenced into the call: the DOM text equals the fenced body exactly.
    const db = new Database(file, { readonly: true });
    const calls = db
      .prepare<[string], { id: number; body: string }>(
        'SELECT id, body FROM model_calls WHERE session_id = ? ORDER BY id',
      )
      .all(hostile.key.sessionId);
    db.close();
    // A report as fenced into a call: the DOM text equals the fenced text, title included.
    let target: { id: number; section: number; index: number; body: string; title: string } | undefined;
    for (const call of calls) {
      const request = (JSON.parse(call.body) as { request: { instruction: { part: string; text: string }[] } }).request;
      request.instruction.forEach((part, section) => {
        if (part.part !== 'paged' || target) return;
        const pages = parseFencedPages(part.text).pages;
        const index = pages.findIndex((p) => p.title.includes('onerror='));
        if (index >= 0) target = { id: call.id, section, index, body: pages[index]!.body, title: pages[index]!.title };
      });
    }
    expect(target).toBeDefined();
    await page.goto(
      `${origin}/page?${queryOf(hostile.key)}&call=${target!.id}&section=${target!.section}&i=${target!.index}`,
    );
    expect(await page.locator('pre.page-body').textContent()).toBe(target!.body);
    expect(await page.locator('dl.figures dd').first().textContent()).toBe(target!.title);
    // A stored page with raw markup: byte for byte.
    await page.goto(`${origin}/page?${queryOf(hostile.key)}&uri=${encodeURIComponent(hostilePage)}`);
    expect(await page.locator('pre.page-body').textContent()).toBe(HOSTILE);
    // The user message, the model's text and the tool result, each exactly the raw text.
    await page.goto(`${origin}/session?${queryOf(hostile.key)}`);
    expect(await page.locator('tr.ev-user pre').last().textContent()).toBe(HOSTILE);
    expect(await page.locator('tr.ev-model pre.t').last().textContent()).toBe(HOSTILE);
    expect(await page.locator('tr.ev-tool-result pre').last().textContent()).toBe(HOSTILE);
    expect(await page.locator('tr.ev-tool-result ul.delta').last().textContent()).toContain('onerror=alert("key")');
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('[onerror], [onload], svg, a[href^="javascript:"]').count()).toBe(0);
    await shot(page, 'hostile');
    await page.waitForTimeout(300);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('changes nothing in the store, whatever is requested', async () => {
    const before = storeDigest(file);
    const size = statSync(file).size;
    const { page } = await guardedPage();
    for (const view of [
      '/',
      `/session?${queryOf(report.key)}`,
      `/calls?${queryOf(report.key)}`,
      `/context?${queryOf(report.key)}`,
      `/compression?${queryOf(report.key)}`,
      '/runs',
    ])
      await page.goto(origin + view);
    await page.close();
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const response = await fetch(`${origin}/session?${queryOf(report.key)}`, {
        method,
        body: method === 'DELETE' ? null : 'x=1',
      });
      expect(response.status, method).toBe(405);
    }
    expect(storeDigest(file)).toBe(before);
    expect(statSync(file).size).toBe(size);
  });

  it('updates a session in the page while it runs, without a reload', async () => {
    const { page, problems } = await guardedPage();
    await page.goto(`${origin}/session?${queryOf(report.key)}&offset=0`);
    const shown = await page.locator('#events tr.ev').count();
    await page.evaluate('window.__marker = 1');
    await appendUserEvent(file, report.key, 'a live message <b>not bold</b>');
    await page.waitForSelector(`#e${shown}`, { timeout: 15_000 });
    expect(await page.locator(`#e${shown} pre`).textContent()).toBe('a live message <b>not bold</b>');
    expect(await page.evaluate('window.__marker')).toBe(1); // the same document: no reload
    expect(problems).toEqual([]);
    await page.close();
  });

  it(`opens the first screen of a ${LONG_EVENTS.toLocaleString('en-US')}-event session quickly`, async () => {
    const { page, problems } = await guardedPage();
    await page.goto(`${origin}/session?${queryOf(longKey)}`); // warm the tokenizer-free path once
    const started = performance.now();
    await page.goto(`${origin}/session?${queryOf(longKey)}`, { waitUntil: 'load' });
    await page.waitForSelector('#events tr.ev');
    const ms = performance.now() - started;
    const nav = (await page.evaluate("JSON.stringify(performance.getEntriesByType('navigation')[0])")) as string;
    const timing = JSON.parse(nav) as { responseEnd: number; loadEventEnd: number };
    console.log(
      `inspect: first screen of a ${LONG_EVENTS}-event session in ${ms.toFixed(0)} ms (server response ${timing.responseEnd.toFixed(0)} ms, load event ${timing.loadEventEnd.toFixed(0)} ms)`,
    );
    expect(await numbers(page, '[data-live-count]')).toEqual([LONG_EVENTS]);
    expect(await page.locator('#events tr.ev').count()).toBe(100);
    await shot(page, 'long-session');
    // A generous sanity bound on a loaded shared machine; the figure itself is printed above.
    expect(ms).toBeLessThan(10_000);
    await page.locator('a[rel="last"]').first().click();
    expect(await page.locator(`#e${LONG_EVENTS - 1}`).count()).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('opens a bench --out folder: results, charts, and a strategy × task cell down to its calls', async () => {
    const { page, problems } = await guardedPage();
    await page.goto(`${origin}/runs`);
    await page.locator('a.run').first().click();
    const peaks = await numbers(page, '#results td:nth-child(5)');
    expect(peaks).toEqual(bench.results.map((r) => r.peakPromptTokens));
    expect(
      await page
        .locator('img.chart')
        .first()
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(100);
    await shot(page, 'runs');
    const cells = page.locator('#grid a.cell');
    expect(await cells.count()).toBe(bench.runs.episodes.length);
    const href = (await cells.last().getAttribute('href'))!;
    const episodeIndex = Number(href.split('/').pop());
    await cells.last().click();
    const episode = bench.runs.episodes[episodeIndex]!;
    expect(await numbers(page, '#episode-calls td.total')).toEqual(episode.ledger.map((e) => e.promptTokens));
    for (const part of PROMPT_PARTS)
      expect(await numbers(page, `#episode-calls td.part-${part}`)).toEqual(episode.ledger.map((e) => e.parts[part]));
    await shot(page, 'episode');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('wrote one non-empty, distinct screenshot per view', () => {
    expect(screenshots.length).toBeGreaterThanOrEqual(6);
    const hashes = new Set<string>();
    for (const screenshot of screenshots) {
      const bytes = readFileSync(screenshot);
      expect(bytes.length, screenshot).toBeGreaterThan(5_000);
      hashes.add(createHash('sha256').update(bytes).digest('hex'));
    }
    expect(hashes.size).toBe(screenshots.length);
    if (DOCS_DIR) copyFileSync(path.join(shots, 'call.png'), path.join(DOCS_DIR, 'inspect-call.png'));
  });
});
