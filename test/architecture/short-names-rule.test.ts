/**
 * The lint rule behind CONTRIBUTING's "Short names": one-letter declared names are reported, the parameters of a
 * one-line lambda and type parameters are not. Run through ESLint's own RuleTester with the project's parser. The
 * project's configuration applies it to every file type the lint script lints, and no file is exempted from it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint, RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain-JS ESLint rule without type declarations.
import shortNames from '../../scripts/eslint-rules/short-names.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });
const short = (name: string) => ({ messageId: 'short', data: { name } });

tester.run('short-names', shortNames, {
  valid: [
    'const index = 0;',
    'const sorted = xs.sort((a, b) => a - b);',
    'const ids = xs.map((x) => x.id);',
    'function first<T>(items: T[]): T | undefined { return items[0]; }',
    'const [, second] = pair;',
    'for (const _ of items) count += 1;',
    'const point = { x: 1, y: 2 };',
    'class Box { constructor(private readonly width: number) {} }',
  ],
  invalid: [
    { code: 'const n = 1;', errors: [short('n')] },
    { code: 'for (let i = 0; i < 3; i++) {}', errors: [short('i')] },
    { code: 'function f(value: number) { return value; }', errors: [short('f')] },
    { code: 'function scale(x: number) {\n  return x * 2;\n}', errors: [short('x')] },
    { code: 'const scale = (x: number) => {\n  return x * 2;\n};', errors: [short('x')] },
    { code: 'try { run(); } catch (e) { log(e); }', errors: [short('e')] },
    { code: 'const { a, b: renamed } = pair;', errors: [short('a')] },
    { code: 'type T = string;', errors: [short('T')] },
    { code: 'class Box { constructor(private readonly w: number) {} }', errors: [short('w')] },
  ],
});

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the short-names rule in the project', () => {
  it('is an error for every file type the lint script lints', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    for (const extension of ['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs']) {
      const config = await eslint.calculateConfigForFile(path.join(ROOT, `bench/example.${extension}`));
      expect([extension, config.rules?.['pagewise/short-names']?.[0]]).toEqual([extension, 2]);
    }
  });

  it('holds back no file: eslint-suppressions.json has no entry for it', () => {
    const suppressions = JSON.parse(readFileSync(path.join(ROOT, 'eslint-suppressions.json'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    const held = Object.entries(suppressions)
      .filter(([, rules]) => 'pagewise/short-names' in rules)
      .map(([file]) => file);
    expect(held).toEqual([]);
  });
});
