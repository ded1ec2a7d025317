/**
 * The root entry stays an entry a new user can read (issue 45): at most 100 names, types included, counted with the
 * TypeScript checker as a user's editor sees them; the features live on their subpaths, and every subpath the
 * package exports is built from a source file and named in docs/architecture.md's package table. The helpers
 * pagewise's own packages share (`pagewise/internal`) stay few: what stores share is `pagewise/store-kit`, what
 * the extractive backend's tuning and training use is `pagewise/extractive`, and what only the lab uses is the lab's.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CORE = path.join(ROOT, 'packages/pagewise');
const ROOT_ENTRY_MAX_NAMES = 100;
const INTERNAL_MAX_NAMES = 40;

/** The names each entry file exports, resolved through its re-exports by the checker (one program for all). */
function exportedNamesOf(files: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  return new Map(
    files.map((file) => {
      const source = program.getSourceFile(file);
      if (!source) throw new Error(`${file} did not load`);
      const symbol = checker.getSymbolAtLocation(source);
      return [file, symbol ? checker.getExportsOfModule(symbol).map((entry) => entry.name) : []];
    }),
  );
}

/** The names an entry file exports. */
function exportedNames(file: string): string[] {
  return exportedNamesOf([file]).get(file)!;
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

  it(`pagewise/internal exports at most ${INTERNAL_MAX_NAMES} names`, () => {
    const names = exportedNames(path.join(CORE, 'src/internal.ts'));
    expect(names.length).toBeGreaterThan(0);
    expect(names.length, names.join(', ')).toBeLessThanOrEqual(INTERNAL_MAX_NAMES);
  }, 60_000);

  it('pagewise/internal shares no name with a documented entry', () => {
    const sources = Object.fromEntries(
      subpaths.map(([key, conditions]) => [
        key,
        path.join(CORE, (conditions as Record<string, string>)['@pagewise/source']!),
      ]),
    );
    const root = path.join(CORE, 'src/index.ts');
    const names = exportedNamesOf([root, ...Object.values(sources)]);
    const internal = new Set(names.get(sources['./internal']!));
    expect(internal.size).toBeGreaterThan(0);
    for (const [key, source] of Object.entries({ '.': root, ...sources })) {
      if (key === './internal') continue;
      const twice = names.get(source)!.filter((name) => internal.has(name));
      expect(twice, key).toEqual([]);
    }
  }, 60_000);

  it('no name is exported by the root and a feature subpath both', () => {
    const features = [
      'paging',
      'compression',
      'sources',
      'context',
      'cost',
      'telemetry',
      'store-kit',
      'adapter-kit',
      'extractive',
    ];
    const files = features.map((feature) => path.join(CORE, `src/${feature}.ts`));
    const names = exportedNamesOf([path.join(CORE, 'src/index.ts'), ...files]);
    const root = new Set(names.get(path.join(CORE, 'src/index.ts')));
    for (const [index, feature] of features.entries()) {
      const twice = names.get(files[index]!)!.filter((name) => root.has(name));
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
