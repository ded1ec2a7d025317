#!/usr/bin/env node
// `npm run lint`: ESLint and Prettier over the files git tracks, not over everything in the folder. A scratch
// file a user keeps in the checkout (untracked) is theirs, not the project's, and must not fail `npm test`.
// Outside a git checkout (an unpacked archive) there is nothing to tell tracked from scratch: the whole folder
// is linted, as `eslint .` and `prettier --check .` would. test/architecture/lint-tracked.test.ts checks both.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = process.cwd();
const require = createRequire(path.join(root, 'package.json'));
const LINTED_BY_ESLINT = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/** The tracked files that exist in the working tree, or undefined when `root` is not in a git checkout. */
function trackedFiles() {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (listed.status !== 0 || listed.error) return undefined;
  // A tracked file deleted in the working tree is not linted: there is nothing to read.
  return listed.stdout.split('\0').filter((file) => file !== '' && existsSync(path.join(root, file)));
}

/** The command-line script of an installed package, as its package.json names it. */
function binOf(name) {
  const manifestPath = require.resolve(`${name}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifestPath, 'utf8'));
  return path.join(path.dirname(manifestPath), typeof bin === 'string' ? bin : bin[name]);
}

function run(label, name, args) {
  const result = spawnSync(process.execPath, [binOf(name), ...args], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`lint: ${label} failed (exit ${result.status ?? result.signal}).\n`);
    process.exit(result.status ?? 1);
  }
}

const files = trackedFiles();
if (files === undefined) {
  process.stderr.write('lint: not a git checkout; linting every file in the folder.\n');
  run('ESLint', 'eslint', ['.']);
  run('Prettier', 'prettier', ['--check', '.']);
} else {
  const scripts = files.filter((file) => LINTED_BY_ESLINT.test(file));
  if (scripts.length > 0) run('ESLint', 'eslint', ['--no-warn-ignored', '--', ...scripts]);
  // Prettier skips what .prettierignore lists and, with --ignore-unknown, files it has no parser for.
  run('Prettier', 'prettier', ['--check', '--ignore-unknown', '--', ...files]);
}
