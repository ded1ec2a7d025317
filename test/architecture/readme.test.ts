/**
 * The README's TypeScript examples compile: every ```ts block is written to a temporary folder as its own
 * module and type-checked against the package's entry points (mapped to the sources), so an example that
 * names an export that moved or an option that does not exist fails here instead of in a user's editor.
 * Free names an example only gestures at (`agent`, `model`, ...) are declared in a shared prelude.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

// Names the README's snippets use without defining them; each stands for "your own" value of that kind.
const PRELUDE = `
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ToolSet } from 'ai';
import type { Agent, AnyTool } from 'pagewise';
declare global {
  const agent: Agent;
  const baseModel: LanguageModelV3;
  const tools: AnyTool[];
  const prompt: string;
  const toolSet: ToolSet;
}
export {};
`;

/** The ```ts blocks of a markdown text, with the line each starts on. */
export function typescriptBlocks(markdown: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end]!.startsWith('```')) end++;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

let work: string | undefined;
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('README examples', () => {
  it('type-check against the entry points', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const blocks = typescriptBlocks(readme);
    expect(blocks.length).toBeGreaterThan(3);
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { types: string }>;
    };
    const paths: Record<string, string[]> = {};
    for (const [key, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue;
      const source = target.types.replace('./dist/', './src/').replace(/\.d\.ts$/, '.ts');
      paths[key === '.' ? 'pagewise' : `pagewise/${key.slice(2)}`] = [path.join(ROOT, source)];
    }
    work = await mkdtemp(path.join(tmpdir(), 'pagewise-readme-'));
    // An ES module project whose packages are this checkout's, as in a user's project.
    await writeFile(path.join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    await symlink(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'));
    const files = ['prelude.ts'];
    await writeFile(path.join(work, 'prelude.ts'), PRELUDE);
    for (const [i, block] of blocks.entries()) {
      const name = `block-${String(i + 1).padStart(2, '0')}-line-${block.line}.ts`;
      files.push(name);
      await writeFile(path.join(work, name), `${block.code}\nexport {};\n`);
    }
    await writeFile(
      path.join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [path.join(ROOT, 'node_modules/@types')],
          baseUrl: ROOT,
          paths,
        },
        files,
      }),
    );
    const result = await run(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(work, 'tsconfig.json')], {
      cwd: ROOT,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? 'tsc failed' }));
    // Each error names the block file, whose name carries the README line the block starts on.
    expect(result.stdout.replaceAll(`${work}/`, '')).toBe('');
  }, 120_000);
});
