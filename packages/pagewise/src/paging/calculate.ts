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
  for (const m of text.matchAll(re)) out.push(Number(m[0].replace(/,/g, '')));
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
    const t = list[pos];
    if (t === undefined || (want !== undefined && t !== want))
      throw new ExpressionError(`Expected ${want ?? 'more input'} at token ${pos + 1}, got ${t ?? 'the end'}.`);
    pos += 1;
    return t;
  };
  const scalar = (v: Value): number => {
    if (Array.isArray(v))
      throw new ExpressionError('$all is a list; use it inside sum(), min(), max(), avg() or count().');
    return v;
  };
  const primary = (): Value => {
    const t = take();
    if (t === '(') {
      const v = expr();
      take(')');
      return v;
    }
    if (t === '-') return -scalar(power());
    if (t === '+') return scalar(power());
    if (t === '$all') return [...numbers];
    if (t.startsWith('$')) {
      const i = Number(t.slice(1));
      if (i < 1 || i > numbers.length)
        throw new ExpressionError(
          `${t} does not exist: the page has ${numbers.length} numbers ($1..$${numbers.length}).`,
        );
      return numbers[i - 1]!;
    }
    if (/^\d/.test(t)) return Number(t);
    const fn = FUNCTIONS[t];
    if (!fn) throw new ExpressionError(`Unknown name "${t}". Functions: ${Object.keys(FUNCTIONS).join(', ')}.`);
    take('(');
    const args: number[] = [];
    if (peek() !== ')') {
      for (;;) {
        const v = expr();
        if (Array.isArray(v)) args.push(...v);
        else args.push(v);
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
    let v = power();
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const op = take();
      const r = scalar(power());
      const l = scalar(v);
      v = op === '*' ? l * r : op === '/' ? l / r : l % r;
    }
    return v;
  };
  const expr = (): Value => {
    let v = term();
    while (peek() === '+' || peek() === '-') {
      const op = take();
      const r = scalar(term());
      v = op === '+' ? scalar(v) + r : scalar(v) - r;
    }
    return v;
  };
  if (list.length === 0) throw new ExpressionError('The expression is empty.');
  const result = scalar(expr());
  if (pos < list.length) throw new ExpressionError(`Unexpected "${list[pos]}" at token ${pos + 1}.`);
  if (!Number.isFinite(result))
    throw new ExpressionError('The result is not a finite number (division by zero, or an empty list?).');
  return result;
}
