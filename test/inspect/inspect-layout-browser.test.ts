/**
 * Issue 40, item 7, in Chromium: the session list uses the window's width and, in a narrow window, scrolls inside
 * its own box rather than running off the page (it was held to 1,400 px); and a failed run's tooltip, in the
 * inspector `pagewise inspect` serves, names the CLI flag (`--window`), not the library option (`contextWindow`).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startInspector } from '../../packages/inspect/src/index.js';
import { Agent } from '../../packages/pagewise/src/agents/agent.js';
import { Runner } from '../../packages/pagewise/src/agents/runner.js';
import { tool } from '../../packages/pagewise/src/agents/tool.js';
import { scriptedModel } from '../../packages/pagewise/src/models/scripted.js';
import { SqliteCallLog } from '../../packages/sqlite/src/sqlite-call-log.js';
import { SqliteSessionStore } from '../../packages/sqlite/src/sqlite-store.js';
import { spawnCli, type CliChild } from '../support/cli-child.js';

const CHROMIUM = process.env.PAGEWISE_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.log(`inspect layout browser tests skipped: no Chromium at ${CHROMIUM} (set PAGEWISE_CHROMIUM)`);

describe.skipIf(!haveChromium)('the inspector session list in Chromium', () => {
  let dir: string;
  let file: string;
  let browser: Browser;
  let cliInspector: CliChild;
  let cliUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-layout-'));
    file = path.join(dir, 'store.db');
    const store = new SqliteSessionStore({ path: file });
    const callLog = new SqliteCallLog({ database: store.db });
    const lookup = tool({
      name: 'lookup',
      description: 'reads a long report',
      inputSchema: z.object({}),
      execute: () => 'line of a long report about order #W1\n'.repeat(120),
    });
    try {
      for (const [sessionId, agent] of [
        ['answered-session-with-a-rather-long-identifier-0001', 'analyst-with-a-descriptive-name'],
        ['answered-session-with-a-rather-long-identifier-0002', 'planner-with-a-descriptive-name'],
      ] as const)
        await new Runner({
          agent: new Agent({ name: agent, tools: [lookup] }),
          model: scriptedModel(['Shipped.']),
          store,
          callLog,
        }).run({
          userId: 'a-user-with-a-long-name@example.com',
          sessionId,
          message: 'What is the status of order #W1?',
        });
      // As the demo's `none` strategy: the history outgrows the window and the run ends on the next call.
      await new Runner({
        agent: new Agent({ name: 'analyst', tools: [lookup] }),
        model: scriptedModel([{ toolCalls: [{ toolName: 'lookup', input: {} }] }, 'never reached']),
        store,
        callLog,
        contextWindow: 400,
      })
        .run({ userId: 'u', sessionId: 'none-session', message: 'Compare every report, without compression.' })
        .catch(() => undefined);
    } finally {
      await store.close();
    }
    cliInspector = spawnCli(['inspect', '--store', `sqlite:${file}`, '--port', '0']);
    await cliInspector.waitFor(/read-only inspector at http:\/\/\S+/);
    cliUrl = /read-only inspector at (http:\/\/\S+)/.exec(cliInspector.stdout())![1]!;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (cliInspector) {
      cliInspector.child.kill('SIGINT');
      await cliInspector.exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('uses the width of a wide window', async () => {
    const page = await browser.newPage({ viewport: { width: 2000, height: 900 } });
    await page.goto(cliUrl);
    const main = await page.locator('main').boundingBox();
    const table = await page.locator('#sessions').boundingBox();
    expect(main!.width).toBeGreaterThan(1900);
    expect(table!.x + table!.width).toBeLessThanOrEqual(2000);
    expect(table!.width).toBeGreaterThan(1800);
    await page.close();
  });

  it('scrolls the table in its own box in a narrow window, every column reachable, the page not wider', async () => {
    const page = await browser.newPage({ viewport: { width: 700, height: 900 } });
    await page.goto(cliUrl);
    // A string, run in the page: this project's types have no DOM.
    const widths = await page.evaluate<{
      page: number;
      window: number;
      boxScroll: number;
      boxClient: number;
      overflow: string;
    }>(`(() => {
      const box = document.querySelector('#sessions').parentElement;
      return {
        page: document.documentElement.scrollWidth,
        window: window.innerWidth,
        boxScroll: box.scrollWidth,
        boxClient: box.clientWidth,
        overflow: getComputedStyle(box).overflowX,
      };
    })()`);
    expect(widths.page).toBeLessThanOrEqual(widths.window);
    expect(widths.boxScroll).toBeGreaterThan(widths.boxClient);
    expect(widths.overflow).toBe('auto');
    const last = page.locator('#sessions thead th').last();
    await last.scrollIntoViewIfNeeded();
    const seen = await last.boundingBox();
    expect(seen!.x).toBeGreaterThanOrEqual(0);
    expect(seen!.x + seen!.width).toBeLessThanOrEqual(700);
    expect(await last.textContent()).toBe('cumulative prompt');
    await page.close();
  });

  it('names --window in the failed run tooltip of pagewise inspect, and contextWindow in the library inspector', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(cliUrl);
    const badge = page.locator('tr[data-session="none-session"] .badge-failed');
    const tooltip = (await badge.getAttribute('title'))!;
    expect(tooltip).toMatch(/context window/i);
    expect(tooltip).toContain('--window');
    expect(tooltip).not.toContain('contextWindow');
    await page.goto(`${cliUrl.replace(/\/$/, '')}/session?a=pagewise&u=u&s=none-session`);
    const banner = (await page.locator('.banner-failed').textContent())!;
    expect(banner).toContain('--window');
    expect(banner).not.toContain('contextWindow');

    // Started from code, the inspector shows the message as the runtime wrote it, for a library user.
    const library = await startInspector({ store: `sqlite:${file}`, port: 0 });
    try {
      await page.goto(library.url);
      expect(await page.locator('tr[data-session="none-session"] .badge-failed').getAttribute('title')).toContain(
        'contextWindow',
      );
    } finally {
      await library.close();
      await page.close();
    }
  });
});
