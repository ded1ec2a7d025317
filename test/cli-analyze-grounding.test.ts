/**
 * An answer is accepted only when it is grounded in what was read: a hosted model (a scripted OpenAI-compatible
 * server on 127.0.0.1) that answers without reading a document gets a warning and exit code 6 from `pagewise
 * analyze`, run as a child process; one that reads every chosen document and saves its results exits 0.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from './support/cli-child.js';
import { answer, startFakeOpenAI, type FakeOpenAI } from './security/openai-server.js';

let dir: string;
let folder: string;
let server: FakeOpenAI;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-grounding-'));
  folder = path.join(dir, 'docs');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'a.md'), '# A\n\nPlant A shipped 120 units.\n');
  writeFileSync(path.join(folder, 'b.md'), '# B\n\nPlant B shipped 80 units.\n');
  writeFileSync(path.join(folder, 'c.md'), '# C\n\nPlant C shipped 40 units.\n');
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => server.clear());

const PLAN = [
  answer({ toolCalls: [{ name: 'choose_documents', arguments: { all: true } }] }),
  answer({ toolCalls: [{ name: 'transfer_to_agent', arguments: { agent_name: 'analyst' } }] }),
];

async function analyze(db: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = spawnCli(
    ['analyze', folder, 'How many units did the plants ship?', '--model', 'openai-compatible:m', '--db', db],
    {
      PAGEWISE_OPENAI_COMPATIBLE_BASE_URL: server.baseURL,
      PAGEWISE_OPENAI_COMPATIBLE_API_KEY: 'k',
      PAGEWISE_CACHE_DIR: path.join(dir, 'cache'),
    },
  );
  try {
    const { code } = await run.exited;
    return { code, stdout: run.stdout(), stderr: run.stderr() };
  } finally {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
  }
}

describe('analyze on a model that answers without reading', () => {
  it('warns that the answer is not grounded and exits 6', async () => {
    server.enqueue(
      ...PLAN,
      answer({ toolCalls: [{ name: 'escalate', arguments: { reason: 'The plants shipped 500 units.' } }] }),
    );
    const run = await analyze(path.join(dir, 'unread.db'));
    expect(run.stdout).toContain('The plants shipped 500 units.');
    expect(run.stdout).toContain('Read 0 of 3 documents');
    expect(run.stderr).toMatch(
      /warning: the answer is not grounded in every document chosen: 3 of 3 documents were not read \(a\.md, b\.md, c\.md\)/,
    );
    expect(run.stderr).toMatch(/pagewise inspect --store sqlite:/);
    expect(run.code).toBe(6);
  }, 60_000);

  it('exits 0 with no warning once every chosen document is read and its result saved', async () => {
    server.enqueue(
      ...PLAN,
      answer({ toolCalls: [{ name: 'get_reports', arguments: { urls: ['a.md', 'b.md', 'c.md'] } }] }),
      answer({
        toolCalls: [{ name: 'save_result', arguments: { task_id: 'answer-partial', result: 'A 120, B 80, C 40' } }],
      }),
      answer({ toolCalls: [{ name: 'escalate', arguments: { reason: 'The plants shipped 240 units.' } }] }),
    );
    const run = await analyze(path.join(dir, 'read.db'));
    expect(run.stdout).toContain('Read 3 of 3 documents');
    expect(run.stderr).not.toContain('warning');
    expect(run.code, run.stderr).toBe(0);
  }, 60_000);
});
