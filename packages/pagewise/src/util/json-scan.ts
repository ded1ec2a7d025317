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
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') stack.push(char === '{' ? '}' : ']');
    else if (char === '}' || char === ']') {
      if (stack.pop() !== char) return -1;
      if (stack.length === 0) return index + 1;
    }
  }
  return -1;
}

/** Deepest bracket nesting of a JSON text (brackets inside strings skipped), counted without recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') max = Math.max(max, ++depth);
    else if (char === '}' || char === ']') depth -= 1;
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
  for (let open = text.indexOf('{'); open >= 0;) {
    const end = closingBracket(text, open);
    const value = end > 0 ? parseContainer(text.slice(open, end)) : undefined;
    if (value !== undefined) {
      values.push(value);
      rest += `${text.slice(from, open)}\n`;
      from = end;
      open = text.indexOf('{', end);
    } else {
      open = text.indexOf('{', open + 1);
    }
  }
  return { values, rest: rest + text.slice(from) };
}
