/**
 * What the extractive compressor guarantees on any input, at any budget: it quotes, never rewrites (every
 * kept piece is a span of the input, no word or value cut inside itself), JSON stays valid with every
 * value at its path and every cut list marked, an error result keeps its first line, the output is never
 * longer than the input, and an input it cannot cut is returned whole and says so.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../tokens/tokenizer.js';
import { compressExtractive, zeroBudgetResult } from './extractive.js';
import { errorFirstLine } from './extractive/units.js';
import { JsonNumber, parseJsonSource, type JsonSourceValue } from './json-source.js';
import { DEFAULT_HISTORY_RULES, DEFAULT_OBSERVATION_RULES, type ExtractiveRules } from './rules.js';
import { tokenBudget } from './token-budget.js';

// The marker a cut JSON list ends with (see omittedMarker); group 1 is the number of items left out.
const OMITTED_ITEMS = /^\[… (\d+) more items?\]$/u;

const WORDS = ['the', 'order', 'customer', 'shipped', 'refund', 'widget', 'blue', 'was', 'paid', 'card', 'late'];
const VALUES = [
  '-2580.0',
  '3.14159',
  '1,234,567.89',
  '#W2575533',
  'mia_li_3668',
  '2024-05-01',
  '12:45',
  'https://example.com/a/b?c=1',
  '550e8400-e29b-41d4-a716-446655440000',
  'SKU-88X2',
  '$299',
  '37.5%',
];

const word = fc.constantFrom(...WORDS, ...VALUES);
const sentence = fc
  .array(word, { minLength: 3, maxLength: 16 })
  .map((ws) => `${ws.join(' ').replace(/^./u, (c) => c.toUpperCase())}.`);
const prose = fc
  .array(fc.array(sentence, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 })
  .map((paras) => paras.map((p) => p.join(' ')).join('\n\n'));
const label = fc.constantFrom('Net income', 'Revenue', 'Total assets', 'Operating costs (1)', 'Tax*', 'Cash');
const cell = fc.constantFrom(...VALUES.slice(0, 3), '—', '(412)', '2,580', '-2580.0', '17');
const markdownTable = fc
  .array(fc.tuple(label, cell, cell), { minLength: 2, maxLength: 12 })
  .map((rows) =>
    ['| Item | 2019 | 2018 |', '| --- | --- | --- |', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n'),
  );
const cellPerLine = fc
  .array(fc.tuple(label, cell, cell), { minLength: 2, maxLength: 12 })
  .map((rows) => ['Year ended', '2019', '2018', ...rows.flat()].join('\n'));
const chat = fc
  .array(fc.tuple(fc.constantFrom('User', 'Assistant'), fc.array(sentence, { minLength: 1, maxLength: 5 })), {
    minLength: 2,
    maxLength: 12,
  })
  .map((turns) => turns.map(([who, says]) => `${who}: ${says.join(' ')}`).join('\n'));
const errorText = fc
  .tuple(
    fc.constantFrom(
      'Error: payment amount does not add up, total price is 375, but paid 299',
      'TypeError: Cannot read properties of undefined (reading -2580.0)',
      'HTTP/1.1 404 Not Found',
      'status: 503 service unavailable for order #W2575533',
      'Traceback (most recent call last):',
    ),
    prose,
  )
  .map(([first, rest]) => `${first}\n${rest}`);

const scalar = fc.oneof(
  fc.constantFrom(...VALUES),
  fc.constantFrom(...WORDS),
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const record = fc.record({
  id: fc.constantFrom(...VALUES.slice(3, 5), 'u1', 'u2'),
  name: word,
  amount: scalar,
  tags: fc.array(scalar, { maxLength: 4 }),
});
const jsonValue = fc.oneof(
  fc.array(record, { minLength: 1, maxLength: 30 }),
  fc.record({
    user_id: word,
    reservations: fc.array(record, { maxLength: 20 }),
    payment_methods: fc.array(record, { maxLength: 8 }),
  }),
  fc.jsonValue({ maxDepth: 4 }).filter((v) => typeof v === 'object' && v !== null),
  fc.record({ error: fc.oneof(word, sentence, record), code: fc.constantFrom(400, 404, 500) }),
);
// Numbers written as a tool writes them, `-2580.0` included: JSON.stringify would write `-2580`.
const jsonText = fc
  .tuple(jsonValue, fc.boolean())
  .map(([v, pretty]) => JSON.stringify(v, null, pretty ? 2 : undefined).replace(/-2580(?=[,}\]\s])/gu, '-2580.0'));

const anyInput = fc.oneof(prose, markdownTable, cellPerLine, chat, errorText, jsonText);
const budget = fc.record({
  ratio: fc.double({ min: 0.05, max: 1, noNaN: true }),
  maxTokens: fc.option(fc.nat({ max: 400 }), { nil: undefined }),
});

function rules(ratio: number): ExtractiveRules {
  return { ...DEFAULT_OBSERVATION_RULES, ratio };
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff01-\uff60]/u;
const atomsOf = (text: string): string[] => text.split(/\s+/u).filter(Boolean);

/**
 * Whether `line` is pieces of `input` joined by single spaces: each piece a substring of the input that
 * starts and ends at whitespace (or the input's ends).
 */
function isQuoted(line: string, input: string): boolean {
  let at = 0;
  while (at < line.length) {
    let end = line.length;
    while (end > at && !(input.includes(line.slice(at, end)) && (end === line.length || line[end] === ' ')))
      end = line.lastIndexOf(' ', end - 1);
    if (end <= at) return false;
    at = end + 1;
  }
  return true;
}

/** Whether `out` is `input` with fields and list items left out, cut lists ending in the marker. */
function embeds(out: JsonSourceValue, input: JsonSourceValue): boolean {
  if (out instanceof JsonNumber || input instanceof JsonNumber) {
    return out instanceof JsonNumber && input instanceof JsonNumber && out.raw === input.raw;
  }
  if (Array.isArray(out)) {
    if (!Array.isArray(input)) return false;
    const last = out[out.length - 1];
    const marker = typeof last === 'string' ? OMITTED_ITEMS.exec(last) : null;
    const items = marker ? out.slice(0, -1) : out;
    if (marker && Number(marker[1]) !== input.length - items.length) return false;
    if (!marker && items.length !== input.length) return false;
    let inputIndex = 0;
    for (const item of items) {
      while (inputIndex < input.length && !embeds(item, input[inputIndex] ?? null)) inputIndex += 1;
      if (inputIndex >= input.length) return false;
      inputIndex += 1;
    }
    return true;
  }
  if (typeof out === 'object' && out !== null) {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
    return Object.entries(out).every(([k, v]) => Object.hasOwn(input, k) && embeds(v, input[k] ?? null));
  }
  return out === input;
}

function checkInvariants(
  input: string,
  ratio: number,
  maxTokens: number | undefined,
  scoring: 'heuristic' | 'learned' = 'heuristic',
): void {
  const result = compressExtractive(input, {
    query: 'What was the refund on the blue widget order?',
    rules: rules(ratio),
    scoring,
    ...(maxTokens === undefined ? {} : { maxTokens }),
  });
  const inputTokens = countTokens(input);
  expect(result.inputTokens).toBe(inputTokens);
  expect(result.outputTokens).toBe(countTokens(result.text));
  // Never longer than the input.
  expect(result.outputTokens).toBeLessThanOrEqual(inputTokens);
  expect(result.text.length).toBeLessThanOrEqual(input.length);
  const limit = tokenBudget(inputTokens, ratio, maxTokens);
  if (result.irreducible) {
    expect(result.text).toBe(input);
  } else if (result.text !== input && !result.error) {
    expect(result.outputTokens).toBeLessThanOrEqual(limit);
  }
  const json = parseJsonSource(input.trim());
  if (json !== undefined && typeof json === 'object' && json !== null && !(json instanceof JsonNumber)) {
    const out = parseJsonSource(result.text.trim());
    expect(out, result.text).toBeDefined();
    expect(embeds(out ?? null, json), result.text).toBe(true);
    const error = (json as Record<string, JsonSourceValue>).error;
    if (!Array.isArray(json) && error !== undefined && error !== null) {
      expect(JSON.stringify((out as Record<string, unknown>).error)).toBe(JSON.stringify(error));
    }
    return;
  }
  // Quoted, never rewritten: every word of the output is a whole word of the input, every line pieces of it.
  // (In CJK script, which has no spaces, a cut between words is allowed: such atoms need only be spans.)
  const inputAtoms = new Set(atomsOf(input));
  for (const atom of atomsOf(result.text)) {
    if (CJK.test(atom)) expect(input.includes(atom)).toBe(true);
    else expect(inputAtoms.has(atom), `${atom} in ${result.text}`).toBe(true);
  }
  for (const line of result.text.split('\n').filter((l) => l.trim() !== '')) {
    expect(isQuoted(line.trim(), input), line).toBe(true);
  }
  const first = errorFirstLine(input);
  if (first !== undefined) expect(result.text.startsWith(first)).toBe(true);
}

describe('compressExtractive invariants', () => {
  it('hold on every format at every budget', () => {
    fc.assert(
      fc.property(anyInput, budget, (input, { ratio, maxTokens }) => checkInvariants(input, ratio, maxTokens)),
      { numRuns: 300 },
    );
  });

  it('hold with the learned scorer too: scores only change which units are chosen', () => {
    fc.assert(
      fc.property(anyInput, budget, (input, { ratio, maxTokens }) =>
        checkInvariants(input, ratio, maxTokens, 'learned'),
      ),
      { numRuns: 200 },
    );
  });

  it('hold at the smallest budgets, maxTokens 0 to 8', () => {
    fc.assert(
      fc.property(anyInput, fc.nat({ max: 8 }), (input, maxTokens) => checkInvariants(input, 1, maxTokens)),
      { numRuns: 150 },
    );
  });

  it('hold on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600, unit: 'grapheme' }), budget, (input, { ratio, maxTokens }) =>
        checkInvariants(input, ratio, maxTokens),
      ),
      { numRuns: 150 },
    );
  });

  it('at no budget at all, give back what zeroBudgetResult says without running, whatever the rules and query', () => {
    // The shortcut a history summary takes for each entry cut to a cap of zero: it must be the pipeline's own
    // answer, on every format, with keep, drop and score-floor rules, and on whitespace and arbitrary strings.
    const anyRules = fc.constantFrom<ExtractiveRules>(
      DEFAULT_OBSERVATION_RULES,
      DEFAULT_HISTORY_RULES,
      { ...DEFAULT_OBSERVATION_RULES, ratio: 1, minScore: 0.4 },
      { ...DEFAULT_OBSERVATION_RULES, keepPatterns: ['\\d'], dropPatterns: ['order'] },
      { ...DEFAULT_OBSERVATION_RULES, jsonKeepFields: ['id'], jsonDropFields: ['tags'] },
    );
    const someInput = fc.oneof(
      anyInput,
      fc.string({ maxLength: 300, unit: 'grapheme' }),
      fc.constantFrom(' ', '\n\n\t ', '{}', '[]', '"text"', '{"error": null}'),
    );
    const query = fc.constantFrom('', 'refund the order #W2575533', 'net income 2019');
    let known = 0;
    fc.assert(
      fc.property(someInput, anyRules, query, (input, ruleSet, question) => {
        const expected = compressExtractive(input, { query: question, rules: ruleSet, maxTokens: 0 }).text;
        const shortcut = zeroBudgetResult(input);
        if (shortcut !== undefined) {
          known += 1;
          expect(shortcut).toBe(expected);
        }
      }),
      { numRuns: 600 },
    );
    // Most inputs are known: the shortcut is taken, not only declined.
    expect(known).toBeGreaterThan(300);
  });

  it('return an input with no cut point whole, and say so', () => {
    const blob = 'x'.repeat(3000);
    const result = compressExtractive(blob, { query: 'x', rules: rules(0.3) });
    expect(result).toMatchObject({ text: blob, irreducible: true });
  });
});

describe('compressExtractive regressions', () => {
  it('never changes a value: -2580.0 stays -2580.0, in JSON and in text', () => {
    const rows = Array.from({ length: 40 }, (_, index) => ({
      id: `txn_${1000 + index}`,
      amount: index === 7 ? '__A__' : 10 + index,
      memo: `monthly transfer number ${index} to the savings account`,
    }));
    const input = JSON.stringify({ account: 'chk_88', transactions: rows }, null, 2).replace('"__A__"', '-2580.0');
    for (const ratio of [0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1]) {
      const { text } = compressExtractive(input, { query: 'What was the amount of txn_1007?', rules: rules(ratio) });
      expect(text).not.toMatch(/-258(?!0\.0)/u);
      expect(text).not.toMatch(/"amount":-2580(?!\.0)/u);
    }
    const sentenceInput = `The balance of account chk_88 moved by -2580.0 dollars after the refund ${'of the blue widget order '.repeat(8)}was applied.`;
    for (let maxTokens = 0; maxTokens < countTokens(sentenceInput); maxTokens += 1) {
      const { text } = compressExtractive(sentenceInput, { query: 'balance', rules: rules(1), maxTokens });
      expect(text).not.toMatch(/-258(?!0\.0)/u);
    }
  });

  it('keeps the whole first line of an error result, not `Error:`', () => {
    const error = 'Error: payment amount does not add up, total price is 375, but paid 299';
    const withDetails = `${error}\n${'The request was rejected by the payment service after validation. '.repeat(20)}`;
    for (const maxTokens of [0, 1, 3, 10, 20, 40, 80]) {
      for (const input of [error, withDetails]) {
        const result = compressExtractive(input, { query: 'refund the order', rules: rules(0.2), maxTokens });
        expect(result.text.startsWith(error)).toBe(true);
      }
    }
    const json = JSON.stringify({ error: error.slice(7), details: rowsOfText(30) });
    const result = compressExtractive(json, { query: 'refund', rules: rules(0.1) });
    expect((JSON.parse(result.text) as { error: string }).error).toBe(error.slice(7));
    expect(result.error).toBe(true);
  });

  it('marks a cut list, so it never reads as complete', () => {
    const user = {
      user_id: 'mia_li_3668',
      reservations: Array.from({ length: 12 }, (_, index) => ({
        reservation_id: `R${100 + index}`,
        origin: 'JFK',
        destination: 'SFO',
      })),
    };
    const result = compressExtractive(JSON.stringify(user), { query: 'reservation R105', rules: rules(0.3) });
    const out = JSON.parse(result.text) as { reservations?: unknown[] };
    if (out.reservations !== undefined && out.reservations.length <= 12) {
      expect(String(out.reservations[out.reservations.length - 1])).toMatch(OMITTED_ITEMS);
    }
  });
});

function rowsOfText(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `step ${i}: validation of the amount against the order total`);
}
