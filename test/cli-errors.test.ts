/**
 * Errors in the command line's terms: a provider that cannot be reached is told apart from one that refused the
 * key; library settings are named by their flags; bad specs, URLs and arguments get a clear message and exit code,
 * never a stack trace (issue 18 findings 8 and 9a among them).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { EXIT } from '../packages/cli/src/errors.js';
import { error as httpError, startFakeOpenAI, type FakeOpenAI } from './security/openai-server.js';

const BASE = 'PAGEWISE_OPENAI_COMPATIBLE_BASE_URL';
const KEY = 'PAGEWISE_OPENAI_COMPATIBLE_API_KEY';
const saved = { base: process.env[BASE], key: process.env[KEY] };
let dir: string;
let folder: string;
let server: FakeOpenAI;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-errors-'));
  folder = path.join(dir, 'docs');
  await import('node:fs/promises').then((fs) => fs.mkdir(folder));
  writeFileSync(path.join(folder, 'a.md'), '# A\n\nRevenue rose to 12 million.');
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const [name, value] of [
    [BASE, saved.base],
    [KEY, saved.key],
  ] as const)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
});

/** A local port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const analyze = (...more: string[]) =>
  cli('analyze', folder, 'revenue?', '--model', 'openai-compatible:m', '--db', path.join(dir, 'pw.db'), ...more);

describe('network failures and key refusals are told apart', () => {
  it('names a refused connection as a network failure with the host, not as a key problem', async () => {
    const port = await closedPort();
    process.env[BASE] = `http://127.0.0.1:${port}/v1`;
    const run = await analyze();
    expect(run.code).toBe(EXIT.network);
    expect(run.err).toContain(`cannot reach the model provider at 127.0.0.1:${port}`);
    expect(run.err).toMatch(/ECONNREFUSED/);
    expect(run.err).not.toMatch(/API key/);
  }, 60_000);

  it('a provider that keeps failing (HTTP 500, 429) prints the session id and the command that resumes it', async () => {
    process.env[BASE] = server.baseURL;
    server.enqueue(
      ...Array.from({ length: 4 }, () => httpError(500, 'The server had an error.', { 'retry-after-ms': '1' })),
    );
    const run = await analyze();
    expect(run.code).toBe(EXIT.provider);
    expect(run.err).toMatch(/answered with an error \(HTTP 500\)/);
    const resume =
      /The session (\S+) is saved\. Continue with: (?:npx )?pagewise analyze .* --resume \1 --model openai-compatible:m .*--db /.exec(
        run.err,
      );
    expect(resume).not.toBeNull();

    server.enqueue(
      ...Array.from({ length: 4 }, () => httpError(429, 'Rate limit reached.', { 'retry-after-ms': '1' })),
    );
    const limited = await analyze();
    expect(limited.code).toBe(EXIT.provider);
    expect(limited.err).toMatch(/HTTP 429/);
    expect(limited.err).toMatch(/is saved\. Continue with: (?:npx )?pagewise analyze .* --resume /);
  }, 60_000);

  it('names an HTTP 401 as a key problem', async () => {
    process.env[BASE] = server.baseURL;
    server.enqueue(httpError(401, 'Incorrect API key provided'));
    const run = await analyze();
    expect(run.code).toBe(EXIT.configuration);
    expect(run.err).toMatch(/refused the API key \(HTTP 401\)/);
    expect(run.err).not.toMatch(/cannot reach/);
  });

  it('finding 8 (issue 18): a base URL of "garbage" is a clear configuration error, no stack trace', async () => {
    process.env[BASE] = 'garbage';
    const run = await analyze();
    expect(run.code).toBe(EXIT.configuration);
    expect(run.err).toMatch(/PAGEWISE_OPENAI_COMPATIBLE_BASE_URL is not an http\(s\) URL/);
    expect(run.err).not.toMatch(/\n\s+at /);
  });

  it('finding 9a (issue 18): a key in the userinfo of a base URL is never printed', async () => {
    const port = await closedPort();
    process.env[BASE] = `http://user:sk-userinfo-0123456789@127.0.0.1:${port}/v1`;
    const run = await analyze();
    expect(run.code).toBe(EXIT.configuration);
    expect(run.err).toMatch(
      /carries credentials \(user:key@host\); remove them and put the key in PAGEWISE_OPENAI_COMPATIBLE_API_KEY/,
    );
    expect(run.out + run.err).not.toContain('sk-userinfo-0123456789');
    // Wherever else a URL with userinfo is printed (a stack, a server error), the CLI's output redacts it.
    const { redactSecrets } = await import('../packages/pagewise/src/errors.js');
    expect(redactSecrets(`GET http://user:sk-userinfo-0123456789@127.0.0.1:${port}/v1 failed`, [])).toBe(
      `GET http://[redacted]@127.0.0.1:${port}/v1 failed`,
    );
  }, 60_000);
});

describe('CLI terms', () => {
  it('names the offline model spec mistake plainly', async () => {
    const run = await cli('analyze', folder, 'revenue?', '--model', 'offline:x', '--db', path.join(dir, 'pw.db'));
    expect(run.code).toBe(EXIT.configuration);
    expect(run.err).toMatch(/The offline model has no variants: use "offline" alone/);
    expect(run.err).not.toMatch(/Unknown model provider/);
  });

  it('names --window, not the library setting, when the context window is exceeded', async () => {
    const run = await cli(
      'analyze',
      folder,
      'revenue?',
      '--strategy',
      'none',
      '--window',
      '50',
      '--db',
      path.join(dir, 'pw.db'),
    );
    expect(run.code).toBe(EXIT.contextWindow);
    expect(run.out).toMatch(/--window/);
    expect(run.out).not.toMatch(/`contextWindow`/);
  });

  it('joins an unquoted question with a warning, and reads one from --question-file', async () => {
    const joined = await cli('analyze', folder, 'what', 'was', 'revenue', '--db', path.join(dir, 'pw.db'));
    expect(joined.code).toBe(0);
    expect(joined.err).toMatch(/joined 3 arguments into one question; quote the question/);
    expect(joined.out).toMatch(/Search terms: revenue/);
    const file = path.join(dir, 'q.txt');
    writeFileSync(file, 'What did revenue rise to?\n');
    const fromFile = await cli('analyze', folder, '--question-file', file, '--db', path.join(dir, 'pw.db'));
    expect(fromFile.out).toMatch(/Revenue rose to 12 million/);
  });

  it('does not create folders above a missing parent for --db or --out', async () => {
    const db = path.join(dir, 'typo-folder', 'deeper', 'pw.db');
    const run = await cli('analyze', folder, 'revenue?', '--db', db);
    expect(run.code).toBe(EXIT.configuration);
    expect(run.err).toMatch(/--db .*does not exist/);
    expect(existsSync(path.join(dir, 'typo-folder'))).toBe(false);
    const out = await cli('corpus', 'generate', '--n', '2', '--out', path.join(dir, 'nope', 'corpus'));
    expect(out.code).toBe(EXIT.configuration);
    expect(existsSync(path.join(dir, 'nope'))).toBe(false);
  });

  it('suggests the closest command and subcommand for a typo', async () => {
    const command = await cli('analyse', folder, 'x');
    expect(command.code).toBe(EXIT.usage);
    expect(command.err).toMatch(/Unknown command "analyse"\. Did you mean "analyze"\?/);
    const sub = await cli('sessions', 'lst', '--db', path.join(dir, 'pw.db'));
    expect(sub.code).toBe(EXIT.usage);
    expect(sub.err + sub.out).toMatch(/Unknown subcommand "lst"\. Did you mean "list"\?/);
  });
});
