/**
 * Functions stay short enough to read in one sitting: no function, method or arrow function in a package's src/ spans
 * more than 150 lines. Data tables are not functions, so they are not counted.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PACKAGES = path.join(ROOT, 'packages');
const MAX_LINES = 150;

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(full)));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

/** Functions of a source text longer than `max` lines, as `file:line name (n lines)`. */
export function longFunctions(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) {
        const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
        found.push(`${path.relative(ROOT, file)}:${start + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  it('finds a long function (the check can fail)', () => {
    const body = Array.from({ length: 160 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    expect(longFunctions('x.ts', `function long() {\n${body}\n}`, MAX_LINES)).toHaveLength(1);
  });

  it(`keeps every function in the packages' src/ at ${MAX_LINES} lines or fewer`, async () => {
    const long: string[] = [];
    const packages = await readdir(PACKAGES);
    expect(packages.length).toBeGreaterThan(1);
    const files = (await Promise.all(packages.map((name) => sourceFiles(path.join(PACKAGES, name, 'src'))))).flat();
    for (const file of files) long.push(...longFunctions(file, await readFile(file, 'utf8'), MAX_LINES));
    expect(long).toEqual([]);
  });
});
