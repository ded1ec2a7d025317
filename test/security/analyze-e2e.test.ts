/**
 * End to end: `pagewise analyze` on a hosted model, against a local server scripted like a model, over Chat
 * Completions (`openai-compatible:`) and the Responses API (`openai:`), with an injected 500, a connection
 * reset and a stall. The scripted model answers from the page text it is actually shown, so a stale page
 * would show as a wrong answer: after a file changes, the next run must answer from the new text. A
 * provider that stays down ends the command with a clear message, never a raw error.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../support/cli-child.js';
import {
  answer,
  error,
  hang,
  json,
  completion,
  reset,
  responses,
  responsesBody,
  startFakeOpenAI,
  type FakeOpenAI,
  type FakeToolCall,
  type Handler,
} from './openai-server.js';

type Api = 'chat' | 'responses';

let dir: string;
let folder: string;
let server: FakeOpenAI;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-analyze-e2e-'));
  folder = path.join(dir, 'docs');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'a.md'), '# Plant A\n\nPlant A shipped 120 units in 2024.\n');
  writeFileSync(path.join(folder, 'b.md'), '# Plant B\n\nPlant B hired 14 people in 2024.\n');
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const turn = (api: Api, reply: { text?: string; toolCalls?: FakeToolCall[] }): Handler =>
  api === 'chat' ? answer(reply) : responses(reply);

/**
 * The analyst's last turn: it reads the figure from the request it is sent (the page text in its
 * instruction), so the answer is only right if the page it was shown is the file as it is now.
 */
const answerFromPage =
  (api: Api): Handler =>
  (req, res) => {
    const figure = /Plant A shipped (\d+) units/u.exec(JSON.stringify(req.body))?.[1] ?? 'unknown';
    const call = { toolCalls: [{ name: 'escalate', arguments: { reason: `Plant A shipped ${figure} units.` } }] };
    json(200, api === 'chat' ? completion(call) : responsesBody(call))(req, res);
  };

function script(api: Api): Handler[] {
  return [
    error(500, 'Internal error.'),
    turn(api, { toolCalls: [{ name: 'choose_documents', arguments: { all: true } }] }),
    reset,
    turn(api, { toolCalls: [{ name: 'transfer_to_agent', arguments: { agent_name: 'analyst' } }] }),
    hang,
    turn(api, { toolCalls: [{ name: 'get_reports', arguments: { urls: ['a.md', 'b.md'] } }] }),
    answerFromPage(api),
  ];
}

function env(api: Api): Record<string, string> {
  const cache = { PAGEWISE_CACHE_DIR: path.join(dir, 'cache') };
  return api === 'chat'
    ? { ...cache, PAGEWISE_OPENAI_COMPATIBLE_BASE_URL: server.baseURL, PAGEWISE_OPENAI_COMPATIBLE_API_KEY: 'k' }
    : { ...cache, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-local-test-key' };
}

async function analyze(api: Api, db: string): Promise<{ code: number | null; out: string; err: string }> {
  const model = api === 'chat' ? 'openai-compatible:m' : 'openai:gpt-4.1-mini';
  const run = spawnCli(
    ['analyze', folder, 'How many units did Plant A ship?', '--model', model, '--db', db, '--timeout', '2'],
    env(api),
  );
  const { code } = await run.exited;
  return { code, out: run.stdout(), err: run.stderr() };
}

describe('analyze against a scripted model with faults', () => {
  for (const api of ['chat', 'responses'] as const)
    it(`${api}: a 500, a reset and a stall are retried; the answer comes from the file as it is now`, async () => {
      const db = path.join(dir, `${api}.db`);
      writeFileSync(path.join(folder, 'a.md'), '# Plant A\n\nPlant A shipped 120 units in 2024.\n');
      server.clear();
      server.enqueue(...script(api));
      const before = server.requests.length;
      const first = await analyze(api, db);
      expect(first.code, first.err).toBe(0);
      // Every scripted answer was asked for: the 500, the reset and the stall were each met and retried.
      expect(server.requests.length - before).toBe(script(api).length);
      expect(first.out).toContain('Plant A shipped 120 units.');

      // The file changes; the same database and cache: the analyst must read the new text.
      writeFileSync(path.join(folder, 'a.md'), '# Plant A\n\nPlant A shipped 135 units in 2024.\n');
      server.clear();
      server.enqueue(...script(api));
      const second = await analyze(api, db);
      expect(second.code, second.err).toBe(0);
      expect(second.out).toContain('Plant A shipped 135 units.');
      expect(second.out).not.toContain('120');
      expect(second.err).not.toMatch(/AI_APICallError|DOMException|at .*\.js:\d+/u);
    }, 120_000);

  it('a provider that stays down ends with a clear message and exit code, never a raw error', async () => {
    server.clear();
    for (let attempt = 0; attempt < 8; attempt += 1) server.enqueue(error(503, 'Service unavailable.'));
    const run = await analyze('chat', path.join(dir, 'down.db'));
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBe(70);
    expect(run.err).toMatch(/pagewise analyze: .*(HTTP 503|unavailable)/u);
    expect(run.err).toMatch(/--resume \S+/u);
    expect(run.err).not.toMatch(/AI_APICallError|at .*\.js:\d+/u);
  }, 120_000);
});
