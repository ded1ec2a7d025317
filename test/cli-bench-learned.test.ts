/**
 * `pagewise bench --strategies acon-learned`: the strategy of the README's headline table is registered by the CLI
 * from the learned guidelines the package ships (packages/lab/guidelines/<scenario>/), not only by the benchmark scripts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultRetailDataDir } from '../packages/lab/src/scenarios/retail/data.js';
import { cli } from './support/cli.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-bench-learned-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const retailData = existsSync(path.join(defaultRetailDataDir(), 'users.json'));
if (!retailData) console.log('skipping the acon-learned run: tau-retail data absent (pagewise data fetch tau-retail)');

describe('acon-learned on the command line', () => {
  it('is listed for the scenario its shipped guidelines were learned for', async () => {
    const list = await cli('bench', '--list');
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/retail-tool-use .*\n\s+strategies: .*\bacon-learned\b/);
    expect(list.out).toMatch(/^ {2}acon-learned {8}/m);
  });

  it.skipIf(!retailData)(
    'runs a retail episode with the learned guidelines',
    async () => {
      const json = path.join(dir, 'results.json');
      const run = await cli('bench', 'retail-tool-use', '--strategies', 'acon-learned', '--tasks', '1', '--json', json);
      expect(run.code, run.err).toBe(0);
      const results = JSON.parse(readFileSync(json, 'utf8')) as { results: { strategy: string }[] };
      expect(results.results.map((r) => r.strategy)).toEqual(['acon-learned']);
    },
    120_000,
  );
});

describe('bench data discovery', () => {
  it.skipIf(!retailData)(
    'says which data folder a run used, past an empty one in the user data folder',
    async () => {
      const userData = path.join(dir, 'user-data');
      mkdirSync(path.join(userData, 'tau-retail'), { recursive: true });
      const saved = process.env.PAGEWISE_DATA_DIR;
      process.env.PAGEWISE_DATA_DIR = userData;
      try {
        const run = await cli('bench', 'retail-tool-use', '--strategies', 'none', '--tasks', '1');
        expect(run.code, run.err).toBe(0);
        expect(run.err).toContain(`data: tau-retail from ${defaultRetailDataDir()}`);
        expect(defaultRetailDataDir()).not.toBe(path.join(userData, 'tau-retail'));
      } finally {
        if (saved === undefined) delete process.env.PAGEWISE_DATA_DIR;
        else process.env.PAGEWISE_DATA_DIR = saved;
      }
    },
    120_000,
  );
});
