/**
 * Ctrl-C as a user sends it: a real SIGINT to a `pagewise` child process while offline `analyze` and `bench` are
 * busy. The offline model and SQLite never wait on I/O, so unless the loop yields between steps the signal handler
 * runs only after the whole run (which then exits 0 as if nothing happened).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCorpus } from '../packages/lab/src/scenarios/report-analysis/index.js';
import { spawnCli } from './support/cli-child.js';

let dir: string;
let corpus: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-interrupt-'));
  corpus = path.join(dir, 'reports');
  // Large enough that one read a report takes the run far past the moment the signal is sent.
  await writeCorpus(corpus, 400, 3);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Ctrl-C during offline runs', () => {
  it('stops `analyze` between steps, exits 130 and prints the command that resumes it', async () => {
    const db = path.join(dir, 'analyze.db');
    const run = spawnCli(
      ['analyze', corpus, 'How many reports have a churn rate above 5%?', '--batch', '1', '--db', db, '--no-cache'],
      { PAGEWISE_CACHE_DIR: path.join(dir, 'cache') },
    );
    try {
      await run.waitFor(/^Read \d+ files/m);
      // Well into the run: the planner has chosen the documents and the analyst is reading them one by one.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      run.child.kill('SIGINT');
      const { code } = await run.exited;
      expect(run.stdout()).not.toMatch(/Read \d+ of \d+ documents/);
      expect(code).toBe(130);
      expect(run.stderr()).toMatch(/Interrupted\. Continue with: .*pagewise analyze .* --resume [0-9a-f-]{36}/);
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  }, 120_000);

  it('stops offline `bench` between steps and exits 130', async () => {
    const out = path.join(dir, 'bench-out');
    const run = spawnCli(['bench', 'report-analysis', '--n', '400', '--tasks', '3', '--out', out]);
    try {
      await run.waitFor(/bench report-analysis: 0\/\d+ episodes/);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      run.child.kill('SIGINT');
      const { code } = await run.exited;
      expect(code).toBe(130);
      expect(run.stderr()).toMatch(new RegExp(`continue with: (npx )?pagewise bench --resume ${out}$`, 'm'));
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  }, 120_000);
});
