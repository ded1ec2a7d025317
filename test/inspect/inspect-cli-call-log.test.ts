/**
 * Every CLI command that runs a model keeps its call log: a session made by `pagewise analyze`, one made by
 * `pagewise bench --out` and one made by `pagewise optimize --db`, opened with `pagewise inspect` (all run as
 * child processes) in the machine's Chromium, show their model calls as sent, with the figures the runs printed
 * or saved.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCorpus } from '../../packages/lab/src/scenarios/report-analysis/index.js';
import { retailDataAvailable, retailDataMissing } from '../../packages/lab/src/scenarios/retail/index.js';
import { OPTIMIZER_SESSION } from '../../packages/lab/src/optimize/optimizer-log.js';
import { openSqliteDatabase } from '../../packages/sqlite/src/sqlite-store.js';
import { finishedCli, withInspector } from '../support/cli-runs.js';

const CHROMIUM = process.env.PAGEWISE_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.log(`inspect call-log browser test skipped: no Chromium at ${CHROMIUM} (set PAGEWISE_CHROMIUM)`);
const haveRetail = retailDataAvailable();
if (!haveRetail) console.log(`inspect call-log browser test of optimize skipped: ${retailDataMissing()}`);

const numbers = async (page: Page, selector: string) =>
  (
    await page
      .locator(`${selector} .num`)
      .evaluateAll((nodes) => nodes.map((n) => (n as unknown as { dataset: { n: string } }).dataset.n))
  ).map(Number);

describe.skipIf(!haveChromium)('pagewise inspect on sessions made by the CLI', () => {
  let dir: string;
  let folder: string;
  let browser: Browser;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-call-log-'));
    folder = path.join(dir, 'reports');
    await writeCorpus(folder, 12, 2);
    env = { PAGEWISE_CACHE_DIR: path.join(dir, 'cache') };
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Opens the Calls tab of a session and checks it lists `calls` calls peaking at `peak`, then opens the peak call
   * (which, where the agent pages, shows the pages paged into its instruction).
   */
  async function expectCallView(
    origin: string,
    sessionId: string,
    calls: number,
    peak: number,
    paged = true,
  ): Promise<void> {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/`);
      await page.locator(`tr[data-session="${sessionId}"] a.session`).click();
      await page.locator('a.tab', { hasText: 'Calls' }).click();
      await page.waitForSelector('#calls-table, p.empty');
      expect(await page.content()).not.toContain('This session has no call log');
      expect(await numbers(page, '#calls')).toEqual([calls]);
      expect(await numbers(page, '#peak')).toEqual([peak]);
      const totals = await numbers(page, '#calls-table td.total');
      expect(totals).toHaveLength(calls);
      expect(Math.max(...totals)).toBe(peak);
      // The peak call as the model saw it: its ledger row and the pages paged into its instruction.
      await page.locator('#calls-table a.call').nth(totals.indexOf(peak)).click();
      await page.waitForSelector('#ledger');
      expect(await numbers(page, '#ledger td.total')).toEqual([peak]);
      if (paged) expect(await page.locator('a.paged-page').count()).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  }

  it('shows the calls of an `analyze` session', async () => {
    const db = path.join(dir, 'analyze.db');
    const run = await finishedCli(
      ['analyze', folder, 'How many reports have a churn rate above 5%?', '--batch', '4', '--db', db],
      env,
    );
    const sessionId = /^session (\S+) /m.exec(run.stdout())![1]!;
    const figures = /tokens: peak ([\d,]+), cumulative [\d,]+, model calls (\d+)/.exec(run.stdout())!;
    const peak = Number(figures[1]!.replace(/,/g, ''));
    expect(peak).toBeGreaterThan(0);
    await withInspector(`sqlite:${db}`, (origin) => expectCallView(origin, sessionId, Number(figures[2]), peak));
  }, 120_000);

  it('shows the calls of a `bench --out` episode', async () => {
    const out = path.join(dir, 'bench-out');
    const run = await finishedCli(
      ['bench', 'report-analysis', '--n', '8', '--tasks', '1', '--strategies', 'paging', '--out', out],
      env,
    );
    const store = /sessions and every model call in \S+: (?:npx )?pagewise inspect --store (\S+) --runs/.exec(
      run.stderr(),
    )?.[1];
    expect(store, run.stderr()).toBe(`sqlite:${path.join(out, 'sessions.db')}`);
    const runs = JSON.parse(readFileSync(path.join(out, 'runs.json'), 'utf8')) as {
      episodes: { ledger: { kind: string; promptTokens: number }[] }[];
    };
    expect(runs.episodes).toHaveLength(1);
    const agentCalls = runs.episodes[0]!.ledger.filter((entry) => entry.kind === 'agent');
    const peak = Math.max(...agentCalls.map((entry) => entry.promptTokens));
    await withInspector(store!, async (origin) => {
      const page = await browser.newPage();
      const sessionId = await (async () => {
        try {
          await page.goto(`${origin}/`);
          const ids = await page
            .locator('tr[data-session]')
            .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session')));
          expect(ids).toHaveLength(1);
          return ids[0]!;
        } finally {
          await page.close();
        }
      })();
      await expectCallView(origin, sessionId, agentCalls.length, peak);
    });
  }, 120_000);

  it.runIf(haveRetail)(
    'shows the calls of an `optimize --db` episode',
    async () => {
      const db = path.join(dir, 'optimize.db');
      await finishedCli(
        [
          'optimize',
          '--scenario',
          'retail-tool-use',
          '--target',
          'observation',
          '--train',
          '2',
          '--val',
          '1',
          '--candidates',
          '1',
          '--out',
          path.join(dir, 'optimize-out'),
          '--db',
          db,
        ],
        env,
      );
      // What the run recorded, read straight from the database: the episode's calls and their prompt sizes.
      const database = openSqliteDatabase(db);
      let episode: { sessionId: string; calls: number; peak: number };
      try {
        // The first episode (not the optimizer's own session), by id, with its call count and peak prompt.
        const row = database
          .prepare(
            `SELECT session_id AS sessionId, COUNT(*) AS calls, MAX(prompt_tokens) AS peak FROM model_calls
             WHERE user_id != ? GROUP BY session_id ORDER BY session_id LIMIT 1`,
          )
          .get(OPTIMIZER_SESSION.userId) as { sessionId: string; calls: number; peak: number } | undefined;
        expect(row).toBeDefined();
        expect(row!.calls).toBeGreaterThan(0);
        expect(row!.peak).toBeGreaterThan(0);
        episode = row!;
      } finally {
        database.close();
      }
      await withInspector(`sqlite:${db}`, (origin) =>
        expectCallView(origin, episode.sessionId, episode.calls, episode.peak, false),
      );
    },
    180_000,
  );
});
