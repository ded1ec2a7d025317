/**
 * The packages as a user receives them: each workspace package packed with `npm pack`, checked by publint and
 * Are the Types Wrong, then installed with npm into a temporary consumer project of its own, alone (with only
 * the pagewise packages it depends on, packed the same way) and imported from plain Node ESM and type-checked
 * from TypeScript.
 *
 * For `pagewise` itself the consumer is an AI SDK project that already has `ai` and `zod`: the test measures
 * what installing pagewise adds (bytes on disk, native modules) and that the one-call compression API and the
 * AI SDK middleware work there.
 *
 * Third-party packages come from the npm registry through npm's cache (`--prefer-offline`), as for a user.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'node_modules/.bin');
/** What installing `pagewise` into a project that has `ai` and `zod` may add on disk. */
const CORE_INSTALL_BUDGET_BYTES = 45 * 1024 * 1024;

interface Manifest {
  name: string;
  version: string;
  exports: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
interface Packed {
  dir: string;
  manifest: Manifest;
  tarball: string;
}

// The consumer runs built code as a user would: no source condition, whatever the test process was given.
const userEnv = { ...process.env, NODE_OPTIONS: '' };
const rootManifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};

let work: string;
const packed = new Map<string, Packed>();

/** Files under `dir` newer than the build output they compile to, so a stale dist/ fails loudly. */
async function staleSources(dir: string): Promise<string[]> {
  const stale: string[] = [];
  const walk = async (sub: string): Promise<void> => {
    for (const entry of await readdir(path.join(dir, 'src', sub), { withFileTypes: true })) {
      const relative = path.join(sub, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'testdata') await walk(relative);
        continue;
      }
      if (!entry.name.endsWith('.ts') || /\.(test|contract)\.ts$/.test(entry.name)) continue;
      const built = path.join(dir, 'dist', relative.replace(/\.ts$/, '.js'));
      const source = await stat(path.join(dir, 'src', relative));
      if (!existsSync(built) || (await stat(built)).mtimeMs < source.mtimeMs) stale.push(relative);
    }
  };
  await walk('');
  return stale;
}

/** The subpath specifiers a manifest exports, as a user imports them. */
function entriesOf(manifest: Manifest): string[] {
  return Object.keys(manifest.exports)
    .filter((key) => key !== './package.json' && key !== './internal')
    .map((key) => (key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`));
}

/** The pagewise packages `name` needs, itself included, in install order. */
function closure(name: string): Packed[] {
  const seen = new Set<string>();
  const order: Packed[] = [];
  const visit = (current: string): void => {
    if (seen.has(current)) return;
    seen.add(current);
    const item = packed.get(current)!;
    for (const dep of Object.keys(item.manifest.dependencies ?? {})) if (packed.has(dep)) visit(dep);
    order.push(item);
  };
  visit(name);
  return order;
}

async function bytesUnder(dir: string): Promise<number> {
  const { stdout } = await run('du', ['-sb', dir]);
  return Number(stdout.split('\t')[0]);
}

async function nativeModules(dir: string): Promise<string[]> {
  const { stdout } = await run('find', [dir, '(', '-name', '*.node', '-o', '-name', 'binding.gyp', ')', '-print']);
  return stdout.split('\n').filter(Boolean);
}

async function npmInstall(cwd: string, specs: string[]): Promise<void> {
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...specs], {
    cwd,
    env: userEnv,
    maxBuffer: 16 * 1024 * 1024,
  });
}

async function consumer(name: string): Promise<string> {
  const dir = path.join(work, 'consumers', name.replace('/', '__'));
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
  return dir;
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'pagewise-pack-'));
  const tarballs = path.join(work, 'tarballs');
  await mkdir(tarballs);
  const stale: string[] = [];
  for (const name of await readdir(path.join(ROOT, 'packages'))) {
    const dir = path.join(ROOT, 'packages', name);
    stale.push(...(await staleSources(dir)).map((file) => `packages/${name}/src/${file}`));
    const manifest = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as Manifest;
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tarballs], {
      cwd: dir,
      env: userEnv,
    });
    const tarball = path.join(tarballs, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
    packed.set(manifest.name, { dir, manifest, tarball });
  }
  if (stale.length > 0)
    throw new Error(`dist/ is older than its sources (run npm run build): ${stale.slice(0, 5).join(', ')}`);
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('every packed package', () => {
  it('passes publint with no errors or warnings', async () => {
    const problems: string[] = [];
    for (const [name, { dir }] of packed) {
      const { messages } = await publint({ pkgDir: dir, level: 'warning', pack: 'npm' });
      problems.push(...messages.map((m) => `${name}: ${m.type} ${m.code} ${m.path.join('.')}`));
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('passes Are the Types Wrong for an ESM-only package', async () => {
    const failures: string[] = [];
    for (const [name, { tarball }] of packed) {
      await run(path.join(BIN, 'attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii'], { cwd: work }).catch(
        (error: { stdout?: string }) => failures.push(`${name}:\n${error.stdout ?? ''}`),
      );
    }
    expect(failures).toEqual([]);
  }, 300_000);
});

describe('pagewise in an AI SDK project', () => {
  let dir: string;
  let added: number;
  let natives: string[];

  beforeAll(async () => {
    dir = await consumer('pagewise');
    await npmInstall(dir, [`ai@${rootManifest.devDependencies.ai}`, `zod@${rootManifest.devDependencies.zod}`]);
    const before = await bytesUnder(path.join(dir, 'node_modules'));
    const nativesBefore = new Set(await nativeModules(path.join(dir, 'node_modules')));
    await npmInstall(dir, [packed.get('pagewise')!.tarball]);
    added = (await bytesUnder(path.join(dir, 'node_modules'))) - before;
    natives = (await nativeModules(path.join(dir, 'node_modules'))).filter((file) => !nativesBefore.has(file));
  }, 300_000);

  it(`adds at most ${CORE_INSTALL_BUDGET_BYTES / 1024 / 1024} MB and no native module`, () => {
    console.log(`npm i pagewise into a project with ai and zod added ${(added / 1024 / 1024).toFixed(1)} MB`);
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThanOrEqual(CORE_INSTALL_BUDGET_BYTES);
    expect(natives).toEqual([]);
  });

  it('compresses text and wraps an AI SDK model with the compression middleware', async () => {
    const script = `
import { compressText } from 'pagewise/compression';
import { compressionMiddleware } from 'pagewise/ai-sdk';
import { wrapLanguageModel } from 'ai';
const body = Array.from({ length: 60 }, (_, i) => 'Row ' + i + ': revenue ' + (1000 + i) + ' thousand.').join('\\n');
const result = await compressText(body, { targetRatio: 0.3, query: 'revenue of row 42' });
if (!(result.text.length < body.length)) throw new Error('not compressed');
const middleware = compressionMiddleware();
const model = wrapLanguageModel({
  model: { specificationVersion: 'v3', provider: 'x', modelId: 'y', supportedUrls: {}, doGenerate: async () => { throw new Error('unused'); }, doStream: async () => { throw new Error('unused'); } },
  middleware,
});
console.log(JSON.stringify({ kept: result.text.includes('Row 42'), model: model.modelId }));
`;
    await writeFile(path.join(dir, 'compress.mjs'), script);
    const { stdout } = await run(process.execPath, ['compress.mjs'], { cwd: dir, env: userEnv });
    expect(JSON.parse(stdout.trim())).toEqual({ kept: true, model: 'y' });
  }, 120_000);

  it('loads none of the heavy packages when the root entry is imported', async () => {
    const hooks = path.join(ROOT, 'test/packaging/record-imports.mjs');
    const { stdout } = await run(process.execPath, ['--import', hooks, '-e', "await import('pagewise')"], {
      cwd: dir,
      env: userEnv,
    });
    const line = stdout.split('\n').find((l) => l.startsWith('@@modules '));
    const urls = JSON.parse(line!.slice('@@modules '.length)) as string[];
    const packages = new Set(urls.flatMap((u) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1] ?? []));
    expect(packages.has('pagewise')).toBe(true);
    for (const heavy of ['better-sqlite3', 'pg', 'bullmq', 'ioredis', 'vega', 'vega-lite', '@ai-sdk/openai']) {
      expect(packages.has(heavy), `${heavy} is loaded by import('pagewise')`).toBe(false);
    }
  });
});

describe('each package installed alone', () => {
  const names = [
    'pagewise',
    '@pagewise/documents',
    '@pagewise/sqlite',
    '@pagewise/postgres',
    '@pagewise/lab',
    '@pagewise/distributed',
    '@pagewise/inspect',
    '@pagewise/adk',
    '@pagewise/openai-agents',
    '@pagewise/langchain',
    '@pagewise/mastra',
    '@pagewise/cli',
  ];

  it('lists every workspace package', () => {
    expect([...packed.keys()].sort()).toEqual([...names].sort());
  });

  for (const name of names) {
    it(`${name}: installs with npm, imports every entry from Node ESM and type-checks from TypeScript`, async () => {
      const item = packed.get(name)!;
      const dir = await consumer(`alone-${name}`);
      // Required peers (the framework an adapter plugs into) install with it, as npm does for a user.
      const peers = Object.entries(item.manifest.peerDependencies ?? {})
        .filter(([peer]) => !item.manifest.peerDependenciesMeta?.[peer]?.optional)
        .map(([peer]) => `${peer}@${rootManifest.devDependencies[peer] ?? item.manifest.peerDependencies![peer]}`);
      await npmInstall(dir, [...closure(name).map((p) => p.tarball), ...peers]);
      const entries = entriesOf(item.manifest);
      const script = entries
        .map(
          (entry, index) =>
            `const m${index} = await import('${entry}'); if (Object.keys(m${index}).length === 0) throw new Error('${entry} exports nothing');`,
        )
        .join('\n');
      await writeFile(path.join(dir, 'all.mjs'), `${script}\nconsole.log('imported ${entries.length}');\n`);
      const { stdout } = await run(process.execPath, ['all.mjs'], { cwd: dir, env: userEnv });
      expect(stdout.trim()).toBe(`imported ${entries.length}`);

      await writeFile(
        path.join(dir, 'index.ts'),
        entries
          .map((e, i) => `import * as m${i} from '${e}';\nexport const n${i}: number = Object.keys(m${i}).length;`)
          .join('\n'),
      );
      await writeFile(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'nodenext',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ['node'],
            typeRoots: [path.join(ROOT, 'node_modules/@types')],
          },
          files: ['index.ts'],
        }),
      );
      const result = await run(path.join(BIN, 'tsc'), ['-p', path.join(dir, 'tsconfig.json')], { cwd: dir }).catch(
        (error: { stdout?: string }) => ({ stdout: error.stdout ?? 'tsc failed' }),
      );
      expect(result.stdout).toBe('');
      // A package that needs @pagewise/sqlite builds better-sqlite3 from source here (no prebuilt binary can be
      // downloaded), which takes minutes on a small machine.
    }, 900_000);
  }
});
