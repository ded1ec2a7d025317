/**
 * The dependency check (`npm run check:deps`, .dependency-cruiser.cjs) can fail: run on a small tree written to a
 * temporary folder with imports that run against the layers, it names each rule they break; on the same tree
 * without them it finds nothing.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');

const work: string[] = [];
afterAll(async () => {
  for (const dir of work) await rm(dir, { recursive: true, force: true });
});

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pagewise-layers-'));
  work.push(dir);
  const all = {
    'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
    ...files,
  };
  for (const [file, text] of Object.entries(all)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

/** The rules the check reports as broken in `dir`. */
async function brokenRules(dir: string): Promise<string[]> {
  const output = await run(DEPCRUISE, ['packages', '--config', CONFIG, '--output-type', 'json'], { cwd: dir })
    .then(({ stdout }) => stdout)
    .catch((error: { stdout?: string }) => error.stdout ?? '');
  const result = JSON.parse(output) as { summary: { violations: { rule: { name: string } }[] } };
  return [...new Set(result.summary.violations.map((v) => v.rule.name))].sort();
}

const CLEAN = {
  'packages/lab/src/bench.ts': 'export const bench = 1;\n',
  'packages/pagewise/src/agents/runner.ts': "import { count } from '../tokens/ledger.js';\nexport const run = count;\n",
  'packages/pagewise/src/tokens/ledger.ts': 'export const count = 1;\n',
  'packages/sqlite/src/store.ts': 'export const store = 1;\n',
};

describe('the dependency check', () => {
  it('finds nothing in a tree whose imports follow the layers', async () => {
    expect(await brokenRules(await tree(CLEAN))).toEqual([]);
  }, 120_000);

  it('names the rules an import against the layers breaks', async () => {
    const dir = await tree({
      ...CLEAN,
      // A store package reaching into the lab, by a relative path.
      'packages/sqlite/src/store.ts': "import { bench } from '../../lab/src/bench.js';\nexport const store = bench;\n",
      // The core's token tier reaching up into the agents tier.
      'packages/pagewise/src/tokens/ledger.ts':
        "import { run } from '../agents/runner.js';\nexport const count = 1;\nexport const again = run;\n",
    });
    expect(await brokenRules(dir)).toEqual([
      'core-tier-tokens-imports-a-later-tier',
      'no-circular',
      'package-sqlite-imports-above-it',
      'relative-import-into-another-package',
    ]);
  }, 120_000);
});
