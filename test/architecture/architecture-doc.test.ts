/**
 * docs/architecture.md matches what it describes, so it cannot go stale silently: its package table against each
 * package's `package.json` (dependencies, peers, subpath exports) and against the package rules of
 * .dependency-cruiser.cjs (what each package may import); its layer diagram and folder table against the core's
 * tier rules and folders; and its list of the packages that import `pagewise/internal` against their sources.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOC = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
const CORE = 'packages/pagewise/src';

interface PackageJson {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  exports?: Record<string, unknown>;
}

interface Rule {
  name: string;
  from: { path: string };
  to: { path?: string; pathNot?: string };
}

/** Every workspace package, by its folder under packages/. */
const PACKAGES: ReadonlyMap<string, PackageJson> = new Map(
  readdirSync(path.join(ROOT, 'packages'))
    .filter((dir) => existsSync(path.join(ROOT, 'packages', dir, 'package.json')))
    .map((dir) => [dir, JSON.parse(readFileSync(path.join(ROOT, 'packages', dir, 'package.json'), 'utf8'))]),
);
const NAMES = new Set([...PACKAGES.values()].map((pkg) => pkg.name));
const RULES = (createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: Rule[] })
  .forbidden;

/** The text of a `##` section of the doc. */
function section(title: string): string {
  const start = DOC.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no "## ${title}" section`);
  const end = DOC.indexOf('\n## ', start + 1);
  return DOC.slice(start, end < 0 ? undefined : end);
}

/** The rows of the first markdown table in `text`, as cells, header and separator left out. */
function tableRows(text: string): string[][] {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (let index = first + 2; index < lines.length && lines[index]!.startsWith('|'); index++) {
    rows.push(
      lines[index]!.slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const codeNames = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/** What a "brings in" cell says: dependencies first, then `peers …` and `optional peers …`, split by semicolons. */
function bringsIn(cell: string): { dependencies: string[]; peers: string[]; optionalPeers: string[] } {
  const result = { dependencies: [] as string[], peers: [] as string[], optionalPeers: [] as string[] };
  for (const part of cell.split(';').map((text) => text.trim())) {
    if (part.startsWith('optional peers ')) result.optionalPeers.push(...codeNames(part));
    else if (part.startsWith('peers ')) result.peers.push(...codeNames(part));
    else result.dependencies.push(...codeNames(part));
  }
  return result;
}

const sorted = (names: Iterable<string>): string[] => [...names].sort();
const isSibling = (name: string): boolean => NAMES.has(name);

/** The package folders a `package-<dir>-imports-above-it` rule allows, or undefined when the package has none. */
function allowedByRules(dir: string): string[] | undefined {
  const rule = RULES.find((r) => r.name === `package-${dir}-imports-above-it`);
  if (!rule) return undefined;
  const match = /^\^packages\/\(([^)]+)\)\/$/.exec(rule.to.pathNot ?? '');
  if (!match) throw new Error(`${rule.name}: unexpected pathNot ${rule.to.pathNot}`);
  return match[1]!.split('|').filter((name) => name !== dir);
}

/** The core folders (or `errors` for errors.ts) a path pattern of the tier rules names, its alternatives split. */
function tierFolders(pattern: string): string[] {
  const rest = pattern.replace(/^\^/, '').replace(`${CORE}/`, '');
  const inner = rest.startsWith('(') ? rest.slice(1, rest.indexOf(')')) : rest;
  return inner.split('|').map((part) => part.replace(/\\\.ts\$?$|\/$/, '').replace(/\\\./g, '.'));
}

/** The core's tiers in order, as the rules of .dependency-cruiser.cjs define them. */
function tiersByRules(): string[][] {
  const rules = RULES.filter((r) => r.name.startsWith('core-tier-'));
  const tiers = rules.map((rule) => tierFolders(rule.from.path));
  const later = rules.at(-1)!.to.path!.split(/\|(?=\^)/);
  tiers.push(tierFolders(later[0]!));
  // Every tier rule keeps the adapters (and the entry files) out of reach, which makes them the last tier.
  for (const rule of rules) expect(rule.to.path, rule.name).toContain(`^${CORE}/adapters/`);
  tiers.push(['adapters']);
  return tiers;
}

/** The tiers the doc's layer diagram draws: each line that opens a tier (the first, and each `→`). */
function tiersInDoc(): string[][] {
  const layers = section('Layers inside `pagewise`');
  const block = /```\n([\s\S]*?)```/.exec(layers)?.[1];
  if (!block) throw new Error('the layers section has no diagram');
  return block
    .split('\n')
    .map((line) => line.trim())
    .filter((line, index) => line.length > 0 && (index === 0 || line.startsWith('→')))
    .map((line) =>
      line
        .replace(/^→\s*/, '')
        .split(/\s{2,}/)[0]!
        .split(',')
        .map((name) => name.trim()),
    );
}

/** The packages whose sources (tests left out) import `pagewise/internal`. */
function internalImporters(): string[] {
  const found: string[] = [];
  for (const [dir, pkg] of PACKAGES) {
    const src = path.join(ROOT, 'packages', dir, 'src');
    if (dir === 'pagewise' || !existsSync(src)) continue;
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter(
      (file) => /\.ts$/.test(file) && !/\.(test|contract)\.ts$/.test(file),
    );
    if (files.some((file) => /['"]pagewise\/internal['"]/.test(readFileSync(path.join(src, file), 'utf8'))))
      found.push(pkg.name);
  }
  return sorted(found);
}

/** Whether a name the doc writes (`@pagewise/lab/scenarios/*`, a `*` standing for one segment) names `subpath`. */
function namesSubpath(name: string, subpath: string): boolean {
  const pattern = name.split('/');
  const segments = subpath.split('/');
  return pattern.length === segments.length && pattern.every((part, i) => part === '*' || part === segments[i]);
}

const ROWS = tableRows(section('Packages'));
const rowOf = (name: string): string[] | undefined => ROWS.find((row) => codeNames(row[0]!)[0] === name);

describe('docs/architecture.md', () => {
  it('has a row for every package, and every row names a package or one of its exports', () => {
    expect(ROWS.length).toBeGreaterThan(0);
    for (const pkg of PACKAGES.values()) expect(rowOf(pkg.name), `a row for ${pkg.name}`).toBeDefined();
    const table = section('Packages');
    for (const pkg of PACKAGES.values()) {
      for (const key of Object.keys(pkg.exports ?? {})) {
        if (key === '.' || key === './package.json') continue;
        const subpath = `${pkg.name}/${key.slice(2)}`;
        const named = codeNames(table).some((name) => namesSubpath(name, subpath));
        expect(named, `docs/architecture.md names the export ${subpath}`).toBe(true);
      }
    }
    for (const row of ROWS) {
      const name = codeNames(row[0]!)[0]!;
      const owner = [...PACKAGES.values()].find((pkg) => name === pkg.name || name.startsWith(`${pkg.name}/`));
      expect(owner, `${name} is a package or a subpath of one`).toBeDefined();
      if (name !== owner!.name)
        expect(Object.keys(owner!.exports ?? {})).toContain(`./${name.slice(owner!.name.length + 1)}`);
    }
  });

  it('lists what each package brings in as its package.json declares it (type packages left out)', () => {
    for (const pkg of PACKAGES.values()) {
      const said = bringsIn(rowOf(pkg.name)![3]!);
      const optional = (name: string): boolean => pkg.peerDependenciesMeta?.[name]?.optional === true;
      const peers = Object.keys(pkg.peerDependencies ?? {});
      const dependencies = Object.keys(pkg.dependencies ?? {}).filter((n) => !isSibling(n) && !n.startsWith('@types/'));
      expect(sorted(said.dependencies), `${pkg.name} dependencies`).toEqual(sorted(dependencies));
      expect(sorted(said.peers), `${pkg.name} peers`).toEqual(sorted(peers.filter((n) => !optional(n))));
      expect(sorted(said.optionalPeers), `${pkg.name} optional peers`).toEqual(sorted(peers.filter(optional)));
    }
  });

  it('says what each package may import as the dependency rules allow and its package.json depends on', () => {
    for (const [dir, pkg] of PACKAGES) {
      const cell = rowOf(pkg.name)![2]!;
      const allowed = allowedByRules(dir);
      if (allowed === undefined) {
        expect(cell, `${pkg.name} has no package rule, so it may import any package`).toBe('any');
        continue;
      }
      const names = allowed.map((folder) => PACKAGES.get(folder)!.name);
      expect(sorted(codeNames(cell)), `${pkg.name} may import`).toEqual(sorted(names));
      const siblings = Object.keys(pkg.dependencies ?? {}).filter(isSibling);
      expect(sorted(siblings), `${pkg.name}'s package.json depends on what it may import`).toEqual(sorted(names));
    }
  });

  it('draws the core tiers of the dependency rules, in their order, and lists every folder of the core', () => {
    const tiers = tiersByRules();
    expect(tiers.length).toBeGreaterThan(3);
    expect(tiersInDoc()).toEqual(tiers);
    const folders = tableRows(section('Layers inside `pagewise`')).map((row) => codeNames(row[0]!)[0] ?? '');
    const core = readdirSync(path.join(ROOT, CORE), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(sorted(folders), 'the folder table: every folder of the core, and errors.ts').toEqual(
      sorted([...core, 'errors']),
    );
    expect(sorted(tiers.flat())).toEqual(sorted(folders));
  });

  it('names the packages that import pagewise/internal', () => {
    const sentence = /`pagewise\/internal` is imported by ([^.]+)\./.exec(DOC.replace(/\n/g, ' '));
    expect(sentence, 'a sentence "`pagewise/internal` is imported by …."').not.toBeNull();
    expect(sorted(codeNames(sentence![1]!))).toEqual(internalImporters());
  });
});
