/**
 * API keys never appear in ledgers, stored sessions, error messages or logs. Runs use a sentinel key
 * against a local OpenAI-compatible server that checks the Authorization header carries it (so the key
 * was really used), then every output is searched for it: stdout/stderr and console captures, results
 * and ledger entries as JSON, the SQLite files (main, -wal, -shm), thrown errors with their cause chains
 * and every property, and the output of the CLI, in process and as a child process.
 *
 * A hostile or careless server may echo the key back in an error body. The key was sent to that server,
 * so it already has it; what pagewise must not do is carry it further, into logs and stored data. So
 * provider errors are redacted where they leave the model call (withRetry), and the CLI redacts what it
 * prints.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  Ledger,
  Runner,
  redactError,
  redactSecrets,
  secretsFromEnv,
  tool,
} from '../../packages/pagewise/src/index.js';
import { MODEL_ENV } from '../../packages/pagewise/src/models/resolve.js';
import { SqliteSessionStore } from '../../packages/sqlite/src/index.js';
import { getScenario, runBench, writeBenchOutput, registerStandardBench } from '../../packages/lab/src/bench/index.js';
import { main } from '../../packages/cli/src/main.js';
import { answer, error, hang, startFakeOpenAI, type FakeOpenAI } from './openai-server.js';

registerStandardBench();

const SENTINEL = `sk-sentinel-${randomBytes(16).toString('hex')}`;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

let server: FakeOpenAI;
/** Temporary folders of this file, removed at the end. */
const tempDirs: string[] = [];
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
};
/** Places searched, for the report line. */
let outputsSearched = 0;

// ---------------------------------------------------------------- searching

/** Every string reachable from a value: own properties (enumerable or not), stacks, causes, maps. */
function strings(value: unknown, out: string[] = [], seen = new WeakSet<object>()): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    out.push(String(value));
  else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('latin1'));
  else if (typeof value === 'object' && value !== null && !seen.has(value)) {
    seen.add(value);
    if (value instanceof Map) for (const [key, item] of value) strings([key, item], out, seen);
    if (value instanceof Error) {
      out.push(String(value.stack), value.message);
      strings(value.cause, out, seen);
    }
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key === 'string') out.push(key);
      try {
        strings((value as Record<PropertyKey, unknown>)[key], out, seen);
      } catch {
        // A throwing getter hides nothing we could print either.
      }
    }
  }
  return out;
}

/** Asserts the sentinel appears nowhere in `value`, naming where it was found. */
function expectNoKey(where: string, value: unknown): void {
  const hits = strings(value).filter((s) => s.includes(SENTINEL));
  expect(
    hits.map((h) => `${where}: …${h.slice(Math.max(0, h.indexOf(SENTINEL) - 80), h.indexOf(SENTINEL) + 80)}…`),
  ).toEqual([]);
  outputsSearched += 1;
}

/** Asserts the sentinel appears in no file of a SQLite database (main, -wal, -shm, -journal). */
function expectNoKeyInDatabase(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    if (!existsSync(file + suffix)) continue;
    const bytes = readFileSync(file + suffix);
    expect(bytes.includes(SENTINEL), `${path.basename(file + suffix)} holds the key`).toBe(false);
    expect(
      bytes.includes(Buffer.from(SENTINEL, 'utf16le')),
      `${path.basename(file + suffix)} holds the key (UTF-16)`,
    ).toBe(false);
    outputsSearched += 1;
  }
}

// ---------------------------------------------------------------- capturing logs

let captured: string[] = [];
const originalWrite = {
  out: process.stdout.write.bind(process.stdout),
  err: process.stderr.write.bind(process.stderr),
};

beforeAll(async () => {
  server = await startFakeOpenAI({ requireKey: SENTINEL });
});
afterAll(async () => {
  console.log(
    `secrets: ${server.requests.length} requests to the local server; ${outputsSearched} outputs searched without finding the key`,
  );
  await server.close();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  captured = [];
  vi.stubEnv(MODEL_ENV.compatibleBaseUrl, server.baseURL);
  vi.stubEnv(MODEL_ENV.compatibleKey, SENTINEL);
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void captured.push(strings(args).join(' ')));
  }
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => (
    captured.push(String(chunk)),
    originalWrite.out(chunk as string, ...(rest as []))
  )) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => (
    captured.push(String(chunk)),
    originalWrite.err(chunk as string, ...(rest as []))
  )) as typeof process.stderr.write;
});
afterEach(() => {
  process.stdout.write = originalWrite.out;
  process.stderr.write = originalWrite.err;
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  expectNoKey('console and process output', captured);
});

/** Requests of the server from index `from` on all carried the key: the key was really used. */
function expectKeyUsed(from: number): void {
  const reqs = server.requests.slice(from);
  expect(reqs.length).toBeGreaterThan(0);
  for (const request of reqs) expect(request.headers.authorization).toBe(`Bearer ${SENTINEL}`);
}

const record = tool({
  name: 'record',
  description: 'Records a finding.',
  inputSchema: z.object({ key: z.string(), value: z.number() }),
  execute: ({ key, value }, ctx) => {
    ctx.state.set(`finding:${key}`, value);
    return `recorded ${key}`;
  },
});

function dbFile(): string {
  return path.join(tempDir('pagewise-secrets-'), 'pagewise.db');
}

// ---------------------------------------------------------------- the scenarios

describe('the API key stays out of every output', () => {
  it('a successful run with the SQLite store: result, ledgers, session and database files are clean', async () => {
    const from = server.requests.length;
    server.enqueue(
      answer({ toolCalls: [{ name: 'record', arguments: { key: 'revenue', value: 42 } }] }),
      answer({ text: 'Recorded revenue 42.' }),
    );
    const file = dbFile();
    const store = new SqliteSessionStore({ path: file });
    const shared = new Ledger();
    const runner = new Runner({
      agent: new Agent({ name: 'worker', tools: [record] }),
      model: 'openai-compatible:test-model',
      store,
      ledger: shared,
    });
    const result = await runner.run({ userId: 'u1', message: 'Record the revenue.' });
    expect(result.text).toBe('Recorded revenue 42.');
    expectKeyUsed(from);

    expectNoKey('run result', result);
    expectNoKey('ledger entries (JSON)', JSON.stringify(result.ledger));
    expectNoKey('shared ledger', JSON.stringify(shared.entries));
    expectNoKey('stored session', await store.getSession(result.session));
    // While open, recent writes sit in the -wal file; after close they are checkpointed into the main file.
    expectNoKeyInDatabase(file);
    await store.close();
    expectNoKeyInDatabase(file);
  });

  it('a hostile server echoing the key in a 401 body: the thrown error and everything stored are clean', async () => {
    const from = server.requests.length;
    server.enqueue(
      error(401, `Incorrect API key provided: ${SENTINEL}. You can find your key at https://example.invalid/keys.`),
    );
    const file = dbFile();
    const store = new SqliteSessionStore({ path: file });
    const runner = new Runner({
      agent: new Agent({ name: 'worker' }),
      model: 'openai-compatible:test-model',
      store,
      retry: { baseDelayMs: 1 },
    });
    const thrown = await runner.run({ userId: 'u1', sessionId: 's-401', message: 'Hello?' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(thrown).toBeInstanceOf(Error);
    expectKeyUsed(from);
    // The server really did echo it: the redaction is what keeps it out.
    expect((thrown as Error).message).toContain('Incorrect API key provided');
    expectNoKey('thrown error (every property, stack and cause chain)', thrown);
    expectNoKey('thrown error as the CLI would print it', `${(thrown as Error).stack}\n${String(thrown)}`);
    expectNoKey(
      'stored session after the failure',
      await store.getSession({ appName: 'pagewise', userId: 'u1', sessionId: 's-401' }),
    );
    await store.close();
    expectNoKeyInDatabase(file);
  });

  it('a 500 echoing the key, retried until it fails, and a timeout: errors are clean', async () => {
    const from = server.requests.length;
    const body = `Internal error while handling key ${SENTINEL}`;
    server.enqueue(error(500, body), error(500, body), error(500, body, { 'x-echo-key': SENTINEL }));
    const runner = new Runner({
      agent: new Agent({ name: 'worker' }),
      model: 'openai-compatible:test-model',
      retry: { baseDelayMs: 1, maxRetries: 2 },
    });
    const thrown = await runner.run({ userId: 'u1', message: 'Hello?' }).catch((e: unknown) => e);
    expect(server.requests.length - from).toBe(3);
    expectKeyUsed(from);
    expectNoKey('error after exhausted retries', thrown);

    server.enqueue(hang);
    const timeout = await new Runner({
      agent: new Agent({ name: 'worker' }),
      model: 'openai-compatible:test-model',
      retry: { timeoutMs: 200, maxRetries: 0 },
    })
      .run({ userId: 'u1', message: 'Hello?' })
      .catch((e: unknown) => e);
    expect((timeout as { code?: string }).code).toBe('model-timeout');
    expectNoKey('timeout error', timeout);
  });

  it('saved benchmark runs: a failing episode records the provider error, without the key', async () => {
    const from = server.requests.length;
    const echo = error(401, `Incorrect API key provided: ${SENTINEL}`);
    server.enqueue(echo, echo, echo, echo);
    const report = await runBench({
      scenario: getScenario('report-analysis'),
      strategies: ['none', 'paging'],
      n: [3],
      tasks: 1,
      seed: 1,
      model: 'openai-compatible:test-model',
    });
    server.clear();
    expectKeyUsed(from);
    const dir = tempDir('pagewise-secrets-bench-');
    await writeBenchOutput(dir, report);
    const saved = readdirSync(dir).map((f) => readFileSync(path.join(dir, f), 'utf8'));
    // The episodes did fail with the provider's message: the runs record it, minus the key.
    expect(saved.join('\n')).toContain('Incorrect API key provided');
    expectNoKey('saved benchmark output files', saved);
    expectNoKey('benchmark report object', report);
  });

  it('the CLI in process: analyze over a generated corpus with the key, then a failing analyze', async () => {
    const dir = tempDir('pagewise-secrets-corpus-');
    const out: string[] = [];
    const err: string[] = [];
    expect(
      await main(
        ['corpus', 'generate', '--n', '3', '--out', dir, '--seed', '5'],
        (s) => out.push(s),
        (s) => err.push(s),
      ),
    ).toBe(0);

    const from = server.requests.length;
    server.enqueue(
      answer({ toolCalls: [{ name: 'choose_documents', arguments: { all: true } }] }),
      answer({ toolCalls: [{ name: 'transfer_to_agent', arguments: { agent_name: 'analyst' } }] }),
      // The reports are read and a result saved from them: an answer from nothing read exits 6, not 0.
      answer({
        toolCalls: [
          { name: 'get_reports', arguments: { urls: ['report-0001.md', 'report-0002.md', 'report-0003.md'] } },
        ],
      }),
      answer({ toolCalls: [{ name: 'save_result', arguments: { task_id: 'answer-partial', result: 'revenue' } }] }),
      answer({ toolCalls: [{ name: 'escalate', arguments: { reason: 'The total revenue is in the reports.' } }] }),
    );
    // Every run names its database: tests never write the default store in the working folder.
    const db = path.join(tempDir('pagewise-secrets-db-'), 'pw.db');
    const code = await main(
      ['analyze', dir, 'What is the total revenue?', '--model', 'openai-compatible:test-model', '--db', db],
      (s) => out.push(s),
      (s) => err.push(s),
    );
    expect(code).toBe(0);
    expect(out.join('\n')).toContain('The total revenue is in the reports.');
    expectKeyUsed(from);

    server.enqueue(error(401, `Incorrect API key provided: ${SENTINEL}`));
    const failed = await main(
      ['analyze', dir, 'What is the total revenue?', '--model', 'openai-compatible:test-model', '--db', db],
      (s) => out.push(s),
      (s) => err.push(s),
    ).catch((e: unknown) => e);
    expectNoKey('CLI stdout', out);
    expectNoKey('CLI stderr', err);
    expectNoKey('CLI failure (thrown or exit code)', failed);
  });

  it('the CLI as a child process: a failing analyze prints no key on stdout or stderr', async () => {
    const dir = tempDir('pagewise-secrets-corpus-');
    expect(
      await main(
        ['corpus', 'generate', '--n', '2', '--out', dir],
        () => {},
        () => {},
      ),
    ).toBe(0);
    const from = server.requests.length;
    server.enqueue(error(401, `Incorrect API key provided: ${SENTINEL}`));
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(repoRoot, 'packages/cli/src/main.ts'),
        'analyze',
        dir,
        'What is the total revenue?',
        '--model',
        'openai-compatible:test-model',
        '--db',
        path.join(tempDir('pagewise-secrets-db-'), 'pw.db'),
      ],
      {
        cwd: repoRoot,
        env: { ...process.env, [MODEL_ENV.compatibleBaseUrl]: server.baseURL, [MODEL_ENV.compatibleKey]: SENTINEL },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => stderr.push(c));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expectKeyUsed(from);
    const text = { stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
    expect(code).not.toBe(0);
    // The failure is reported (the provider's message, minus the key), not swallowed.
    expect(text.stderr).toContain('Incorrect API key provided');
    expectNoKey('CLI child stdout', text.stdout);
    expectNoKey('CLI child stderr', text.stderr);
  });
});

describe('redaction helpers', () => {
  it('finds secrets by variable name, and leaves short values and other variables alone', () => {
    const secrets = secretsFromEnv({
      OPENAI_API_KEY: 'sk-0123456789',
      GITHUB_TOKEN: 'ghp_abcdefgh',
      DB_PASSWORD: 'hunter22!',
      SHORT_API_KEY: 'abc',
      HOME: '/home/someone-long',
    });
    expect(secrets.map((s) => s.name).sort()).toEqual(['DB_PASSWORD', 'GITHUB_TOKEN', 'OPENAI_API_KEY']);
    expect(redactSecrets('key sk-0123456789 and sk-0123456789, home /home/someone-long', secrets)).toBe(
      'key [redacted OPENAI_API_KEY] and [redacted OPENAI_API_KEY], home /home/someone-long',
    );
  });

  it('redacts an error in place: message, stack, nested fields, the cause chain, read-only fields', () => {
    const secrets = [{ name: 'X_API_KEY', value: SENTINEL }];
    const root = new Error(`root ${SENTINEL}`);
    const frozen = Object.freeze({ body: `echo ${SENTINEL}` });
    const error = Object.assign(new Error(`outer ${SENTINEL}`, { cause: root }), {
      responseBody: `{"key":"${SENTINEL}"}`,
      data: { nested: [SENTINEL] },
      frozen,
    });
    Object.defineProperty(error, 'fixed', { value: SENTINEL, writable: false, configurable: true, enumerable: false });
    const same = redactError(error, secrets);
    expect(same).toBe(error);
    expect(error.message).toBe('outer [redacted X_API_KEY]');
    expect(error.stack).toContain('outer [redacted X_API_KEY]');
    expect(error.data.nested[0]).toBe('[redacted X_API_KEY]');
    // A frozen object's fields cannot change: the object is left as it is (documented best effort).
    expect(error.frozen.body).toContain(SENTINEL);
    const { frozen: _frozen, ...rest } = error;
    expectNoKey('redacted error (frozen field aside)', [
      error.message,
      error.stack,
      rest,
      (error as unknown as { fixed: string }).fixed,
      root.message,
      root.stack,
    ]);
  });
});
