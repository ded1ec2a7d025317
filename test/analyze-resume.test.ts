/**
 * `analyze --resume` on a hosted model (a scripted OpenAI-compatible server on 127.0.0.1): a run interrupted with a
 * real SIGINT after its first batch prints a command that resumes it on the same model and settings; run as
 * printed, the analyst still knows its reading plan and how far it got, and is offered again the batch it had loaded
 * but not read (loaded is not read: DESIGN invariant 18); a resumed answer that leaves that batch unread exits 6
 * with a warning, never 0; another model is refused unless asked for.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STEP_BLOCK_HEADER } from '../packages/pagewise/src/context.js';
import { cli } from './support/cli.js';
import { spawnCli } from './support/cli-child.js';
import { answer, hang, startFakeOpenAI, type FakeOpenAI } from './security/openai-server.js';

const BASE = 'PAGEWISE_OPENAI_COMPATIBLE_BASE_URL';
const KEY = 'PAGEWISE_OPENAI_COMPATIBLE_API_KEY';
const saved = { base: process.env[BASE], key: process.env[KEY] };
let dir: string;
let folder: string;
let server: FakeOpenAI;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-analyze-resume-'));
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
afterEach(() => {
  server.clear();
  for (const [name, value] of [
    [BASE, saved.base],
    [KEY, saved.key],
  ] as const)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
});

/** The system prompt of a recorded chat-completions request. */
function systemOf(body: Record<string, unknown>): string {
  const messages = body.messages as { role: string; content: unknown }[];
  return messages
    .filter((m) => m.role === 'system')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

/** The step block of a recorded chat-completions request: its last message, where the reading plan is. */
function stepBlockOf(body: Record<string, unknown>): string {
  const last = (body.messages as { role: string; content: unknown }[]).at(-1)!;
  const text =
    typeof last.content === 'string'
      ? last.content
      : (last.content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('');
  return last.role === 'user' && text.startsWith(STEP_BLOCK_HEADER) ? text : '';
}

/** The arguments of a printed `pagewise …` command line (plain arguments only, as the test folder has). */
function argsOf(command: string): string[] {
  return command.replace(/^(npx )?pagewise /, '').split(' ');
}

/** Runs an analysis on the scripted model until it waits on its fourth request (a.md loaded), then sends SIGINT. */
async function interruptedAfterFirstLoad(db: string): Promise<string> {
  server.enqueue(
    answer({ toolCalls: [{ name: 'choose_documents', arguments: { all: true } }] }),
    answer({ toolCalls: [{ name: 'transfer_to_agent', arguments: { agent_name: 'analyst' } }] }),
    answer({ toolCalls: [{ name: 'get_reports', arguments: { urls: ['a.md'] } }] }),
    hang,
  );
  const first = server.requests.length;
  const fourth = (async () => {
    while (server.requests.length < first + 4) await new Promise((resolve) => setTimeout(resolve, 50));
    return server.requests[first + 3]!;
  })();
  const run = spawnCli(
    [
      'analyze',
      folder,
      'How many units did the plants ship?',
      '--model',
      'openai-compatible:m',
      '--batch',
      '1',
      '--db',
      db,
    ],
    { [BASE]: server.baseURL, [KEY]: 'k', PAGEWISE_CACHE_DIR: path.join(dir, 'cache') },
  );
  try {
    const waiting = await fourth;
    // The plan changes per step: it is in the step block after the history, never in the system prompt.
    expect(stepBlockOf(waiting.body)).toContain('Reading plan: 3 documents; 1 loaded');
    expect(systemOf(waiting.body)).not.toContain('Reading plan');
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    expect(code).toBe(130);
  } finally {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
  }
  const printed = /Continue with: (.*)$/m.exec(run.stderr())?.[1];
  expect(printed, run.stderr()).toBeDefined();
  return printed!;
}

/** A step that saves a result and loads the next document, as the analyst's instruction asks. */
const saveAndLoad = (result: string, next: string) =>
  answer({
    toolCalls: [
      { name: 'save_result', arguments: { task_id: 'answer-partial', result } },
      { name: 'get_reports', arguments: { urls: [next] } },
    ],
  });

describe('analyze --resume on a hosted model', () => {
  it('resumes as printed: same model, the plan kept, the batch loaded before the interrupt offered again', async () => {
    const db = path.join(dir, 'resume.db');
    const printed = await interruptedAfterFirstLoad(db);
    expect(printed).toMatch(/--model openai-compatible:m\b/);
    expect(printed).toMatch(/--batch 1\b/);

    process.env[BASE] = server.baseURL;
    process.env[KEY] = 'k';
    const before = server.requests.length;
    server.enqueue(
      answer({ toolCalls: [{ name: 'get_reports', arguments: { urls: ['a.md'] } }] }),
      saveAndLoad('A 120', 'b.md'),
      saveAndLoad('A 120, B 80', 'c.md'),
      answer({ toolCalls: [{ name: 'escalate', arguments: { reason: 'The plants shipped 240 units.' } }] }),
    );
    const resumed = await cli(...argsOf(printed));
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.out).toContain('The plants shipped 240 units.');
    expect(resumed.out).toContain('Read 3 of 3 documents');
    const after = server.requests.slice(before);
    expect(after).toHaveLength(4);
    // a.md was loaded, never read: the resumed run offers it first, its body gone with the working set.
    expect(stepBlockOf(after[0]!.body)).toContain('Reading plan: 3 documents; 1 loaded; next unread: ["a.md"]');
    expect(stepBlockOf(after[1]!.body)).toContain('Plant A shipped 120 units.');
    expect(stepBlockOf(after[2]!.body)).toContain('next unread: ["c.md"]');
    expect(stepBlockOf(after[3]!.body)).toContain('Reading plan: 3 documents; 3 loaded');
    sessionOfFirstTest = /--resume (\S+)/.exec(printed)![1]!;
    dbOfFirstTest = db;
  }, 120_000);

  it('exits 6 with a warning when the resumed run answers without reading the batch loaded before the interrupt', async () => {
    const printed = await interruptedAfterFirstLoad(path.join(dir, 'partial.db'));
    process.env[BASE] = server.baseURL;
    process.env[KEY] = 'k';
    server.enqueue(
      answer({ toolCalls: [{ name: 'get_reports', arguments: { urls: ['b.md'] } }] }),
      saveAndLoad('B 80', 'c.md'),
      answer({ toolCalls: [{ name: 'escalate', arguments: { reason: 'The plants shipped 120 units.' } }] }),
    );
    const resumed = await cli(...argsOf(printed));
    expect(resumed.out).toContain('The plants shipped 120 units.');
    expect(resumed.out).toContain('Read 2 of 3 documents');
    expect(resumed.err).toMatch(
      /warning: the answer is not grounded in every document chosen: 1 of 3 documents was not read \(a\.md\)/,
    );
    expect(resumed.code).toBe(6);
  }, 120_000);

  it('refuses to resume on another model unless --switch-model asks for it, before reading the folder', async () => {
    expect(sessionOfFirstTest).not.toBe('');
    const refused = await cli(
      'analyze',
      folder,
      '--resume',
      sessionOfFirstTest,
      '--model',
      'offline',
      '--db',
      dbOfFirstTest,
    );
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('was started with --model openai-compatible:m');
    expect(refused.err).toContain('--switch-model');
    expect(refused.err).not.toMatch(/^Read \d+ files/m);
    // Asked for, the model check passes; this session's invocation ended, which is the next thing said.
    const switched = await cli(
      'analyze',
      folder,
      '--resume',
      sessionOfFirstTest,
      '--model',
      'offline',
      '--switch-model',
      '--db',
      dbOfFirstTest,
    );
    expect(switched.err).not.toContain('was started with');
    expect(switched.err).toMatch(/Unfinished invocation in session/);
  });
});

let sessionOfFirstTest = '';
let dbOfFirstTest = '';
