/**
 * The root entry stays an entry a new user can read (issue 45): at most 100 names, types included, counted with the
 * TypeScript checker as a user's editor sees them; the features live on their subpaths, and every subpath the
 * package exports is built from a source file and named in docs/architecture.md's package table.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CORE = path.join(ROOT, 'packages/pagewise');
const ROOT_ENTRY_MAX_NAMES = 100;

/** The names an entry file exports, resolved through its re-exports by the checker. */
function exportedNames(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${file} did not load`);
  const symbol = checker.getSymbolAtLocation(source);
  return symbol ? checker.getExportsOfModule(symbol).map((entry) => entry.name) : [];
}

const manifest = JSON.parse(readFileSync(path.join(CORE, 'package.json'), 'utf8')) as {
  exports: Record<string, string | Record<string, string>>;
};
const subpaths = Object.entries(manifest.exports).filter(
  ([key, value]) => key !== '.' && key !== './package.json' && typeof value === 'object',
);

describe('the core entries', () => {
  it(`the root entry exports at most ${ROOT_ENTRY_MAX_NAMES} names`, () => {
    const names = exportedNames(path.join(CORE, 'src/index.ts'));
    expect(names.length).toBeGreaterThan(20);
    expect(names.length, names.join(', ')).toBeLessThanOrEqual(ROOT_ENTRY_MAX_NAMES);
  }, 60_000);

  it('no name is exported by the root and a feature subpath both', () => {
    const root = new Set(exportedNames(path.join(CORE, 'src/index.ts')));
    const features = ['paging', 'compression', 'sources', 'context', 'cost', 'telemetry', 'store-kit'];
    for (const feature of features) {
      const twice = exportedNames(path.join(CORE, `src/${feature}.ts`)).filter((name) => root.has(name));
      expect(twice, `pagewise/${feature}`).toEqual([]);
    }
  }, 60_000);

  it('every subpath is named in the architecture guide', () => {
    const guide = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
    for (const [key, conditions] of subpaths) {
      const source = (conditions as Record<string, string>)['@pagewise/source']!;
      expect(readFileSync(path.join(CORE, source), 'utf8').length, source).toBeGreaterThan(0);
      expect(guide, key).toContain(`| \`pagewise/${key.slice(2)}\` |`);
    }
  });
});
