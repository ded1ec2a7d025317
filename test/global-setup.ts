/**
 * Guards the user's own data: `npm test` must write only under temporary folders, never to the default store that
 * `analyze` and `sessions` use (.pagewise/pagewise.db in the working folder), to ~/.pagewise, nor to the user's
 * document cache. The teardown fails
 * the run when any of them appeared or changed while the tests ran.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// Only the core's own module, by relative path: the global setup runs before the source export condition
// applies, so a package import here would need the packages built.
import { userCacheDir } from '../packages/pagewise/src/util/data-dir.js';

/**
 * The document cache `analyze` keeps by default, as `defaultDocumentCacheDir` of @pagewise/documents says
 * (`test/global-setup-paths.test.ts` holds the two equal).
 */
export function guardedDocumentCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const base = env.PAGEWISE_CACHE_DIR ? path.resolve(env.PAGEWISE_CACHE_DIR) : path.join(userCacheDir(env), 'pagewise');
  return path.join(base, 'documents');
}

const GUARDED = [
  path.join(process.cwd(), '.pagewise'),
  path.join(process.cwd(), '.pagewise', 'pagewise.db'),
  path.join(os.homedir(), '.pagewise'),
  // The document cache `analyze` keeps by default (computed before the tests' own folder is set below).
  guardedDocumentCacheDir(),
];

function snapshot(): string[] {
  return GUARDED.map((file) => {
    if (!existsSync(file)) return `${file}: absent`;
    const info = statSync(file);
    return `${file}: ${info.size} bytes, modified ${info.mtimeMs}`;
  });
}

export default function setup(): () => void {
  const before = snapshot();
  // Commands that cache by default (analyze's document cache) cache into a temporary folder; the test processes
  // inherit it. A test that checks the cache itself passes its own folder.
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-test-cache-'));
  process.env.PAGEWISE_CACHE_DIR = cacheDir;
  return () => {
    rmSync(cacheDir, { recursive: true, force: true });
    const after = snapshot();
    const changed = after.filter((line, i) => line !== before[i]);
    if (changed.length === 0) return;
    // A throw here is only logged by the test runner; the exit code is what CI reads.
    process.exitCode = 1;
    throw new Error(
      `The tests wrote to the user's default store; pass --db or a temporary folder:\n${changed.join('\n')}`,
    );
  };
}
