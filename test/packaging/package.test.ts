/**
 * The package as a user receives it: compiled into a temporary folder, packed with `npm pack`, checked by
 * publint and Are the Types Wrong, then installed into a temporary consumer project that imports every entry
 * point from plain Node ESM and type-checks them from TypeScript (`nodenext` and `bundler` resolution).
 * It also checks that `import('pagewise')` loads none of the heavy packages the other entries own.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'node_modules/.bin');

interface PackageJson {
  exports: Record<string, string | { types: string; import: string }>;
}

let work: string;
let pkgDir: string;
let tarball: string;
let consumer: string;
let entries: string[];

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'pagewise-pack-'));
  pkgDir = path.join(work, 'pkg');
  await mkdir(pkgDir);
  for (const f of ['package.json', 'README.md', 'SECURITY.md', 'bin'])
    await cp(path.join(ROOT, f), path.join(pkgDir, f), { recursive: true });
  // Compile from the sources into the temporary package, so the test never depends on a stale dist/.
  await run(
    path.join(BIN, 'tsc'),
    ['-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', path.join(pkgDir, 'dist')],
    {
      cwd: ROOT,
    },
  );
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: pkgDir,
  });
  tarball = path.join(work, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
  const pkg = JSON.parse(await readFile(path.join(pkgDir, 'package.json'), 'utf8')) as PackageJson;
  entries = Object.keys(pkg.exports)
    .filter((k) => k !== './package.json')
    .map((k) => (k === '.' ? 'pagewise' : `pagewise/${k.slice(2)}`));

  // The consumer: the tarball unpacked as node_modules/pagewise, its dependencies linked from this
  // checkout's install (what `npm install <tarball>` would put there, without a registry).
  consumer = path.join(work, 'consumer');
  const modules = path.join(consumer, 'node_modules');
  await mkdir(path.join(modules, 'pagewise'), { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', path.join(modules, 'pagewise'), '--strip-components=1']);
  for (const name of await readdir(path.join(ROOT, 'node_modules'))) {
    if (name === '.bin' || name === 'pagewise') continue;
    await symlink(path.join(ROOT, 'node_modules', name), path.join(modules, name));
  }
  await writeFile(
    path.join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', type: 'module', private: true }),
  );
}, 240_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('passes publint with no errors or warnings', async () => {
    const { messages } = await publint({ pkgDir, level: 'warning', pack: false });
    expect(messages.map((m) => `${m.type} ${m.code} ${m.path.join('.')}`)).toEqual([]);
  });

  it('passes Are the Types Wrong for an ESM-only package', async () => {
    const result = await run(path.join(BIN, 'attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii'], {
      cwd: work,
    }).catch((error: { stdout?: string; stderr?: string }) => ({ failed: true, ...error }));
    expect('failed' in result ? `${result.stdout}\n${result.stderr}` : 'ok').toBe('ok');
  });

  it('imports every entry point from plain Node ESM', async () => {
    const script = entries
      .map(
        (e) =>
          `const m${entries.indexOf(e)} = await import('${e}'); if (Object.keys(m${entries.indexOf(e)}).length === 0) throw new Error('${e} exports nothing');`,
      )
      .join('\n');
    await writeFile(path.join(consumer, 'all.mjs'), `${script}\nconsole.log('imported ${entries.length}');\n`);
    const { stdout } = await run(process.execPath, ['all.mjs'], { cwd: consumer });
    expect(stdout.trim()).toBe(`imported ${entries.length}`);
  });

  for (const moduleResolution of ['nodenext', 'bundler'] as const) {
    it(`type-checks every entry point from TypeScript with moduleResolution ${moduleResolution}`, async () => {
      const dir = path.join(consumer, `ts-${moduleResolution}`);
      await mkdir(dir, { recursive: true });
      const lines = entries.map(
        (e, i) => `import * as m${i} from '${e}';\nexport const n${i}: number = Object.keys(m${i}).length;`,
      );
      lines.push(`import { Agent, Runner, InMemorySessionStore } from 'pagewise';`);
      lines.push(
        `export const runner: Runner = new Runner({ agent: new Agent({ name: 'a' }), model: 'offline', store: new InMemorySessionStore() });`,
      );
      await writeFile(path.join(dir, 'index.ts'), lines.join('\n'));
      await writeFile(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: moduleResolution === 'nodenext' ? 'NodeNext' : 'ESNext',
            moduleResolution,
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ['node'],
            typeRoots: [path.join(consumer, 'node_modules/@types')],
          },
          files: ['index.ts'],
        }),
      );
      const result = await run(path.join(BIN, 'tsc'), ['-p', path.join(dir, 'tsconfig.json')], { cwd: dir }).catch(
        (error: { stdout?: string }) => ({ stdout: error.stdout ?? 'tsc failed' }),
      );
      expect(result.stdout).toBe('');
    });
  }

  it('loads none of the heavy packages when the root entry is imported', async () => {
    const hooks = path.join(ROOT, 'test/packaging/record-imports.mjs');
    const { stdout } = await run(process.execPath, ['--import', hooks, '-e', "await import('pagewise')"], {
      cwd: consumer,
    });
    const line = stdout.split('\n').find((l) => l.startsWith('@@modules '));
    const urls = JSON.parse(line!.slice('@@modules '.length)) as string[];
    const packages = new Set(urls.flatMap((u) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1] ?? []));
    expect(packages.has('pagewise')).toBe(true);
    for (const heavy of [
      'better-sqlite3',
      'pg',
      'bullmq',
      'ioredis',
      'vega',
      'vega-lite',
      '@ai-sdk/openai',
      '@ai-sdk/anthropic',
    ]) {
      expect(packages.has(heavy), `${heavy} is loaded by import('pagewise')`).toBe(false);
    }
  });
});
