/**
 * A safe arithmetic evaluator for `calculate`: numbers taken from a page are referenced as `$1`, `$2`,
 * ... (in order of appearance) or `$all`; operators + - * / % ^, parentheses, and the functions sum,
 * min, max, avg, count, round, abs. A hand-written parser: no `eval`, no property access, no calls
 * beyond the list.
 */

/** Extracts the numbers of a text in order (thousands separators and decimals understood). */
export function extractNumbers(text: string): number[] {
  const out: number[] = [];
  const re = /(?<![\w.-])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.-])-?\d+(?:\.\d+)?(?![\w])/g;
  for (const match of text.matchAll(re)) out.push(Number(match[0].replace(/,/g, '')));
  return out;
}

type Value = number | number[];

/** Thrown for a malformed expression; the message says where and what was expected. */
export class ExpressionError extends Error {}

const FUNCTIONS: Record<string, (args: number[]) => number> = {
  sum: (a) => a.reduce((s, x) => s + x, 0),
  min: (a) => (a.length ? Math.min(...a) : NaN),
  max: (a) => (a.length ? Math.max(...a) : NaN),
  avg: (a) => (a.length ? a.reduce((s, x) => s + x, 0) / a.length : NaN),
  count: (a) => a.length,
  round: (a) => (a.length === 2 ? Math.round(a[0]! * 10 ** a[1]!) / 10 ** a[1]! : Math.round(a[0] ?? NaN)),
  abs: (a) => Math.abs(a[0] ?? NaN),
};

/** Evaluates `expression` with `$n` bound to `numbers[n-1]` and `$all` to the whole list. */
export function evaluate(expression: string, numbers: readonly number[]): number {
  if (expression.length > 2000) throw new ExpressionError('The expression is longer than 2000 characters.');
  const tokens = expression.match(/\s*(\d+(?:\.\d+)?|\$all|\$\d+|[a-z]+|\*\*|[-+*/%^(),])\s*/gy);
  const joined = (tokens ?? []).join('');
  if (joined.length !== expression.length) {
    throw new ExpressionError(
      `Unexpected character at position ${joined.length + 1}: "${expression.slice(joined.length, joined.length + 10)}". Use numbers, $1..$${numbers.length}, $all, + - * / % ^ ( ) and sum/min/max/avg/count/round/abs.`,
    );
  }
  const list = (tokens ?? []).map((t) => t.trim());
  let pos = 0;
  const peek = () => list[pos];
  const take = (want?: string): string => {
    const token = list[pos];
    if (token === undefined || (want !== undefined && token !== want))
      throw new ExpressionError(`Expected ${want ?? 'more input'} at token ${pos + 1}, got ${token ?? 'the end'}.`);
    pos += 1;
    return token;
  };
  const scalar = (value: Value): number => {
    if (Array.isArray(value))
      throw new ExpressionError('$all is a list; use it inside sum(), min(), max(), avg() or count().');
    return value;
  };
  const primary = (): Value => {
    const token = take();
    if (token === '(') {
      const inner = expr();
      take(')');
      return inner;
    }
    if (token === '-') return -scalar(power());
    if (token === '+') return scalar(power());
    if (token === '$all') return [...numbers];
    if (token.startsWith('$')) {
      const ordinal = Number(token.slice(1));
      if (ordinal < 1 || ordinal > numbers.length)
        throw new ExpressionError(
          `${token} does not exist: the page has ${numbers.length} numbers ($1..$${numbers.length}).`,
        );
      return numbers[ordinal - 1]!;
    }
    if (/^\d/.test(token)) return Number(token);
    const fn = FUNCTIONS[token];
    if (!fn) throw new ExpressionError(`Unknown name "${token}". Functions: ${Object.keys(FUNCTIONS).join(', ')}.`);
    take('(');
    const args: number[] = [];
    if (peek() !== ')') {
      for (;;) {
        const argument = expr();
        if (Array.isArray(argument)) args.push(...argument);
        else args.push(argument);
        if (peek() === ',') take(',');
        else break;
      }
    }
    take(')');
    return fn(args);
  };
  const power = (): Value => {
    const base = primary();
    if (peek() === '^' || peek() === '**') {
      take();
      return scalar(base) ** scalar(power());
    }
    return base;
  };
  const term = (): Value => {
    let value = power();
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const op = take();
      const right = scalar(power());
      const left = scalar(value);
      value = op === '*' ? left * right : op === '/' ? left / right : left % right;
    }
    return value;
  };
  const expr = (): Value => {
    let value = term();
    while (peek() === '+' || peek() === '-') {
      const op = take();
      const right = scalar(term());
      value = op === '+' ? scalar(value) + right : scalar(value) - right;
    }
    return value;
  };
  if (list.length === 0) throw new ExpressionError('The expression is empty.');
  const result = scalar(expr());
  if (pos < list.length) throw new ExpressionError(`Unexpected "${list[pos]}" at token ${pos + 1}.`);
  if (!Number.isFinite(result))
    throw new ExpressionError('The result is not a finite number (division by zero, or an empty list?).');
  return result;
}
