/**
 * The two import codemods in scripts/: migrate-root-imports.mjs moves the names that left the root entry to their
 * subpaths by scripts/root-entry-moves.json, which must agree with what each subpath exports; merge-imports.mjs
 * joins repeated imports of one module.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain-JS scripts without type declarations.
import { migrateMarkdown, migrateSource } from '../../scripts/migrate-root-imports.mjs';
// @ts-expect-error: plain-JS scripts without type declarations.
import { mergeImports } from '../../scripts/merge-imports.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MOVES = JSON.parse(readFileSync(path.join(ROOT, 'scripts/root-entry-moves.json'), 'utf8')) as Record<
  string,
  string
>;

describe('migrate-root-imports', () => {
  it('every moved name is exported by the subpath it is moved to, and no longer by the root', async () => {
    const root = (await import('../../packages/pagewise/src/index.js')) as Record<string, unknown>;
    const typeNames = new Set<string>();
    for (const [name, entry] of Object.entries(MOVES)) {
      const file = path.join(ROOT, 'packages/pagewise/src', `${entry.slice('pagewise/'.length)}.ts`);
      const text = readFileSync(file, 'utf8');
      expect(new RegExp(`\\b${name}\\b`).test(text), `${name} in ${entry}`).toBe(true);
      expect(name in root, `${name} still at the root`).toBe(false);
      const module = (await import(file)) as Record<string, unknown>;
      if (!(name in module)) typeNames.add(name);
    }
    // Values resolve at run time; the rest are types, which only the checker sees (entry-size.test.ts counts them).
    expect(typeNames.size).toBeLessThan(Object.keys(MOVES).length);
  });

  it('splits an import by entry and keeps the names still at the root', () => {
    const out = migrateSource(
      'a.ts',
      "import { Agent, createPagingTools, type ContextRequest, compressText as compress } from 'pagewise';\nAgent;\n",
    );
    expect(out).toBe(
      [
        "import { Agent } from 'pagewise';",
        "import { compressText as compress } from 'pagewise/compression';",
        "import { type ContextRequest } from 'pagewise/context';",
        "import { createPagingTools } from 'pagewise/paging';",
        'Agent;',
        '',
      ].join('\n'),
    );
    expect(migrateSource('b.ts', "import { Agent, Runner } from 'pagewise';\n")).toBeUndefined();
    expect(migrateSource('c.ts', "export type { PageStore } from '../packages/pagewise/src/index.js';\n")).toBe(
      "export type { PageStore } from '../packages/pagewise/src/paging.js';\n",
    );
  });

  it('rewrites the imports of a Markdown code sample', () => {
    const doc = "```ts\nimport { Runner, autoPaging } from 'pagewise';\n```\n";
    expect(migrateMarkdown(doc)).toBe(
      "```ts\nimport { Runner } from 'pagewise';\nimport { autoPaging } from 'pagewise/paging';\n```\n",
    );
  });
});

describe('merge-imports', () => {
  it('joins named imports of one module and kind, leaving type-only and default imports apart', () => {
    const text = [
      "import { a } from 'x';",
      "import type { B } from 'x';",
      "import { c, a } from 'x';",
      "import fs from 'node:fs';",
      'a; c;',
      '',
    ].join('\n');
    expect(mergeImports('m.ts', text)).toBe(
      ["import { a, c } from 'x';", "import type { B } from 'x';", "import fs from 'node:fs';", 'a; c;', ''].join('\n'),
    );
    expect(mergeImports('n.ts', "import { a } from 'x';\n")).toBeUndefined();
  });
});
