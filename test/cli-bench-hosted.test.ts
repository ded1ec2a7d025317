/**
 * `pagewise bench --model <hosted>` without --out, as a user runs it in a fresh folder: the run is saved to the
 * default bench-out/<scenario>-<time>/ (its parent created), and nothing blames a flag the user did not give.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from './support/cli-child.js';
import { answer, hang, startFakeOpenAI, type FakeOpenAI } from './security/openai-server.js';

let dir: string;
let server: FakeOpenAI;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-bench-hosted-'));
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('bench on a hosted model without --out', () => {
  it('creates bench-out/ and saves the run there', async () => {
    // Every call answers with a final text: each episode ends at once (and fails its check), which is enough here.
    for (let queued = 0; queued < 20; queued += 1) server.enqueue(answer({ text: 'No idea.' }));
    const run = spawnCli(
      [
        'bench',
        'report-analysis',
        '--n',
        '3',
        '--tasks',
        '1',
        '--strategies',
        'paging',
        '--model',
        'openai-compatible:m',
      ],
      { PAGEWISE_OPENAI_COMPATIBLE_BASE_URL: server.baseURL, PAGEWISE_OPENAI_COMPATIBLE_API_KEY: 'k' },
      dir,
    );
    const { code } = await run.exited;
    expect(run.stderr()).not.toContain('--out');
    expect(code, run.stderr()).toBe(0);
    expect(existsSync(path.join(dir, 'bench-out'))).toBe(true);
    const [saved] = readdirSync(path.join(dir, 'bench-out'));
    expect(saved).toMatch(/^report-analysis-/);
    expect(readdirSync(path.join(dir, 'bench-out', saved!))).toEqual(
      expect.arrayContaining(['results.json', 'runs.json', 'report.md']),
    );
    expect(server.requests.length).toBeGreaterThan(0);
  }, 120_000);
});

describe('bench on a hung hosted model (issue 31.12)', () => {
  const env = () => ({ PAGEWISE_OPENAI_COMPATIBLE_BASE_URL: server.baseURL, PAGEWISE_OPENAI_COMPATIBLE_API_KEY: 'k' });
  const bench = (out: string, ...flags: string[]) =>
    spawnCli(
      [
        'bench',
        'report-analysis',
        '--n',
        '3',
        '--tasks',
        '1',
        '--strategies',
        'paging',
        '--model',
        'openai-compatible:m',
        '--out',
        out,
        ...flags,
      ],
      env(),
      dir,
    );

  it('abandons each hung call after --timeout and retries it, so the episode ends instead of waiting 4 × 120 s', async () => {
    server.clear();
    for (let queued = 0; queued < 20; queued += 1) server.enqueue(hang);
    const before = server.requests.length;
    const run = bench(path.join(dir, 'timeout'), '--timeout', '1');
    const { code } = await run.exited;
    expect(code, run.stderr()).toBe(0);
    expect(run.stderr()).toMatch(/1\/1 episodes \(last: paging N=3, failed\)/u);
    // One attempt and the three retries, each abandoned after a second.
    expect(server.requests.length - before).toBe(4);
  }, 120_000);

  it('stops at --deadline as on Ctrl-C, keeping the run resumable, and exits 2', async () => {
    server.clear();
    for (let queued = 0; queued < 20; queued += 1) server.enqueue(hang);
    const out = path.join(dir, 'deadline');
    const started = performance.now();
    // A call timeout far beyond the deadline: only the deadline can end this run early.
    const run = bench(out, '--timeout', '60', '--deadline', '3');
    const { code } = await run.exited;
    const seconds = (performance.now() - started) / 1000;
    expect(code, run.stderr()).toBe(2);
    expect(run.stderr()).toContain('Stopped at the deadline (--deadline 3 s)');
    expect(run.stderr()).toContain(`--resume ${out}`);
    expect(seconds).toBeLessThan(30);
    // The run's settings are saved before any episode, so --resume can continue it.
    expect(readdirSync(out)).toContain('bench-run.json');
  }, 120_000);
});
