import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatRetailFacts, readRetailFacts, RETAIL_FACT_GRAMMAR, type RetailFacts } from './facts.js';
import { RETAIL_INSTRUCTION } from './policy.js';

const ORDER = {
  order_id: '#W2611340',
  user_id: 'james_li_5688',
  items: [
    { name: 'Water Bottle', product_id: '8310926033', item_id: '6469567736', price: 47.84, options: { color: 'blue' } },
    { name: 'Office Chair', product_id: '4794339885', item_id: '8426249116', price: 488.81, options: {} },
  ],
  status: 'cancelled',
  payment_history: [
    { transaction_type: 'payment', amount: 536.65, payment_method_id: 'gift_card_1725971' },
    { transaction_type: 'refund', amount: 536.65, payment_method_id: 'gift_card_1725971' },
  ],
};

describe('readRetailFacts', () => {
  it('reads a whole tool output', () => {
    const facts = readRetailFacts(JSON.stringify(ORDER, null, 2));
    expect(facts.orders.get('#W2611340')).toEqual({
      orderId: '#W2611340',
      userId: 'james_li_5688',
      status: 'cancelled',
      paidCents: 0,
      items: [
        { name: 'Water Bottle', productId: '8310926033', itemId: '6469567736', priceCents: 4784 },
        { name: 'Office Chair', productId: '4794339885', itemId: '8426249116', priceCents: 48881 },
      ],
    });
  });

  it('reads an order whose payment history lost fields, with the amount paid unknown', () => {
    const partial = { ...ORDER, payment_history: [{ payment_method_id: 'gift_card_1725971' }] };
    const order = readRetailFacts(JSON.stringify(partial)).orders.get('#W2611340');
    expect(order?.status).toBe('cancelled');
    expect(order?.items).toHaveLength(2);
    expect(order?.paidCents).toBeUndefined();
  });

  it('reads a variant keyed by its item id without the id repeated in the record', () => {
    const product = {
      product_id: '6945232052',
      variants: { '9320099340': { available: false }, '1007724142': { item_id: '1007724142', available: true } },
    };
    const known = readRetailFacts(JSON.stringify(product)).products.get('6945232052');
    expect(known?.availability.get('9320099340')).toBe(false);
    expect(known?.availability.get('1007724142')).toBe(true);
  });

  it('reads users, products and orders nested in listings and search results', () => {
    const listing = { user_id: 'james_li_5688', order_count: 1, orders: [ORDER] };
    const search = {
      query: 'shirt',
      products: [{ product_id: '9523456873', name: 'T-Shirt', variants: { '1': { item_id: '1', available: false } } }],
    };
    const facts = readRetailFacts(`${JSON.stringify(listing)}\n${JSON.stringify(search)}`);
    expect(facts.users.get('james_li_5688')?.orderIds).toEqual(['#W2611340']);
    expect(facts.orders.get('#W2611340')?.status).toBe('cancelled');
    expect(facts.products.get('9523456873')?.availability.get('1')).toBe(false);
  });

  it('reads JSON embedded in prose, and the complete objects inside a truncated one', () => {
    const prose = `The profile was {"user_id": "ana_b_1", "name": {"first_name": "Ana", "last_name": "B"}, "address": {"zip": "12345"}, "orders": ["#W1111111"]} as of today.`;
    expect(readRetailFacts(prose).users.get('ana_b_1')).toEqual({
      userId: 'ana_b_1',
      firstName: 'Ana',
      lastName: 'B',
      zip: '12345',
      orderIds: ['#W1111111'],
    });
    const listing = JSON.stringify(
      { user_id: 'james_li_5688', orders: [ORDER, { ...ORDER, order_id: '#W2222222' }] },
      null,
      2,
    );
    const cut = readRetailFacts(`${listing.slice(0, Math.floor(listing.length * 0.75))}\n... [truncated]`);
    expect(cut.orders.has('#W2611340')).toBe(true);
    // The listing itself was cut, so the user's order list is unknown rather than wrong.
    expect(cut.users.get('james_li_5688')?.orderIds).toBeUndefined();
  });

  it('reads fact lines of the documented grammar', () => {
    const summary = [
      'Progress so far:',
      '- user ana_b_1: name Ana B; zip 12345; orders #W1111111, W2222222',
      '* Order #W1111111: status Delivered; paid $1,234.50; items: Laptop 1,200.00 (item 111, product 999), "Mug" $34.50',
      'order #W2222222: status pending',
      'product 999: name Laptop; available 111, 112; unavailable 113',
    ].join('\n');
    const facts = readRetailFacts(summary);
    expect(facts.users.get('ana_b_1')).toEqual({
      userId: 'ana_b_1',
      firstName: 'Ana',
      lastName: 'B',
      zip: '12345',
      orderIds: ['#W1111111', '#W2222222'],
    });
    expect(facts.orders.get('#W1111111')).toEqual({
      orderId: '#W1111111',
      status: 'delivered',
      paidCents: 123450,
      items: [
        { name: 'Laptop', priceCents: 120000, itemId: '111', productId: '999' },
        { name: 'Mug', priceCents: 3450 },
      ],
    });
    // Fields left out are unknown, not empty.
    expect(facts.orders.get('#W2222222')).toEqual({ orderId: '#W2222222', status: 'pending' });
    expect([...(facts.products.get('999')?.availability ?? [])]).toEqual([
      ['111', true],
      ['112', true],
      ['113', false],
    ]);
  });

  it('finds no facts in the grammar description or the agent instruction', () => {
    for (const text of [RETAIL_FACT_GRAMMAR, RETAIL_INSTRUCTION]) {
      const facts = readRetailFacts(text);
      expect([facts.users.size, facts.orders.size, facts.products.size]).toEqual([0, 0, 0]);
    }
  });

  it('reads back what it formats', () => {
    const id = fc.stringMatching(/^\d{6,10}$/);
    const name = fc.constantFrom('Laptop', 'T-Shirt', 'LED Light Bulb', 'Water Bottle');
    const item = fc.record({ name, productId: id, itemId: id, priceCents: fc.integer({ min: 0, max: 10_000_000 }) });
    const order = fc.record({
      orderId: fc.stringMatching(/^#W\d{7}$/),
      userId: fc.stringMatching(/^[a-z]{2,6}_[a-z]{2,6}_\d{4}$/),
      status: fc.constantFrom('pending', 'delivered', 'cancelled', 'processed'),
      paidCents: fc.integer({ min: 0, max: 10_000_000 }),
      items: fc.array(item, { minLength: 1, maxLength: 5 }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(order, { selector: (o) => o.orderId, maxLength: 4 }), (orders) => {
        const facts: RetailFacts = {
          users: new Map([
            [
              'ana_b_1',
              {
                userId: 'ana_b_1',
                firstName: 'Ana',
                lastName: 'B',
                zip: '01234',
                orderIds: orders.map((o) => o.orderId),
              },
            ],
          ]),
          orders: new Map(orders.map((o) => [o.orderId, o])),
          products: new Map([
            [
              '999',
              {
                productId: '999',
                name: 'Laptop',
                availability: new Map([
                  ['1', true],
                  ['2', false],
                ]),
              },
            ],
          ]),
        };
        expect(readRetailFacts(formatRetailFacts(facts))).toEqual(facts);
      }),
    );
  });
});
