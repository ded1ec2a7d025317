/**
 * Issue 31 item 12: on a hung model the CLI waited 4 × 120 s with no flag to lower it. `analyze` runs
 * against a local OpenAI-compatible server (127.0.0.1) that accepts every request and never answers:
 * `--timeout` bounds each call and `--deadline` the whole run, and each failure names its flag.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../packages/cli/src/main.js';
import { hang, startFakeOpenAI, type FakeOpenAI } from './openai-server.js';

let server: FakeOpenAI;
let dir: string;

beforeAll(async () => {
  server = await startFakeOpenAI();
  dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-deadlines-'));
  mkdirDocs(dir);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
});

function mkdirDocs(root: string): void {
  const docs = path.join(root, 'docs');
  mkdirSync(docs);
  writeFileSync(path.join(docs, 'a.txt'), 'Revenue in 2024 was 12 million euros.\n');
}

async function analyze(flags: string[]): Promise<{ code: number; stderr: string; requests: number }> {
  vi.stubEnv('PAGEWISE_OPENAI_COMPATIBLE_BASE_URL', server.baseURL);
  const before = server.requests.length;
  for (let attempt = 0; attempt < 8; attempt += 1) server.enqueue(hang);
  const errors: string[] = [];
  const code = await main(
    [
      'analyze',
      path.join(dir, 'docs'),
      'What was the revenue?',
      '--model',
      'openai-compatible:stuck',
      '--db',
      path.join(dir, `${flags.join('-')}.db`),
      ...flags,
    ],
    () => {},
    (s) => errors.push(s),
  );
  return { code, stderr: errors.join('\n'), requests: server.requests.length - before };
}

describe('issue 31 item 12: the CLI waited 4 × 120 s on a hung model', () => {
  it('--timeout bounds each model call: four attempts, then an error naming --timeout', async () => {
    const { code, stderr, requests } = await analyze(['--timeout', '1']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/timed out after 1000 ms \(4 attempts\)/);
    expect(stderr).toContain('--timeout');
    // The fourth request may be cut before the server has read all of it.
    expect(requests).toBeGreaterThanOrEqual(3);
    expect(requests).toBeLessThanOrEqual(4);
  }, 60_000);

  it('--deadline bounds the whole run even when one call may take longer', async () => {
    const { code, stderr, requests } = await analyze(['--timeout', '600', '--deadline', '2']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('--deadline');
    // The one call in flight was abandoned at the deadline, not retried.
    expect(requests).toBe(1);
  }, 60_000);

  it('rejects a timeout that is not a positive whole number of seconds, naming the flag', async () => {
    const { code, stderr, requests } = await analyze(['--timeout', '0']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('--timeout must be an integer');
    expect(requests).toBe(0);
  });
});
