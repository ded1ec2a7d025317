/**
 * The inspector's prompt-cache figures in the machine's Chromium, on sessions the CLI recorded: a `pagewise demo`
 * session (whose ledger carries the cache model's figures) and a `pagewise analyze` session (which records none, so
 * the inspector models them from the stored requests). The expected figures are worked out here from the stored call
 * log by other means: the ledger's own figures, and, for the analyze session, the longest common token prefix of
 * each request with the one before it under OpenAI's published rule.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../packages/pagewise/src/index.js';
import type { ContextRequest } from '../../packages/pagewise/src/context.js';
import { renderPrompt } from '../../packages/pagewise/src/context/request.js';
import { promptSegments } from '../../packages/pagewise/src/tokens/prompt-segments.js';
import { writeCorpus } from '../../packages/lab/src/scenarios/report-analysis/index.js';
import { finishedCli, withInspector } from '../support/cli-runs.js';

const CHROMIUM = process.env.PAGEWISE_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.log(`inspect cache browser test skipped: no Chromium at ${CHROMIUM} (set PAGEWISE_CHROMIUM)`);

interface LoggedCall {
  id: number;
  sessionId: string;
  model: string;
  entry: LedgerEntry;
  request: ContextRequest;
}

/** The call log of `file`, read directly, in call order. */
function loggedCalls(file: string): LoggedCall[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT id, session_id, model, body FROM model_calls ORDER BY id').all() as {
      id: number;
      session_id: string;
      model: string;
      body: string;
    }[];
    return rows.map((row) => {
      const body = JSON.parse(row.body) as { entry: LedgerEntry; request: ContextRequest };
      return { id: row.id, sessionId: row.session_id, model: row.model, entry: body.entry, request: body.request };
    });
  } finally {
    db.close();
  }
}

/** Token ids of a request in the provider's order, and how many belong to the tools and to each message. */
function requestTokens(request: ContextRequest): { tokens: number[]; tools: number; messages: number[] } {
  const { prompt, tools } = renderPrompt(request);
  const toolTokens = promptSegments([], tools).flatMap((s) => Array.from(s.tokens));
  const messages = prompt.map((m) => promptSegments([m]).flatMap((s) => Array.from(s.tokens)));
  return {
    tokens: [...toolTokens, ...messages.flat()],
    tools: toolTokens.length,
    messages: messages.map((m) => m.length),
  };
}

/** Where token `token` is, as the inspector words it: `tool #n` or `message #n`. */
function expectedPlace(request: ContextRequest, token: number): string {
  const { tools, messages } = requestTokens(request);
  if (token < tools) return 'tool #';
  let start = tools;
  for (const [index, length] of messages.entries()) {
    if (token < start + length) return `message #${index + 1} `;
    start += length;
  }
  return 'end';
}

function commonPrefix(left: readonly number[], right: readonly number[]): number {
  let length = 0;
  while (length < left.length && length < right.length && left[length] === right[length]) length += 1;
  return length;
}

/** What the calls view shows of each call's cache, by call id. */
async function callCells(page: Page) {
  return page.locator('#calls-table tr[data-call]').evaluateAll((rows) =>
    rows.map((row) => {
      const cell = (selector: string) => row.querySelector(selector);
      const numberIn = (selector: string) =>
        Number((cell(selector) as unknown as { dataset: { n: string } }).dataset.n);
      const change = cell('td.first-change') as unknown as {
        dataset: { token: string; status: string };
        textContent: string;
      };
      return {
        id: Number(row.getAttribute('data-call')),
        read: numberIn('td.cache-read .num'),
        hit: numberIn('td.cache-hit .pct'),
        token: Number(change.dataset.token),
        status: change.dataset.status,
        text: change.textContent.replace(/\s+/g, ' ').trim(),
        mark: cell('td.first-change mark')?.textContent ?? '',
      };
    }),
  );
}

async function openCalls(page: Page, origin: string, sessionId: string): Promise<void> {
  await page.goto(`${origin}/`);
  await page.locator(`tr[data-session="${sessionId}"] a.session`).click();
  await page.locator('a.tab', { hasText: 'Calls' }).click();
  await page.waitForSelector('#calls-table');
}

const headerHit = async (page: Page) => Number(await page.locator('#cache-hit .pct').getAttribute('data-n'));

describe.skipIf(!haveChromium)('the inspector shows the prompt cache of recorded sessions', () => {
  let dir: string;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-cache-'));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows a demo session hit rate and each first change as the ledger recorded them', async () => {
    // The demo keeps its folder under the temporary folder it is given.
    const run = await finishedCli(['demo', '--n', '12', '--questions', '1', '--window', '0'], { TMPDIR: dir });
    const db = /inspect --store sqlite:(\S+)/.exec(run.stdout())![1]!;
    expect(db.startsWith(dir)).toBe(true);
    const calls = loggedCalls(db);
    const sessions = [...new Set(calls.map((c) => c.sessionId))];
    expect(sessions.length).toBe(2);
    await withInspector(`sqlite:${db}`, async (origin) => {
      const page = await browser.newPage();
      try {
        let changedSeen = 0;
        for (const sessionId of sessions) {
          const own = calls.filter((c) => c.sessionId === sessionId);
          const read = own.reduce((n, c) => n + c.entry.cache!.modelled.readTokens, 0);
          const prompt = own.reduce((n, c) => n + c.entry.cache!.modelled.promptTokens, 0);
          await openCalls(page, origin, sessionId);
          expect(await headerHit(page)).toBeCloseTo(read / prompt, 12);
          const cells = await callCells(page);
          expect(cells.map((c) => c.id)).toEqual(own.map((c) => c.id));
          for (const [index, cell] of cells.entries()) {
            const modelled = own[index]!.entry.cache!.modelled;
            expect(cell.read).toBe(modelled.readTokens);
            expect(cell.hit).toBeCloseTo(modelled.readTokens / modelled.promptTokens, 12);
            expect(cell.token).toBe(modelled.firstChangedToken);
            if (cell.status !== 'changed') continue;
            changedSeen += 1;
            expect(cell.text.startsWith(expectedPlace(own[index]!.request, modelled.firstChangedToken))).toBe(true);
          }
        }
        expect(changedSeen).toBeGreaterThan(2);
        // One call's own view: the same position, and the changed text from the request as sent.
        const call = calls.find(
          (c) => c.entry.cache!.modelled.firstChangedToken > 0 && c.entry.cache!.modelled.readTokens > 0,
        )!;
        await openCalls(page, origin, call.sessionId);
        await page.locator(`tr[data-call="${call.id}"] a.call`).click();
        await page.waitForSelector('#first-change');
        expect(Number(await page.locator('#first-change').getAttribute('data-token'))).toBe(
          call.entry.cache!.modelled.firstChangedToken,
        );
        expect(Number(await page.locator('#cache td.cache-read .num').getAttribute('data-n'))).toBe(
          call.entry.cache!.modelled.readTokens,
        );
        const changed = (await page.locator('#first-change mark.changed').textContent())!.trim();
        expect(changed.length).toBeGreaterThan(0);
        const { prompt } = renderPrompt(call.request);
        const texts = prompt.flatMap((m) => promptSegments([m]).map((s) => s.text.replace(/\s+/gu, ' ')));
        expect(texts.some((t) => t.includes(changed))).toBe(true);
      } finally {
        await page.close();
      }
    });
  }, 180_000);

  it('models an analyze session from its stored requests, as the common prefix of each with the one before', async () => {
    const folder = path.join(dir, 'reports');
    await writeCorpus(folder, 12, 2);
    const db = path.join(dir, 'analyze.db');
    await finishedCli(['analyze', folder, 'How many reports have a churn rate above 5%?', '--batch', '4', '--db', db], {
      PAGEWISE_CACHE_DIR: path.join(dir, 'cache'),
    });
    const calls = loggedCalls(db);
    expect(calls.length).toBeGreaterThan(2);
    expect(calls.every((c) => c.entry.cache === undefined)).toBe(true);
    // OpenAI's rule on each request against the one before it of the same model: from 1,024 tokens, in 128s.
    const expected = new Map<number, { read: number; token: number }>();
    const previous = new Map<string, number[]>();
    let read = 0;
    let prompt = 0;
    for (const call of calls) {
      const { tokens } = requestTokens(call.request);
      const before = previous.get(call.model);
      const common = before ? commonPrefix(before, tokens) : 0;
      const cached = before && before.length >= 1024 && common >= 1024 ? Math.floor(common / 128) * 128 : 0;
      expected.set(call.id, { read: tokens.length >= 1024 ? cached : 0, token: common });
      previous.set(call.model, tokens);
      read += expected.get(call.id)!.read;
      prompt += tokens.length;
    }
    expect(read).toBeGreaterThan(0);
    await withInspector(`sqlite:${db}`, async (origin) => {
      const page = await browser.newPage();
      try {
        await openCalls(page, origin, calls[0]!.sessionId);
        expect(await headerHit(page)).toBeCloseTo(read / prompt, 12);
        const cells = await callCells(page);
        expect(cells.map((c) => c.id)).toEqual(calls.map((c) => c.id));
        for (const cell of cells) {
          expect([cell.id, cell.read, cell.token]).toEqual([
            cell.id,
            expected.get(cell.id)!.read,
            expected.get(cell.id)!.token,
          ]);
          if (cell.status === 'changed') {
            const call = calls.find((c) => c.id === cell.id)!;
            expect(cell.text.startsWith(expectedPlace(call.request, cell.token))).toBe(true);
          }
        }
        expect(await page.locator('#cache-hit').getAttribute('title')).toContain(
          'modelled here from the stored requests',
        );
      } finally {
        await page.close();
      }
    });
  }, 180_000);
});
