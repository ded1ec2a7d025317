import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { titleOf } from './links.js';

// The chain of expressions the string steps replaced: a title must read as it did.
const byExpressions = (heading: string): string =>
  heading
    .replace(/^\s*#+\s*/u, '')
    .replace(/:\s*$/u, '')
    .replace(/\s*\([^)]*\)\s*$/u, '')
    .trim()
    .toLowerCase();

describe('titleOf', () => {
  it('reads a heading without its marks, trailing colon and last parenthesized qualifier', () => {
    expect(titleOf('## Fees (2023):')).toBe('fees');
    expect(titleOf('Fees (in (USD))')).toBe('fees (in (usd))');
    expect(titleOf('  #  Overview  ')).toBe('overview');
  });

  it('reads every heading as the expressions it replaced did', () => {
    const pieces = fc.constantFrom('#', '##', ' ', '\t', ':', '(', ')', 'Fees', 'a b', '2023', '\u3000', ' (x)');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 9 }), (parts) => {
        const heading = parts.join('');
        expect(titleOf(heading)).toBe(byExpressions(heading));
      }),
      { numRuns: 3000 },
    );
  });
});
