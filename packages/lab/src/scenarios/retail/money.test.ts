import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findMoney, formatCents, moneyAmounts, toCents } from './money.js';

describe('money', () => {
  it('converts stored dollar amounts to cents without float drift', () => {
    expect(toCents(0.1 + 0.2)).toBe(30);
    expect(toCents(488.81)).toBe(48881);
    expect(formatCents(48881)).toBe('$488.81');
    expect(formatCents(5)).toBe('$0.05');
    expect(formatCents(-1250)).toBe('-$12.50');
  });

  it('reads amounts written in the usual ways, exactly', () => {
    const cents = (text: string) => findMoney(text).map((m) => m.cents);
    expect(cents('$1,234.5')).toEqual([123450]);
    expect(cents('USD 1234.50')).toEqual([123450]);
    expect(cents('total: 7319.93.')).toEqual([731993]);
    expect(cents('12.345')).toEqual([1235]);
    expect(cents('-$5.00 and -2.5')).toEqual([-500, -250]);
  });

  it('skips ids: order ids, product and item ids', () => {
    expect(findMoney('order #W2611340, product 8310926033, item W1234567')).toEqual([]);
    expect(findMoney('$1234567')).toHaveLength(1);
  });

  it('prefers numbers written like money, falling back to bare numbers', () => {
    expect(moneyAmounts('3 orders, $12.00 in total').map((m) => m.cents)).toEqual([1200]);
    expect(moneyAmounts('about 12').map((m) => m.cents)).toEqual([1200]);
  });

  it('reads back every formatted amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), (cents) => {
        const found = findMoney(`paid ${formatCents(cents)}; done`);
        expect(found.map((m) => [m.cents, m.money])).toEqual([[cents, true]]);
      }),
    );
  });
});
