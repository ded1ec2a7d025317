/**
 * The root entry and `pagewise --help` load only what they need at import: the tokenizer's BPE tables, the address
 * parser, OpenTelemetry and the search index load on first use. Checked from outside, in fresh Node processes on the
 * sources, by the modules each one loaded (ESM resolutions and the CommonJS cache, recorded by record-imports.mjs),
 * never by timing: the time is measured by bench/import-cost.ts. Each first use is also run, to show it still works
 * and that the recording sees the module it loads.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { countTokens as referenceCount } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const RECORD_IMPORTS = pathToFileURL(path.join(ROOT, 'test/packaging/record-imports.mjs')).href;
const CLI_MAIN = path.join(ROOT, 'packages/cli/src/main.ts');

/** What must not load until used, each with the pattern of its module URLs. */
const LAZY: Record<string, RegExp> = {
  "gpt-tokenizer's tables": /\/node_modules\/gpt-tokenizer\/(?:cjs|esm)\/(?:encoding|bpeRanks)\//,
  'ipaddr.js': /\/node_modules\/ipaddr\.js\//,
  '@opentelemetry/api': /\/node_modules\/@opentelemetry\/api\//,
  minisearch: /\/node_modules\/minisearch\//,
  "Node's HTTP client": /^node:https?$/,
};
/** What the root entry and the CLI's help never load: other packages' integrations, the AI SDK and providers. */
const NEVER: Record<string, RegExp> = {
  'the AI SDK': /\/node_modules\/ai\//,
  'a provider SDK': /\/node_modules\/@ai-sdk\/(?!provider\/)/,
  'a database or queue client': /\/node_modules\/(?:better-sqlite3|pg|bullmq|ioredis)\//,
  'a chart library': /\/node_modules\/vega(?:-lite)?\//,
  'a document parser': /\/node_modules\/(?:unpdf|pdfjs-dist|mammoth|exceljs|xlsx)\//,
};

/** Runs `node <args>` on the sources with the recording hook; returns its stdout and the module URLs it loaded. */
async function recorded(args: string[]): Promise<{ stdout: string; modules: string[] }> {
  const { stdout } = await run(
    process.execPath,
    ['--conditions=@pagewise/source', '--import', TSX, '--import', RECORD_IMPORTS, ...args],
    { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 16 * 1024 * 1024 },
  );
  const line = stdout.split('\n').find((text) => text.startsWith('@@modules '));
  if (line === undefined) throw new Error(`the child printed no module list:\n${stdout}`);
  return {
    stdout: stdout.slice(0, stdout.indexOf('\n@@modules ')),
    modules: JSON.parse(line.slice('@@modules '.length)) as string[],
  };
}

const evaluated = (code: string) => recorded(['--input-type=module', '-e', code]);

/** The names of `patterns` that some module URL matches. */
function loaded(modules: readonly string[], patterns: Record<string, RegExp>): string[] {
  return Object.entries(patterns)
    .filter(([, pattern]) => modules.some((url) => pattern.test(url)))
    .map(([name]) => name);
}

describe('lean import', () => {
  it("import('pagewise') loads the core and none of the modules kept for first use", async () => {
    const { modules } = await evaluated("await import('pagewise');");
    // The recording saw the import: the tokenizer's own module and zod (which the core's schemas need) are there.
    expect(modules.some((url) => url.endsWith('/packages/pagewise/src/tokens/tokenizer.ts'))).toBe(true);
    expect(modules.some((url) => url.includes('/node_modules/zod/'))).toBe(true);
    expect(loaded(modules, LAZY)).toEqual([]);
    expect(loaded(modules, NEVER)).toEqual([]);
  }, 60_000);

  it('the first countTokens call loads the tables and counts as the tokenizer does', async () => {
    const text = 'Revenue for Q3 2024 was $4.2M, up 12% — 東京の売上は増加した.';
    const { stdout, modules } = await evaluated(
      `const { countTokens } = await import('pagewise'); console.log(countTokens(${JSON.stringify(text)}));`,
    );
    expect(Number(stdout.trim())).toBe(referenceCount(text));
    expect(loaded(modules, LAZY)).toEqual(["gpt-tokenizer's tables"]);
  }, 60_000);

  it('the address guard, telemetry and the corpus index load their module on first use and work', async () => {
    const code = `
const { AccessDeniedError } = await import('pagewise');
const { CorpusIndex, createHttpSource } = await import('pagewise/sources');
const { pagewiseTelemetry } = await import('pagewise/telemetry');
const refused = await createHttpSource().load('http://10.0.0.1/').then(() => 'loaded', (error) => error instanceof AccessDeniedError);
const telemetry = pagewiseTelemetry();
const index = new CorpusIndex();
index.add({ uri: 'mem:a', title: 'Refunds', body: 'A refund is paid within 14 days.' });
index.add({ uri: 'mem:b', title: 'Shipping', body: 'Parcels leave the warehouse daily.' });
console.log(JSON.stringify({ refused, telemetry: typeof telemetry.startInvocation, hits: index.search('refund').map((hit) => hit.uri) }));
`;
    const { stdout, modules } = await evaluated(code);
    expect(JSON.parse(stdout.trim())).toEqual({ refused: true, telemetry: 'function', hits: ['mem:a'] });
    expect(loaded(modules, LAZY).sort()).toEqual(['@opentelemetry/api', 'ipaddr.js', 'minisearch']);
  }, 60_000);

  it('pagewise --help loads no command module and none of the modules kept for first use', async () => {
    const { stdout, modules } = await recorded([CLI_MAIN, '--help']);
    expect(stdout).toMatch(/^Usage: pagewise <command>/mu);
    const commandModules = modules.filter(
      (url) => url.includes('/packages/cli/src/') && !/\/(?:main|suggest|terminal)\.ts$/u.test(url),
    );
    expect(commandModules).toEqual([]);
    expect(loaded(modules, LAZY)).toEqual([]);
    expect(loaded(modules, NEVER)).toEqual([]);
  }, 60_000);
});
