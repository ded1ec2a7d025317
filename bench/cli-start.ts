/**
 * Cold start of the `pagewise` command: `--version` and `--help` as a user runs them (a fresh Node process on the
 * built CLI), against loading every command module up front as the CLI did before commands were loaded lazily.
 * Medians of several runs, measured side by side; needs `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { quantile } from './stats.js';

const median = (values: readonly number[]): number => quantile(values, 0.5);

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'packages', 'cli');
const BIN = path.join(CLI, 'bin', 'pagewise.js');
const COMMAND_MODULES = ['analyze', 'bench', 'db', 'demo', 'distill', 'optimize', 'sessions', 'worker'];

function timeRun(args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
  return performance.now() - started;
}

export async function main(repeats = 5): Promise<void> {
  if (!existsSync(path.join(CLI, 'dist', 'main.js'))) {
    console.log('\n## CLI cold start: skipped, run `npm run build` first');
    return;
  }
  // Every command module imported before printing the version: what an eager CLI pays on each start.
  const eager = `${COMMAND_MODULES.map((m) => `await import(${JSON.stringify(path.join(CLI, 'dist', `${m}.js`))});`).join(' ')} console.log('x');`;
  const rows: [string, number[]][] = [
    ['pagewise --version', []],
    ['pagewise --help', []],
    ['all command modules loaded up front (before)', []],
  ];
  for (let round = 0; round < repeats; round += 1) {
    // Interleaved, so load on the machine affects all three alike.
    rows[0]![1].push(timeRun([BIN, '--version']));
    rows[1]![1].push(timeRun([BIN, '--help']));
    rows[2]![1].push(timeRun(['--input-type=module', '-e', eager]));
  }
  const before = median(rows[2]![1]);
  console.log(`\n## CLI cold start (median of ${repeats} fresh processes)\n`);
  console.log('| start | median ms | vs before |');
  console.log('|---|---:|---:|');
  for (const [label, times] of rows) {
    const medianMs = median(times);
    console.log(`| ${label} | ${medianMs.toFixed(0)} | ${(medianMs / before).toFixed(2)}x |`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
