/**
 * The documentation's TypeScript examples compile: every ```ts block of README.md, of every Markdown file
 * under docs/ and of each package's README is written to a temporary folder as its own module and type-checked
 * against the packages' entry points (mapped to the sources), so an example that names an export that moved or an
 * option that does not exist fails here instead of in a user's editor. Free names an example only gestures at (`agent`,
 * `model`, ...) are declared in a shared prelude.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/** The README stays an entry page that leads to the guides; detail belongs in docs/. */
const README_MAX_LINES = 300;

/**
 * The module names the documentation imports, each mapped to the source file its entry point is built from.
 * This is the one place that knows where a published entry's code lives: when packages move, change it here.
 * A `*` stands for one path segment, as in a tsconfig `paths` pattern.
 */
export const ENTRY_SOURCES: Readonly<Record<string, string>> = {
  pagewise: 'packages/pagewise/src/index.ts',
  'pagewise/paging': 'packages/pagewise/src/paging.ts',
  'pagewise/compression': 'packages/pagewise/src/compression.ts',
  'pagewise/sources': 'packages/pagewise/src/sources.ts',
  'pagewise/context': 'packages/pagewise/src/context.ts',
  'pagewise/cost': 'packages/pagewise/src/cost.ts',
  'pagewise/telemetry': 'packages/pagewise/src/telemetry.ts',
  'pagewise/store-kit': 'packages/pagewise/src/store-kit.ts',
  'pagewise/adapter-kit': 'packages/pagewise/src/adapter-kit.ts',
  'pagewise/extractive': 'packages/pagewise/src/extractive.ts',
  'pagewise/ai-sdk': 'packages/pagewise/src/ai-sdk.ts',
  'pagewise/testing': 'packages/pagewise/src/testing.ts',
  '@pagewise/sqlite': 'packages/sqlite/src/index.ts',
  '@pagewise/postgres': 'packages/postgres/src/index.ts',
  '@pagewise/distributed': 'packages/distributed/src/index.ts',
  '@pagewise/inspect': 'packages/inspect/src/index.ts',
  '@pagewise/documents': 'packages/documents/src/index.ts',
  '@pagewise/adk': 'packages/adk/src/index.ts',
  '@pagewise/openai-agents': 'packages/openai-agents/src/index.ts',
  '@pagewise/langchain': 'packages/langchain/src/index.ts',
  '@pagewise/mastra': 'packages/mastra/src/index.ts',
  // The lab: the benchmark at its root, the optimize harness and the scenarios beside it.
  '@pagewise/lab': 'packages/lab/src/bench/index.ts',
  '@pagewise/lab/optimize': 'packages/lab/src/optimize/index.ts',
  '@pagewise/lab/replay': 'packages/lab/src/replay/index.ts',
  '@pagewise/lab/scenarios/*': 'packages/lab/src/scenarios/*/index.ts',
};

// Names the snippets use without defining them; each stands for "your own" value of that kind.
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
  for (let index = 0; index < lines.length; index++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[index]!)) continue;
    const start = index + 1;
    let end = start;
    while (end < lines.length && !lines[end]!.startsWith('```')) end++;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    index = end;
  }
  return blocks;
}

/** README.md, every Markdown file under docs/ and each package's README, as paths relative to the repository root. */
async function documentationFiles(): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, 'docs'), { recursive: true, withFileTypes: true });
  const docs = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)))
    .sort();
  const packages = (await readdir(path.join(ROOT, 'packages'), { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() && existsSync(path.join(ROOT, 'packages', entry.name, 'README.md')))
    .map((entry) => path.join('packages', entry.name, 'README.md'))
    .sort();
  return ['README.md', ...docs, ...packages];
}

/**
 * Guides the documentation links to that are written alongside it and may not be in this checkout yet. A link
 * to one of them is not refused for the file's absence, but its anchor is checked once the file is there.
 */
const GUIDES_WRITTEN_ELSEWHERE = new Set([
  'docs/cli-runs.md',
  'docs/compression-on-real-data.md',
  'docs/performance.md',
  'docs/providers.md',
  'docs/replay.md',
]);

/** Markdown without its fenced code blocks, where `#` lines and `](...)` are code, not headings or links. */
function proseOf(markdown: string): string {
  return markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '');
}

/** The anchors GitHub derives from a document's headings. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of proseOf(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const anchor = heading!
      .toLowerCase()
      .replace(/[`*_]/g, '')
      .replace(/[^\p{L}\p{N}\- ]/gu, '')
      .replace(/ /g, '-');
    anchors.add(anchor);
  }
  return anchors;
}

let work: string | undefined;
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('README', () => {
  it(`is at most ${README_MAX_LINES} lines`, async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  // Outside a clone `npx pagewise` resolves the library, which has no bin: the first commands must clone first,
  // and in the clone the command must be the workspace CLI's bin. (That they run verbatim in a fresh clone is
  // checked by hand before a release; npm ci alone takes minutes.)
  it('try-it commands start with a clone, whose workspace provides the `pagewise` command they run', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const tryIt = readme.slice(readme.indexOf('\n## Try it\n'));
    const block = /```sh\n([\s\S]*?)```/.exec(tryIt)?.[1] ?? '';
    const commands = block.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
    expect(commands[0]).toMatch(/^git clone \S.* (\S+) && cd \1$/);
    expect(commands.some((line) => line.includes('npx pagewise'))).toBe(true);
    const root = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
    const cli = JSON.parse(await readFile(path.join(ROOT, 'packages/cli/package.json'), 'utf8')) as {
      bin?: Record<string, string>;
    };
    expect(root.workspaces).toContain('packages/cli');
    expect(Object.keys(cli.bin ?? {})).toContain('pagewise');
    const library = JSON.parse(await readFile(path.join(ROOT, 'packages/pagewise/package.json'), 'utf8')) as {
      bin?: unknown;
    };
    // Were the library to gain a bin, `npx pagewise` outside a clone would work, and the README could say so.
    expect(library.bin).toBeUndefined();
  });
});

describe('documentation links', () => {
  it('point at files that exist and at headings they have', async () => {
    const files = [...(await documentationFiles()), 'CHANGELOG.md', 'CONTRIBUTING.md'].filter((file) =>
      existsSync(path.join(ROOT, file)),
    );
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      const prose = proseOf(await readFile(path.join(ROOT, file), 'utf8'));
      for (const [, link] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(link!)) continue;
        checked++;
        const [target, anchor] = link!.split('#') as [string, string | undefined];
        const resolved = target === '' ? file : path.normalize(path.join(path.dirname(file), target));
        if (!existsSync(path.join(ROOT, resolved))) {
          if (!GUIDES_WRITTEN_ELSEWHERE.has(resolved)) broken.push(`${file}: ${link} (no such file)`);
          continue;
        }
        if (anchor && resolved.endsWith('.md')) {
          const anchors = headingAnchors(await readFile(path.join(ROOT, resolved), 'utf8'));
          if (!anchors.has(anchor)) broken.push(`${file}: ${link} (no such heading)`);
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  it('derives anchors as GitHub does, ignoring headings inside code blocks', () => {
    const markdown = ['# The `pagewise` CLI', '## Retail tool use at a budget', '```sh', '# not a heading', '```'];
    expect([...headingAnchors(markdown.join('\n'))]).toEqual(['the-pagewise-cli', 'retail-tool-use-at-a-budget']);
  });
});

describe('typescriptBlocks', () => {
  it('finds ts and typescript blocks with their first line, and skips other languages', () => {
    const markdown = ['# t', '```ts', 'const a = 1;', '```', '```sh', 'ls', '```', '```typescript', 'b();', '```'];
    expect(typescriptBlocks(markdown.join('\n'))).toEqual([
      { line: 3, code: 'const a = 1;' },
      { line: 9, code: 'b();' },
    ]);
  });
});

describe('documentation examples', () => {
  it('type-check against the entry points', async () => {
    const files = await documentationFiles();
    const blocks: { file: string; line: number; code: string }[] = [];
    for (const file of files) {
      const markdown = await readFile(path.join(ROOT, file), 'utf8');
      for (const block of typescriptBlocks(markdown)) blocks.push({ file, ...block });
    }
    // The README and the guides both carry examples; a parser that found none would pass vacuously.
    expect(blocks.filter((block) => block.file === 'README.md').length).toBeGreaterThanOrEqual(3);
    expect(blocks.filter((block) => block.file !== 'README.md').length).toBeGreaterThan(10);

    const paths = Object.fromEntries(
      Object.entries(ENTRY_SOURCES).map(([name, source]) => [name, [path.join(ROOT, source)]]),
    );
    work = await mkdtemp(path.join(tmpdir(), 'pagewise-docs-'));
    // An ES module project whose packages are this checkout's, as in a user's project.
    await writeFile(path.join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    await symlink(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'));
    const names = ['prelude.ts'];
    await writeFile(path.join(work, 'prelude.ts'), PRELUDE);
    for (const [index, block] of blocks.entries()) {
      // The file name carries the document and the line the block starts on, so an error points at it.
      const document = block.file.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-');
      const name = `${String(index + 1).padStart(3, '0')}-${document}-line-${block.line}.ts`;
      names.push(name);
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
          // Sources all the way down: what an entry imports from a sibling package resolves to its src/ too.
          customConditions: ['@pagewise/source'],
          baseUrl: ROOT,
          paths,
        },
        files: names,
      }),
    );
    const result = await run(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(work, 'tsconfig.json')], {
      cwd: ROOT,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? 'tsc failed' }));
    // tsc names each file relative to the checkout; keep only the block file's name, which says where it is.
    expect(result.stdout.replace(/\S*pagewise-docs-[^/]+\//g, '')).toBe('');
  }, 300_000);
});
