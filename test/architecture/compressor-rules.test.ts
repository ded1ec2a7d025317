/**
 * The compressor does not grow back into a rule set (issue 42): regular expressions (literals and `new RegExp`)
 * and inline thresholds (a numeric literal other than 0 and 1 beside `<`, `<=`, `>`, `>=`) in the non-test
 * files of the core's `compression/` and `text/`, subfolders included (the extractive compressor lives in
 * `compression/extractive/`), counted with the TypeScript parser, may only fall. A new rule must replace one,
 * or be a named constant with its reason and a test. The target is at most 60 regular expressions and
 * 15 inline thresholds; these bounds are where the code stands and move down with it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SOURCE = path.resolve(import.meta.dirname, '../../packages/pagewise/src');
const MAX_REGULAR_EXPRESSIONS = 60;
const MAX_INLINE_THRESHOLDS = 15;

const COMPARISONS = new Set([
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
]);

/** Regular expressions and inline thresholds of one source text. */
export function countRules(text: string): { regularExpressions: number; thresholds: string[] } {
  const source = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, true);
  let regularExpressions = 0;
  const thresholds: string[] = [];
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) regularExpressions += 1;
    if (ts.isNewExpression(node) && node.expression.getText(source) === 'RegExp') regularExpressions += 1;
    if (ts.isBinaryExpression(node) && COMPARISONS.has(node.operatorToken.kind)) {
      for (const side of [node.left, node.right]) {
        const operand = ts.isPrefixUnaryExpression(side) ? side.operand : side;
        if (ts.isNumericLiteral(operand) && Number(operand.text) !== 0 && Number(operand.text) !== 1) {
          thresholds.push(node.getText(source));
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { regularExpressions, thresholds };
}

describe('the compressor stays a pipeline, not a rule set', () => {
  it('counts what it should: literals and RegExp, numbers other than 0 and 1 in comparisons', () => {
    const counted = countRules('const a = /x/u; new RegExp(s); if (n >= 3 && m < 1 && k > 0 && 2 <= j) f(/y/);');
    expect(counted.regularExpressions).toBe(3);
    expect(counted.thresholds).toEqual(['n >= 3', '2 <= j']);
  });

  it('holds no more regular expressions and inline thresholds than it did', () => {
    const files = ['compression', 'text'].flatMap((folder) =>
      readdirSync(path.join(SOURCE, folder), { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.contract.ts'))
        .map((name) => path.join(SOURCE, folder, name)),
    );
    expect(files.length).toBeGreaterThan(20);
    const counts = files.map((file) => ({ file, ...countRules(readFileSync(file, 'utf8')) }));
    const regularExpressions = counts.reduce((sum, count) => sum + count.regularExpressions, 0);
    const thresholds = counts.flatMap((count) =>
      count.thresholds.map((at) => `${path.relative(SOURCE, count.file)}: ${at}`),
    );
    expect(regularExpressions, 'regular expressions in compression/ and text/').toBeLessThanOrEqual(
      MAX_REGULAR_EXPRESSIONS,
    );
    expect(thresholds.length, `inline thresholds:\n${thresholds.join('\n')}`).toBeLessThanOrEqual(
      MAX_INLINE_THRESHOLDS,
    );
  });
});
