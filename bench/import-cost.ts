/**
 * Cold import cost of the package entries, measured from outside: each sample is a fresh `node` process that
 * imports the entries and exits, timed from spawn to exit. Runs rotate the variants so load changes hit them
 * alike. "all entries" imports every entry the root used to re-export before the entries were split (sqlite,
 * postgres, distributed, bench, optimize), which is what `import('pagewise')` cost then. Needs `npm run build`.
 *
 *   npx tsx bench/import-cost.ts [--rounds 11] [--before <an older build's dist/index.js>]
 *
 * With `--before`, the older build's root entry is timed in the same rotation (e.g. a checkout of the commit
 * before the split, built with `npx tsc -p tsconfig.build.json`).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, spread } from './stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOOKS = path.join(ROOT, 'test/packaging/record-imports.mjs');
const HEAVY = ['better-sqlite3', 'pg', 'bullmq', 'ioredis', 'vega', 'vega-lite'];
const ALL = [
  'pagewise',
  'pagewise/sqlite',
  'pagewise/postgres',
  'pagewise/distributed',
  'pagewise/bench',
  'pagewise/optimize',
];

const VARIANTS: Record<string, string> = {
  'node only': '',
  "import('pagewise')": "await import('pagewise');",
  'all entries (the root before the split)': `await Promise.all(${JSON.stringify(ALL)}.map((m) => import(m)));`,
};

function timeProcess(args: string[]): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === 0) resolve({ ms, stdout });
      else reject(new Error(`node ${args.join(' ')} exited with ${code}`));
    });
  });
}

async function loadedPackages(code: string): Promise<string[]> {
  const { stdout } = await timeProcess(['--import', HOOKS, '--input-type=module', '-e', code]);
  const line = stdout.split('\n').find((l) => l.startsWith('@@modules ')) ?? '@@modules []';
  const urls = JSON.parse(line.slice('@@modules '.length)) as string[];
  return [...new Set(urls.flatMap((u) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1] ?? []))].sort();
}

/** Runs the benchmark and prints a markdown table; returns the medians in ms by variant. */
export async function main(rounds = 11, before?: string): Promise<Record<string, number>> {
  if (!existsSync(path.join(ROOT, 'dist/index.js'))) {
    console.log('\n## Import cost: skipped, dist/ is missing (run `npm run build`)');
    return {};
  }
  const variants = { ...VARIANTS };
  if (before) variants['the root of --before'] = `await import(${JSON.stringify(path.resolve(before))});`;
  const names = Object.keys(variants);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length]!;
      samples[name]!.push((await timeProcess(['--input-type=module', '-e', variants[name]!])).ms);
    }
  }
  const medians = Object.fromEntries(names.map((n) => [n, spread(samples[n]!).median]));
  const base = medians['node only']!;
  const root = medians["import('pagewise')"]!;
  const all = medians['all entries (the root before the split)']!;
  console.log(`\n## Import cost (cold, fresh process, median of ${rounds}, ms)\n`);
  console.log('| variant | median | p10 | p90 | minus node start |');
  console.log('|---|---:|---:|---:|---:|');
  for (const n of names) {
    const s = spread(samples[n]!);
    console.log(`| ${n} | ${fmt(s.median, 0)} | ${fmt(s.p10, 0)} | ${fmt(s.p90, 0)} | ${fmt(s.median - base, 0)} |`);
  }
  const old = medians['the root of --before'];
  if (old !== undefined) {
    console.log(
      `\nroot vs --before: ${fmt(old / root, 2)}× faster wall time, ${fmt((old - base) / (root - base), 2)}× less import work`,
    );
  }
  console.log(
    `root vs all entries: ${fmt(all / root, 2)}× faster wall time, ${fmt((all - base) / (root - base), 2)}× less import work`,
  );
  const heavy = (await loadedPackages("await import('pagewise');")).filter((p) => HEAVY.includes(p));
  console.log(`heavy packages loaded by import('pagewise'): ${heavy.length === 0 ? 'none' : heavy.join(', ')}`);
  return medians;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const flag = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  await main(Number(flag('--rounds') ?? 11), flag('--before'));
}
