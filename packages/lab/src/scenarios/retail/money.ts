/**
 * Money in the retail scenario: amounts are compared in integer cents, because summing float dollars
 * (0.1 + 0.2) would make a right answer miss the gold by a fraction of a cent.
 */

/** Converts a dollar amount as stored in the data (two decimals) to integer cents. */
export function toCents(dollars: number): number {
  return Math.round(dollars * 100);
}

/** Formats cents as `$1234.56`: no thousands separator, so a price never contains a list separator. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** A number found in free text. */
export interface MoneyMention {
  /** The value in cents (a bare `12` reads as 1200 cents). */
  cents: number;
  /** True when written like money: with a `$` sign or with decimals. */
  money: boolean;
  /** Where it starts in the text. */
  index: number;
}

// A number not glued to a word, an id (`#W1234567`) or another number; thousands separators allowed.
const NUMBER = /(?<![\w#.$])(-)?(\$\s?)?(-)?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w])/g;

/**
 * Finds the numbers in a text and reads them as dollar amounts, exactly (no float parsing): `$1,234.5`,
 * `1234.50` and `USD 1234.5` all give 123450 cents. Long digit runs (7 or more digits, no decimals) are
 * skipped as ids (product and item ids), not amounts.
 */
export function findMoney(text: string): MoneyMention[] {
  const found: MoneyMention[] = [];
  for (const match of text.matchAll(NUMBER)) {
    const [, minusBefore, dollarSign, minusAfter, whole = '', fraction] = match;
    const digits = whole.replace(/,/g, '');
    if (fraction === undefined && !dollarSign && digits.length >= 7) continue;
    const frac = (fraction ?? '').padEnd(3, '0');
    // Round half up on the third decimal, so `12.345` reads as 1235 cents.
    let cents = Number(digits) * 100 + Number(frac.slice(0, 2)) + (Number(frac[2]) >= 5 ? 1 : 0);
    if (minusBefore || minusAfter) cents = -cents;
    found.push({ cents, money: Boolean(dollarSign) || fraction !== undefined, index: match.index });
  }
  return found;
}

/** The amounts of {@link findMoney} written like money, or every number when none is. */
export function moneyAmounts(text: string): MoneyMention[] {
  const all = findMoney(text);
  const money = all.filter((m) => m.money);
  return money.length > 0 ? money : all;
}
