/**
 * Cold start cost of the built package, measured from outside: each sample is a fresh `node` process that imports
 * one entry of `pagewise` (or runs `pagewise --help` / `--version` from packages/cli/bin) and exits. The figure is the
 * child's CPU time (user + system, every thread, from `process.resourceUsage()` at its exit), net of a bare `node`
 * started the same way in the same round; wall time from spawn to exit is shown beside it. Rounds rotate the
 * variants so load from other work hits them alike. Needs `npm run build`.
 *
 *   npx tsx bench/import-cost.ts [--rounds 12] [--baseline <another checkout, built>]
 *
 * With `--baseline`, the same entries and commands of that checkout (e.g. the main branch's worktree, after its
 * `npm run build`) run in the same rotation, read-only: only its built files are loaded.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmt, quantile } from './stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CPU_AT_EXIT = pathToFileURL(path.join(ROOT, 'bench/cpu-at-exit.mjs')).href;
const RECORD_IMPORTS = pathToFileURL(path.join(ROOT, 'test/packaging/record-imports.mjs')).href;
/** Packages the root entry must not load. */
const HEAVY_PACKAGES = new Set([
  'better-sqlite3',
  'pg',
  'bullmq',
  'ioredis',
  'vega',
  'vega-lite',
  'ai',
  '@ai-sdk/openai',
  '@ai-sdk/anthropic',
  '@ai-sdk/google',
  '@ai-sdk/openai-compatible',
]);
/** gpt-tokenizer's BPE tables (megabytes each), which load when text is first counted. */
const TOKENIZER_TABLES = /node_modules\/gpt-tokenizer\/(?:cjs|esm)\/(?:encoding|bpeRanks)\/([^/.]+)/;
/** The targets for the CPU time net of bare node, in ms. */
const TARGETS: Record<string, number> = { "import('pagewise')": 200, 'pagewise --help': 300 };

interface Variant {
  label: string;
  /** Arguments after `node --import cpu-at-exit.mjs`. */
  args: string[];
}

interface Sample {
  cpuMs: number;
  wallMs: number;
}

/** The `import` targets of a built package's subpath exports, by the name a user imports. */
function entriesOf(packageDir: string): [string, string][] {
  const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { import?: string }>;
  };
  return Object.entries(manifest.exports).flatMap(([subpath, target]) => {
    const file = typeof target === 'string' ? target : target.import;
    if (!file?.endsWith('.js')) return [];
    return [[`${manifest.name}${subpath.slice(1)}`, path.join(packageDir, file)]];
  });
}

/** The variants of one checkout; `suffix` tells a baseline's rows apart. */
function variantsOf(checkout: string, suffix: string): Variant[] {
  const entries = entriesOf(path.join(checkout, 'packages/pagewise'));
  const bin = path.join(checkout, 'packages/cli/bin/pagewise.js');
  return [
    ...entries.map(([name, file]) => ({
      label: `import('${name}')${suffix}`,
      args: ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(file).href)});`],
    })),
    { label: `pagewise --help${suffix}`, args: [bin, '--help'] },
    { label: `pagewise --version${suffix}`, args: [bin, '--version'] },
  ];
}

function runChild(args: string[]): Promise<{ stdout: string; stderr: string; code: number | null; wallMs: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ stdout, stderr, code, wallMs: Number(process.hrtime.bigint() - started) / 1e6 }),
    );
  });
}

async function sample(variant: Variant): Promise<Sample> {
  const { stderr, code, wallMs } = await runChild(['--import', CPU_AT_EXIT, ...variant.args]);
  const line = stderr.split('\n').find((text) => text.startsWith('@@cpu '));
  // `pagewise` with no command exits 1 by design; `--help` and `--version` exit 0.
  if (code !== 0 || !line) throw new Error(`${variant.label} failed (exit ${code}):\n${stderr}`);
  return { cpuMs: Number(line.slice('@@cpu '.length)) / 1000, wallMs };
}

/** The heavy packages and tokenizer tables that importing `file` loads, from the module-recording hook. */
async function heavyModulesLoaded(file: string): Promise<string[]> {
  const code = `await import(${JSON.stringify(pathToFileURL(file).href)});`;
  const { stdout } = await runChild(['--import', RECORD_IMPORTS, '--input-type=module', '-e', code]);
  const line = stdout.split('\n').find((text) => text.startsWith('@@modules ')) ?? '@@modules []';
  const urls = JSON.parse(line.slice('@@modules '.length)) as string[];
  const heavy = urls.flatMap((url) => {
    const table = TOKENIZER_TABLES.exec(url)?.[1];
    if (table) return [`gpt-tokenizer tables (${table})`];
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
    return name && HEAVY_PACKAGES.has(name) ? [name] : [];
  });
  return [...new Set(heavy)].sort();
}

/** Whole milliseconds; `+ 0` turns a rounded -0 into 0. */
const ms = (value: number): string => fmt(Math.round(value) + 0, 0);
const range = (values: readonly number[]): string => `${ms(Math.min(...values))}–${ms(Math.max(...values))}`;

/** Runs the benchmark and prints a markdown table; returns the median CPU ms net of bare node, by variant. */
export async function main(options: { rounds?: number; baseline?: string } = {}): Promise<Record<string, number>> {
  const rounds = options.rounds ?? 12;
  const checkouts: [string, string][] = [[ROOT, '']];
  if (options.baseline) checkouts.push([path.resolve(options.baseline), ' (baseline)']);
  for (const [checkout] of checkouts) {
    if (!existsSync(path.join(checkout, 'packages/pagewise/dist/index.js'))) {
      console.log(`\n## Import cost: skipped, ${checkout}/packages/*/dist is missing (run \`npm run build\` there)`);
      return {};
    }
  }
  const bare: Variant = { label: 'node only', args: ['--input-type=module', '-e', '0'] };
  // The root's largest dependency alone: an application that defines its tools with zod loads it anyway.
  const zod: Variant = { label: "import('zod') alone", args: ['--input-type=module', '-e', "await import('zod');"] };
  const variants = [bare, zod, ...checkouts.flatMap(([checkout, suffix]) => variantsOf(checkout, suffix))];
  // One untimed run of each, so the first round does not pay for cold file caches alone.
  for (const variant of variants) await sample(variant);
  const samples = new Map<string, Sample[]>(variants.map((variant) => [variant.label, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (let index = 0; index < variants.length; index += 1) {
      const variant = variants[(index + round) % variants.length]!;
      samples.get(variant.label)!.push(await sample(variant));
    }
  }
  const bareSamples = samples.get(bare.label)!;
  console.log(
    `\n## Import cost (fresh process each, ${rounds} interleaved rounds; CPU = user + system of the child, ms)\n`,
  );
  console.log('| variant | CPU median | CPU range | net of node: median | net range | wall median | target (net) |');
  console.log('|---|---:|---:|---:|---:|---:|---|');
  const medians: Record<string, number> = {};
  for (const variant of variants) {
    const own = samples.get(variant.label)!;
    const cpu = own.map((entry) => entry.cpuMs);
    // Net within the round: the bare node of the same round had the same load.
    const net = own.map((entry, round) => entry.cpuMs - bareSamples[round]!.cpuMs);
    const netMedian = quantile(net, 0.5);
    medians[variant.label] = netMedian;
    const target = TARGETS[variant.label];
    const verdict = target === undefined ? '' : `≤ ${target}: ${netMedian <= target ? 'met' : 'missed'}`;
    const wall = quantile(
      own.map((entry) => entry.wallMs),
      0.5,
    );
    const netCells = variant === bare ? ' | ' : `${ms(netMedian)} | ${range(net)}`;
    console.log(
      `| ${variant.label} | ${ms(quantile(cpu, 0.5))} | ${range(cpu)} | ${netCells} | ${ms(wall)} | ${verdict} |`,
    );
  }
  const [rootName, rootFile] = entriesOf(path.join(ROOT, 'packages/pagewise'))[0]!;
  const heavy = await heavyModulesLoaded(rootFile);
  console.log(`\nheavy modules loaded by import('${rootName}'): ${heavy.length === 0 ? 'none' : heavy.join(', ')}`);
  return medians;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const flag = (name: string) => {
    const index = process.argv.indexOf(name);
    return index > 0 ? process.argv[index + 1] : undefined;
  };
  await main({ rounds: Number(flag('--rounds') ?? 12), baseline: flag('--baseline') });
}
