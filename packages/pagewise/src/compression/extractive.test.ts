import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PagewiseError } from '../errors.js';
import { countTokens } from '../tokens/tokenizer.js';
import { compressExtractive, isIdentifierToken, TINY_INPUT_TOKENS } from './extractive.js';
import { DEFAULT_OBSERVATION_RULES } from './rules.js';
import type { ExtractiveRules } from './rules.js';

const NO_PROTECTION = { numbers: false, identifiers: false, dates: false, urls: false, errors: false, headers: false };

function rules(overrides: Partial<ExtractiveRules> = {}): ExtractiveRules {
  return { ...DEFAULT_OBSERVATION_RULES, ...overrides };
}

const WORDS = [
  'the',
  'order',
  'customer',
  'shipped',
  'pending',
  'refund',
  'widget',
  'blue',
  'large',
  'address',
  'was',
  'updated',
  'and',
  'payment',
  'card',
];

// Random prose, logs and tables, with ids, numbers and blank lines mixed in.
const randomText = fc
  .array(
    fc.oneof(
      fc.array(fc.constantFrom(...WORDS), { minLength: 3, maxLength: 14 }).map((w) => `${w.join(' ')}.`),
      fc.integer({ min: 1000000, max: 9999999 }).map((n) => `Order #W${n} costs $${n % 1000}.99.`),
      fc.constantFrom(
        '\n',
        '\n\n',
        '- item line',
        'ERROR: payment declined',
        '| a | b |',
        'user_id: mia_li_3668',
        '## Section',
      ),
      fc.string({ maxLength: 30 }),
    ),
    { minLength: 1, maxLength: 80 },
  )
  .map((parts) => parts.join(' '));

describe('compressExtractive', () => {
  it('keeps the output within ratio · input tokens on random texts', () => {
    fc.assert(
      fc.property(
        randomText,
        fc.double({ min: 0.2, max: 0.8, noNaN: true }),
        fc.constantFrom('sentence' as const, 'line' as const, 'auto' as const),
        (text, ratio, unit) => {
          const result = compressExtractive(text, {
            query: 'refund the blue widget order',
            rules: rules({ ratio, unit }),
          });
          expect(result.inputTokens).toBe(countTokens(text));
          expect(result.outputTokens).toBe(countTokens(result.text));
          // Over the budget only as the invariants allow: an input with no cut point comes back whole and
          // says so, an error result keeps its first line.
          if (result.irreducible) expect(result.text).toBe(text);
          else if (result.error) {
            expect(text.trimStart().startsWith((result.text.split('\n')[0] ?? '').trimStart())).toBe(true);
          } else if (result.inputTokens > TINY_INPUT_TOKENS) {
            expect(result.outputTokens).toBeLessThanOrEqual(Math.floor(ratio * result.inputTokens));
            expect(result.outputTokens / result.inputTokens).toBeLessThanOrEqual(ratio);
          } else {
            expect(result.text).toBe(text);
          }
          expect(result.kept).toBeLessThanOrEqual(result.total);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps the ratio on arbitrary strings, or returns an input it cannot cut whole', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 0, maxLength: 600, unit: 'grapheme' }),
        fc.double({ min: 0.2, max: 0.8, noNaN: true }),
        (text, ratio) => {
          const result = compressExtractive(text, { query: 'x', rules: rules({ ratio }) });
          if (result.irreducible) expect(result.text).toBe(text);
          else if (result.inputTokens > TINY_INPUT_TOKENS && !result.error)
            expect(result.outputTokens).toBeLessThanOrEqual(Math.floor(ratio * result.inputTokens));
        },
      ),
      { numRuns: 150 },
    );
    // A long sentence is cut to whole words when nothing fits whole.
    const long = `${'The refund of the blue widget order was approved '.repeat(40)}today.`;
    const cut = compressExtractive(long, { query: 'refund', rules: rules({ ratio: 0.3 }) });
    expect(cut.outputTokens).toBeGreaterThan(0);
    expect(cut.outputTokens).toBeLessThanOrEqual(Math.floor(0.3 * cut.inputTokens));
    expect(long.startsWith(`${cut.text} `)).toBe(true);
  });

  it('returns tiny inputs unchanged', () => {
    const text = 'Order #W1234567 is pending.';
    expect(countTokens(text)).toBeLessThanOrEqual(TINY_INPUT_TOKENS);
    expect(compressExtractive(text, { query: 'order', rules: rules({ ratio: 0.2 }) })).toMatchObject({
      text,
      kept: 1,
      total: 1,
    });
    // ...but a maxTokens below the input still applies.
    expect(compressExtractive(text, { query: 'order', rules: rules(), maxTokens: 3 }).outputTokens).toBeLessThanOrEqual(
      3,
    );
  });

  it('uses maxTokens when it is below the ratio budget', () => {
    const text = Array.from({ length: 40 }, (_, i) => `Line ${i} says the widget order is fine.`).join('\n');
    const result = compressExtractive(text, { query: 'widget', rules: rules({ ratio: 0.8 }), maxTokens: 50 });
    expect(result.outputTokens).toBeLessThanOrEqual(50);
    expect(result.outputTokens).toBeGreaterThan(30);
  });

  it('keeps the units most relevant to the query, in original order', () => {
    const text = [
      'The weather in the city was mild all week.',
      'The refund for the blue widget was approved by the store.',
      'Traffic on the bridge was heavy on Monday.',
      'Lunch was served in the garden under the trees.',
      'The blue widget refund reached the card on Friday.',
      'A concert took place in the park at night.',
    ].join(' ');
    const result = compressExtractive(text, {
      query: 'blue widget refund',
      rules: rules({ ratio: 0.45, alwaysKeep: NO_PROTECTION }),
    });
    expect(result.text).toBe(
      'The refund for the blue widget was approved by the store. The blue widget refund reached the card on Friday.',
    );
    expect(result.kept).toBe(2);
    expect(result.total).toBe(6);
  });

  it('matches an acronym of the query to the words the text spells it with, and a plural in -ies to its singular', () => {
    // A statement page as PDF extraction writes it: the rows the question means share no word with it.
    const page = [
      'Operating expenses were as follows (dollars in millions):',
      'Three Months Ended',
      'April 1,',
      '2023',
      'Selling and marketing $ 1,412 $ 1,655',
      'Research and',
      'development',
      'expenses $ 4,109 $ 4,362',
      'General and administrative 1,066 1,270',
      'Cost of sales 9,731 10,147',
      'Inventories 13,224 13,209',
      'Restructuring charges 64 188',
    ].join('\n');
    const keep = (query: string): string =>
      compressExtractive(page, { query, rules: rules({ ratio: 0.5, alwaysKeep: NO_PROTECTION }) }).text;
    const rd = keep('How much did the company spend on R&D?');
    // The wrapped row comes whole, with its column headers.
    expect(rd).toContain('Research and\ndevelopment\nexpenses $ 4,109 $ 4,362');
    expect(rd).toContain('April 1,\n2023');
    expect(keep('What were the inventory levels?')).toContain('Inventories 13,224 13,209');
    // Without the acronym or the word, neither row is the one kept first.
    expect(keep('How much was spent on marketing?')).not.toContain('Research and');
  });

  it('prefers units holding identifiers and numbers over equally relevant ones', () => {
    const filler = (i: number): string => `The account note ${'abcdefghij'[i]} was written by the support team.`;
    const lines = [
      filler(0),
      'The account order #W7342738 was written by the support team.',
      filler(1),
      filler(2),
      'The account total 1299.50 was written by the support team.',
      filler(3),
      filler(4),
      filler(5),
    ];
    const text = lines.join('\n');
    const protectedResult = compressExtractive(text, { query: 'account', rules: rules({ ratio: 0.35, unit: 'line' }) });
    expect(protectedResult.kept).toBe(2);
    expect(protectedResult.text).toContain('#W7342738');
    expect(protectedResult.text).toContain('1299.50');
    const plain = compressExtractive(text, {
      query: 'account',
      rules: rules({ ratio: 0.35, unit: 'line', alwaysKeep: NO_PROTECTION }),
    });
    expect(plain.text.includes('#W7342738') && plain.text.includes('1299.50')).toBe(false);
  });

  it('prefers error lines and keeps a kept line with its markdown heading', () => {
    const log = [
      '## Worker 3',
      ...Array.from({ length: 12 }, (_, i) => `step ${i}: processed batch quietly`),
      'step 12: ERROR connection refused by db-primary',
      ...Array.from({ length: 12 }, (_, i) => `step ${i + 13}: processed batch quietly`),
    ].join('\n');
    const result = compressExtractive(log, {
      query: 'why did the worker stop',
      rules: rules({ ratio: 0.2, unit: 'line' }),
    });
    expect(result.text).toContain('ERROR connection refused by db-primary');
    expect(result.text.startsWith('## Worker 3\n')).toBe(true);
  });

  it('follows a well-ranked sentence to the paragraph titled with the name it mentions (second hop)', () => {
    const text = [
      'Harbor Bridge: The Harbor Bridge crosses the bay at Porton. It was designed by Ilse Varnholt and opened in 1932. Its main span is 503 metres long.',
      'Porton Bay Ferry: The Porton Bay Ferry crossed the bay before the bridge opened. Its last crossing was in 1932. The ferry boats were sold to a company upriver.',
      'Ilse Varnholt: Ilse Varnholt was trained as a shipwright in Kiel before she studied engineering. She later taught structural mechanics at a technical college for thirty years.',
      'Bay Tunnel: A tunnel under the bay was proposed in 1925 and again in 1960. Neither plan was built, since the bridge carried the traffic. The designs are kept in the city archive.',
      'Porton: Porton is a port city on the bay with a fishing harbour. Its old town has narrow streets and a market hall. The bridge and the ferry pier are its landmarks.',
      'Bay Regatta: The bay regatta is held every summer since 1901. Boats start below the bridge and race to the ferry pier. Crowds watch from the bridge.',
    ].join('\n\n');
    const result = compressExtractive(text, {
      query: 'Where was the designer of the bridge across the bay at Porton trained?',
      rules: rules({ ratio: 0.45 }),
    });
    expect(result.text).toContain('It was designed by Ilse Varnholt');
    expect(result.text).toContain('Ilse Varnholt was trained as a shipwright in Kiel');
  });

  it('applies keep, drop and minScore rules', () => {
    const text = Array.from({ length: 20 }, (_, line) =>
      line === 17 ? 'status: cancelled by user' : `debug: heartbeat ${line} on the widget channel`,
    ).join('\n');
    const kept = compressExtractive(text, {
      query: 'widget channel',
      rules: rules({ ratio: 0.2, keepPatterns: ['^status:'] }),
    });
    expect(kept.text).toContain('status: cancelled by user');
    const dropped = compressExtractive(text, {
      query: 'widget channel',
      rules: rules({ ratio: 0.8, dropPatterns: ['^DEBUG:'] }),
    });
    expect(dropped.text).toBe('status: cancelled by user');
    const both = compressExtractive(text, {
      query: 'widget',
      rules: rules({ ratio: 0.8, dropPatterns: ['heartbeat', 'status'], keepPatterns: ['status'] }),
    });
    expect(both.text).toBe('status: cancelled by user');
    const strict = compressExtractive(text, { query: 'cancelled', rules: rules({ ratio: 0.8, minScore: 0.9 }) });
    expect(strict.text).toBe('status: cancelled by user');
  });

  it('refuses invalid rules', () => {
    expect(() => compressExtractive('text', { query: '', rules: rules({ ratio: 0 }) })).toThrow(/ratio/u);
    try {
      compressExtractive('text', { query: '', rules: rules({ keepPatterns: ['(('] }) });
      expect.unreachable();
    } catch (error) {
      expect(PagewiseError.isInstance(error) && error.code).toBe('invalid-rule-pattern');
    }
  });
});

describe('compressExtractive on JSON', () => {
  const orders = {
    user_id: 'mia_li_3668',
    orders: Array.from({ length: 12 }, (_, index) => ({
      order_id: `#W${4000000 + index}`,
      status: index === 7 ? 'pending' : 'delivered',
      items: [
        {
          name: index === 7 ? 'Blue Water Bottle' : 'Desk Lamp',
          price: 20 + index,
          options: { color: index === 7 ? 'blue' : 'white', capacity: '750ml' },
        },
      ],
      metadata: { created_by: 'system', trace: `trace-${index}-${'z'.repeat(12)}` },
    })),
  };

  it('outputs valid compact JSON within the ratio, ids, kept fields and the relevant record first', () => {
    const input = JSON.stringify(orders, null, 2);
    const result = compressExtractive(input, {
      query: 'return the blue water bottle',
      rules: rules({ ratio: 0.4, jsonDropFields: ['metadata'] }),
    });
    const parsed = JSON.parse(result.text) as typeof orders;
    expect(result.text).toBe(JSON.stringify(parsed));
    expect(result.outputTokens).toBeLessThanOrEqual(Math.floor(0.4 * result.inputTokens));
    expect(parsed.user_id).toBe('mia_li_3668');
    expect(parsed.orders.map((o) => o.order_id)).toHaveLength(12);
    expect(result.text).not.toContain('trace-');
    const blue = parsed.orders.find((o) => o.order_id === '#W4000007');
    expect(blue?.status).toBe('pending');
    expect(blue?.items?.[0]?.name).toBe('Blue Water Bottle');
  });

  it('keeps JSON valid on random values and ratios', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.object({ maxDepth: 3 }), fc.array(fc.jsonValue({ maxDepth: 3 }))),
        fc.double({ min: 0.2, max: 0.8, noNaN: true }),
        (value, ratio) => {
          const input = JSON.stringify(value);
          const result = compressExtractive(input, { query: 'id name', rules: rules({ ratio }) });
          expect(() => JSON.parse(result.text) as unknown).not.toThrow();
          if (result.inputTokens > TINY_INPUT_TOKENS && !result.irreducible && !result.error)
            expect(result.outputTokens).toBeLessThanOrEqual(Math.floor(ratio * result.inputTokens));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('compressExtractive on JSON: field paths and id-keyed records', () => {
  const order = {
    order_id: '#W1',
    address: { zip: '10001', street: '1 Main Street', city: 'New York' },
    items: [
      { name: 'Kettle', price: 30.5, options: { color: 'red', size: 'large' } },
      { name: 'Lamp', price: 12, options: { color: 'white', size: 'small' } },
    ],
    payment: { price: 42.5, method: 'card_123' },
  };
  const only = (fields: string[]): ExtractiveRules => rules({ ratio: 1, minScore: 99, jsonKeepFields: fields });

  it('match dotted runs of keys, array indices skipped, and * for any one key', () => {
    const keep = (fields: string[]): unknown =>
      JSON.parse(compressExtractive(JSON.stringify(order, null, 2), { query: 'x', rules: only(fields) }).text);
    expect(keep(['order_id', 'items.price'])).toEqual({ order_id: '#W1', items: [{ price: 30.5 }, { price: 12 }] });
    expect(keep(['items.*.color'])).toEqual({
      items: [{ options: { color: 'red' } }, { options: { color: 'white' } }],
    });
    expect(keep(['zip'])).toEqual({ address: { zip: '10001' } });
    const dropped = JSON.parse(
      compressExtractive(JSON.stringify(order, null, 2), {
        query: 'x',
        rules: rules({ ratio: 1, jsonDropFields: ['items.options', 'address'] }),
      }).text,
    ) as typeof order;
    expect(dropped).toEqual({
      order_id: '#W1',
      items: [
        { name: 'Kettle', price: 30.5 },
        { name: 'Lamp', price: 12 },
      ],
      payment: order.payment,
    });
  });

  it('rank the entries of an id-keyed map as records: the one the query names keeps its fields before the others keep their ids', () => {
    const variants = Object.fromEntries(
      Array.from({ length: 12 }, (_, index) => {
        const id = String(4000000000 + index * 7919);
        return [
          id,
          { item_id: id, available: index % 3 === 0, options: { color: ['red', 'blue', 'green'][index % 3] } },
        ];
      }),
    );
    const product = { product_id: '8310926033', variants };
    const wanted = String(4000000000 + 5 * 7919);
    const result = compressExtractive(JSON.stringify(product, null, 2), {
      // The context repeats the structural words of the records ("item", "id") many times; the id is rare.
      query: `Is item ${wanted} of product 8310926033 still available?\n${JSON.stringify({ items: Array.from({ length: 6 }, (_, i) => ({ item_id: i === 0 ? wanted : `99${i}`, product_id: '8310926033' })) })}`,
      // minScore on the hand-set scale; the learned scorer's scores are probabilities, checked by budget below.
      rules: rules({ ratio: 1, minScore: 0.8, jsonDropFields: ['options'] }),
      scoring: 'heuristic',
    });
    const kept = JSON.parse(result.text) as { variants: Record<string, { item_id?: string; available?: boolean }> };
    // The record's key shows its id: the item_id field that repeats it is left out beside a kept field.
    expect(kept.variants[wanted]).toEqual({ available: false });
    for (const [id, variant] of Object.entries(kept.variants))
      if (id !== wanted) expect(variant.available).toBeUndefined();
    // Under a budget that holds the ids and a few more fields, both scorers give the first to the named record
    // (the rest of the budget is filled with other records' fields, but not all of them fit).
    for (const scoring of ['heuristic', 'learned'] as const) {
      const tight = compressExtractive(JSON.stringify(product, null, 2), {
        query: `Is item ${wanted} of product 8310926033 still available?\n${JSON.stringify({ items: Array.from({ length: 6 }, (_, i) => ({ item_id: i === 0 ? wanted : `99${i}`, product_id: '8310926033' })) })}`,
        rules: rules({ ratio: 0.2, jsonDropFields: ['options'] }),
        scoring,
      });
      const variantsKept = (JSON.parse(tight.text) as typeof kept).variants;
      expect(variantsKept[wanted], scoring).toEqual({ available: false });
      const others = Object.entries(variantsKept).filter(([id]) => id !== wanted);
      expect(others.filter(([, v]) => v.available !== undefined).length, scoring).toBeLessThan(others.length);
    }
  });

  it("write a field that repeats its entry key once: as the key, with the entry's kept fields or alone", () => {
    const variants = Object.fromEntries(
      Array.from({ length: 8 }, (_, index) => {
        const id = String(5000000000 + index * 104729);
        return [id, { item_id: id, available: index % 2 === 0, price: 10 + index }];
      }),
    );
    const input = JSON.stringify({ product_id: '8310926033', variants }, null, 2);
    const full = compressExtractive(input, { query: 'x', rules: rules({ ratio: 1 }) });
    const kept = JSON.parse(full.text) as { variants: Record<string, Record<string, unknown>> };
    // Nothing is lost: every id is a key, every other field is there; only the repeats are gone.
    expect(Object.keys(kept.variants)).toEqual(Object.keys(variants));
    for (const [id, variant] of Object.entries(variants))
      expect(kept.variants[id]).toEqual({ available: variant.available, price: variant.price });
    expect(full.outputTokens).toBeLessThan(countTokens(JSON.stringify({ product_id: '8310926033', variants })));
    // A rule keeping only the ids keeps them as bare keys.
    const ids = compressExtractive(input, { query: 'x', rules: only(['variants.*.item_id']) });
    expect(JSON.parse(ids.text)).toEqual({ variants: Object.fromEntries(Object.keys(variants).map((id) => [id, {}])) });
  });

  it('keep a short list of scalars whole or not at all, under any budget', () => {
    const user = {
      user_id: 'mia_li_3668',
      name: { first_name: 'Mia', last_name: 'Li' },
      address: { zip: '32286', city: 'Chicago', street: '320 Cedar Avenue' },
      orders: ['#W3792453', '#W7181492', '#W5565470', '#W2575533'],
    };
    const input = JSON.stringify(user, null, 2);
    const seen = new Set<string>();
    for (let cap = 8; cap <= 80; cap += 2) {
      const kept = JSON.parse(
        compressExtractive(input, {
          query: 'Which orders of Mia Li are pending?',
          rules: rules({ ratio: 1 }),
          maxTokens: cap,
        }).text,
      ) as { orders?: string[] };
      // A cut list would still read as the customer's whole order list.
      if (kept.orders !== undefined) expect(kept.orders).toEqual(user.orders);
      seen.add(kept.orders === undefined ? 'without' : 'whole');
    }
    expect([...seen].sort()).toEqual(['whole', 'without']);
  });

  it('bring the id of the whole object with a field of a record inside it, and keep its own forced fields first', () => {
    const big = {
      order_id: '#W2575533',
      status: 'pending',
      items: Array.from({ length: 6 }, (_, index) => ({
        name: ['Kettle', 'Lamp', 'Hose', 'Mat', 'Tent', 'Desk'][index],
        product_id: String(1762337868 + index * 7919),
        item_id: String(4806644905 + index * 104729),
        price: 100 + index,
      })),
    };
    const input = JSON.stringify(big, null, 2);
    for (const cap of [20, 30, 45]) {
      const kept = JSON.parse(
        compressExtractive(input, { query: 'What did the Tent cost?', rules: rules({ ratio: 1 }), maxTokens: cap })
          .text,
      ) as { order_id?: string; items?: unknown[] };
      if (kept.items !== undefined) expect(kept.order_id).toBe('#W2575533');
    }
    // Fields a rule forces in bring the object's id when a rule forces it too, and only then.
    for (const cap of [20, 30, 45]) {
      const kept = JSON.parse(
        compressExtractive(input, {
          query: 'What did the Tent cost?',
          rules: only(['order_id', 'items.product_id', 'items.price']),
          maxTokens: cap,
        }).text,
      ) as { order_id?: string; items?: unknown[] };
      if (kept.items !== undefined) expect(kept.order_id).toBe('#W2575533');
    }
    // Forced fields of the whole object come before forced fields of its parts: they describe all of it.
    for (const cap of [25, 40]) {
      const kept = JSON.parse(
        compressExtractive(JSON.stringify({ ...big, status: 'delivered' }), {
          query: 'Which orders can still be modified?',
          rules: only(['order_id', 'status', 'items.product_id', 'items.item_id']),
          maxTokens: cap,
        }).text,
      ) as { status?: string; items?: unknown[] };
      expect(kept.status).toBe('delivered');
    }
    const itemsOnly = JSON.parse(compressExtractive(input, { query: 'x', rules: only(['items.price']) }).text);
    expect(itemsOnly).toEqual({ items: big.items.map((i) => ({ price: i.price })) });
  });

  it('leave an input already compressed by the same rules as it is', () => {
    const once = compressExtractive(JSON.stringify(order, null, 2), {
      query: 'x',
      rules: only(['order_id', 'items.name', 'items.price', 'zip']),
    });
    const twice = compressExtractive(once.text, {
      query: 'x',
      rules: only(['order_id', 'items.name', 'items.price', 'zip']),
    });
    expect(twice.text).toBe(once.text);
  });
});

describe('compressExtractive: lossless before lossy', () => {
  // A customer record as an API returns it, pretty-printed: its compact form is far smaller.
  const customer = {
    user: {
      name: 'Marco Vitiello',
      user_id: 'mv93f8a7b2',
      address: '2847 South Lamar Boulevard, Austin, TX 78704',
      email: 'marco.vitiello@gmail.com',
      phone_number: '512-555-0847',
      date_of_birth: '08/22/1993',
    },
    accounts: Array.from({ length: 6 }, (_, index) => ({
      account_id: `acc_${4100 + index}`,
      currency: ['USD', 'EUR', 'JPY'][index % 3],
      balance: -2580.0 + index * 1234.5,
      opened: `2021-0${1 + index}-15`,
      note: `Account number ${index + 1} was opened for travel spending in another currency and has a monthly fee.`,
    })),
  };
  const pretty = JSON.stringify(customer, null, 8).replace('-2580,', '-2580.0,');
  const compact = JSON.stringify(customer).replace('-2580,', '-2580.0,');
  const query = 'Which account of Marco Vitiello is in EUR?';

  it('returns the compact JSON whole when it fits the budget: every value kept, none changed', () => {
    const ratio = (countTokens(compact) + 2) / countTokens(pretty);
    expect(ratio).toBeLessThan(1);
    const result = compressExtractive(pretty, { query, rules: rules({ ratio }) });
    expect(result.text).toBe(compact);
    expect(result.kept).toBe(result.total);
    // Just under the compact size, a field has to go.
    const under = compressExtractive(pretty, {
      query,
      rules: rules({ ratio: (countTokens(compact) - 2) / countTokens(pretty) }),
    });
    expect(under.text).not.toBe(compact);
    expect(under.kept).toBeLessThan(under.total);
  });

  it('returns text whole with spare blank lines and trailing spaces cut when that fits', () => {
    const text = Array.from(
      { length: 12 },
      (_, i) => `Order #W${1000 + i} shipped on 2024-05-0${1 + (i % 9)}.   `,
    ).join('\n\n\n\n\n');
    const collapsed = text.replace(/ +$/gmu, '').replace(/\n{3,}/gu, '\n\n');
    const ratio = (countTokens(collapsed) + 1) / countTokens(text);
    expect(ratio).toBeLessThan(1);
    const result = compressExtractive(text, { query: 'When did order #W1003 ship?', rules: rules({ ratio }) });
    expect(result.text).toBe(collapsed);
  });

  it('still applies drop rules when the compact form would fit', () => {
    const result = compressExtractive(pretty, { query, rules: rules({ ratio: 1, jsonDropFields: ['note'] }) });
    expect(result.text).not.toContain('travel spending');
    expect(JSON.parse(result.text)).toMatchObject({ user: customer.user });
  });

  it("ranks the whole object's own fields with its most relevant record, not below every record", () => {
    const statement = {
      customer: { name: 'Marco Vitiello', email: 'marco.vitiello@gmail.com', phone: '512-555-0847' },
      transactions: Array.from({ length: 16 }, (_, index) => ({
        transaction_id: `txn_${(0x5a3c10 + index * 977).toString(16)}`,
        merchant: ['Coffee House', 'Book Store', 'ATM abroad', 'Grocer'][index % 4],
        amount: 12.5 + index,
        description: `Card payment ${index + 1} at the merchant, settled in USD after the usual clearing delay.`,
      })),
    };
    const text = JSON.stringify(statement, null, 2);
    const result = compressExtractive(text, {
      query: 'Marco Vitiello disputes the ATM abroad charges on his card.',
      rules: rules({ ratio: 0.25 }),
      scoring: 'heuristic',
    });
    expect((JSON.parse(result.text) as typeof statement).customer).toEqual(statement.customer);
  });

  it('fills the budget when the compact form does not fit: the unused part is smaller than any unit left out', () => {
    for (const scoring of ['heuristic', 'learned'] as const) {
      const result = compressExtractive(pretty, { query, rules: rules({ ratio: 0.3 }), scoring });
      const budget = Math.floor(0.3 * countTokens(pretty));
      expect(result.outputTokens, scoring).toBeLessThanOrEqual(budget);
      const kept = JSON.parse(result.text) as { user?: Record<string, string> };
      // The customer's own short fields (an id, a phone number, a date) each cost a few tokens.
      const left = Object.entries(customer.user).filter(([key]) => kept.user?.[key] === undefined);
      for (const [key, value] of left) {
        const cost = countTokens(`,${JSON.stringify(key)}:${JSON.stringify(value)}`);
        expect([scoring, key, budget - result.outputTokens < cost + 2]).toEqual([scoring, key, true]);
      }
    }
  });
});

describe('isIdentifierToken', () => {
  it.each(['#W1234567', 'order_id', 'userId', 'W1234567', 'pm_card_123', '3f2b9c1e-8a7d-4b2c-9e1f-0a1b2c3d4e5f'])(
    'accepts %s',
    (token) => {
      expect(isIdentifierToken(token)).toBe(true);
    },
  );
  it.each(['1960s', '4th', 'order', 'Kessler', '2015'])('rejects %s', (token) => {
    expect(isIdentifierToken(token)).toBe(false);
  });
});
