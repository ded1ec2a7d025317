/**
 * One scanner for JSON quoted inside free text (tool results in a transcript, a summary, model
 * arguments): it finds containers by their brackets, skipping strings, without recursion, so deep or
 * hostile input cannot overflow the stack.
 */

/**
 * Index just past the `}` or `]` that closes the container opening at `start`, or -1 when it is never
 * closed or a closing bracket does not match its opener. Brackets inside strings are skipped.
 */
export function closingBracket(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') stack.push(c === '{' ? '}' : ']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

/** Deepest bracket nesting of a JSON text (brackets inside strings skipped), counted without recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') max = Math.max(max, ++depth);
    else if (c === '}' || c === ']') depth -= 1;
  }
  return max;
}

function parseContainer(text: string): object | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The JSON containers in a text and the text around them: the whole text when it is one JSON object or
 * array, else every outermost `{…}` that parses. An object cut short (a truncated observation) is
 * skipped, but complete objects inside it still count. `rest` is the text outside the values, with a
 * line break where each value was.
 *
 * @example
 * scanJson('found {"id": 1} and {"id": 2}').values; // [{ id: 1 }, { id: 2 }]
 */
export function scanJson(text: string): { values: object[]; rest: string } {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const whole = parseContainer(trimmed);
    if (whole !== undefined) return { values: [whole], rest: '' };
  }
  const values: object[] = [];
  let rest = '';
  let from = 0;
  for (let i = text.indexOf('{'); i >= 0;) {
    const end = closingBracket(text, i);
    const value = end > 0 ? parseContainer(text.slice(i, end)) : undefined;
    if (value !== undefined) {
      values.push(value);
      rest += `${text.slice(from, i)}\n`;
      from = end;
      i = text.indexOf('{', end);
    } else {
      i = text.indexOf('{', i + 1);
    }
  }
  return { values, rest: rest + text.slice(from) };
}
