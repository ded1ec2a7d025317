/**
 * `npm run lint` (scripts/lint.mjs) checks the files git tracks: a user's untracked scratch file in the checkout
 * does not fail `npm test`, a tracked one that breaks a rule does, and outside a git checkout the whole folder is
 * linted. `npm test` lints before the long steps, so a lint failure comes first. Each case runs the script in a
 * throwaway git repository with the project's lint configuration.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LINT = path.join(ROOT, 'scripts/lint.mjs');
const CLEAN = "export const answer = 'yes';\n";
const BROKEN = 'var unused = eval("1")\n';

/** A folder with the project's lint configuration and a tracked clean file; a git checkout when `git` is true. */
function checkout(git: boolean): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-lint-'));
  mkdirSync(path.join(dir, 'scripts/eslint-rules'), { recursive: true });
  for (const file of ['eslint.config.js', '.prettierrc.json', '.prettierignore', 'scripts/eslint-rules/short-names.js'])
    copyFileSync(path.join(ROOT, file), path.join(dir, file));
  const manifest = { name: 'lint-fixture', private: true, type: 'module' };
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, 'tracked.ts'), CLEAN);
  if (git) {
    execFileSync('git', ['init', '-q'], { cwd: dir });
    execFileSync(
      'git',
      ['add', 'eslint.config.js', '.prettierrc.json', '.prettierignore', 'scripts', 'package.json', 'tracked.ts'],
      {
        cwd: dir,
      },
    );
  }
  return dir;
}

function lint(dir: string): { code: number | null; output: string } {
  const result = spawnSync(process.execPath, [LINT], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('npm run lint', () => {
  it('ignores an untracked scratch file, and fails on the same file once it is tracked', () => {
    const dir = checkout(true);
    try {
      writeFileSync(path.join(dir, 'scratch.ts'), BROKEN);
      // The scratch file breaks the rules: linting the folder (what `eslint .` did) fails on it.
      const wholeFolder = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/eslint/bin/eslint.js'), '.'], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(wholeFolder.status).not.toBe(0);
      expect(wholeFolder.stdout).toContain('scratch.ts');
      expect(lint(dir)).toMatchObject({ code: 0 });

      execFileSync('git', ['add', 'scratch.ts'], { cwd: dir });
      const tracked = lint(dir);
      expect(tracked.code).not.toBe(0);
      expect(tracked.output).toContain('scratch.ts');
      expect(tracked.output).toMatch(/no-eval/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks the formatting of tracked files only', () => {
    const dir = checkout(true);
    try {
      writeFileSync(path.join(dir, 'notes.json'), '{"a":1,\n\n"b":2}');
      expect(lint(dir)).toMatchObject({ code: 0 });
      execFileSync('git', ['add', 'notes.json'], { cwd: dir });
      const tracked = lint(dir);
      expect(tracked.code).not.toBe(0);
      expect(tracked.output).toContain('notes.json');
      expect(tracked.output).toMatch(/Prettier failed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lints the whole folder outside a git checkout, and says so', () => {
    const dir = checkout(false);
    try {
      expect(lint(dir)).toMatchObject({ code: 0 });
      writeFileSync(path.join(dir, 'scratch.ts'), BROKEN);
      const result = lint(dir);
      expect(result.code).not.toBe(0);
      expect(result.output).toMatch(/not a git checkout/);
      expect(result.output).toContain('scratch.ts');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs first in npm test, before the type-check and the test suite', () => {
    const scripts = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.lint).toContain('scripts/lint.mjs');
    const steps = scripts.test!.split('&&').map((step) => step.trim());
    expect(steps[0]).toBe('npm run lint');
    expect(steps.indexOf('npm run typecheck')).toBeGreaterThan(0);
    expect(steps.findIndex((step) => step.startsWith('vitest'))).toBeGreaterThan(0);
  });
});
