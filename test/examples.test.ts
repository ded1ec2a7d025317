/**
 * Examples run as a user runs them (`npx tsx examples/<name>.ts`, here as a child process with no terminal) and end
 * on their own: an example that waits forever hangs whatever script or CI job runs it (issue 40, item 7, for
 * `examples/inspect.ts`).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const run = promisify(execFile);

describe('examples', () => {
  it('examples/inspect.ts serves, answers a view, and stops by itself when not run from a terminal', async () => {
    const { stdout } = await run(process.execPath, ['--import', TSX, path.join(ROOT, 'examples/inspect.ts')], {
      cwd: ROOT,
      // A hang fails the test instead of holding the suite.
      timeout: 90_000,
      killSignal: 'SIGKILL',
    });
    expect(stdout).toMatch(/^\d+ model calls, peak \d+ and cumulative \d+ prompt tokens$/m);
    expect(stdout).toMatch(/^Inspector: http:\/\/127\.0\.0\.1:\d+\//m);
    expect(stdout).toMatch(/^context view: HTTP 200, \d+ bytes$/m);
    expect(stdout).toContain('Stopped: not run from a terminal (--serve keeps it running).');
  }, 120_000);

  it('examples/openai-agents-paging.ts reads the pages from the step block and restores the raw inventory', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', TSX, path.join(ROOT, 'examples/openai-agents-paging.ts')],
      { cwd: ROOT, timeout: 90_000, killSignal: 'SIGKILL' },
    );
    expect(stdout).toContain('Saved "6 pages read"; inventory handle: tool://fetch_inventory/i1');
    expect(stdout).toContain('report bodies in it: 0');
    expect(stdout).toContain('Raw inventory behind the handle, byte for byte: true');
  }, 120_000);
});
