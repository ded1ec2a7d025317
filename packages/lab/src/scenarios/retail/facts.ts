/**
 * What an agent can know about the retail data from the text in front of it: records read from tool
 * output JSON (whole, or fragments embedded in other text) and from plain fact lines, the form a history
 * summary or a compressed observation can use to keep them. The offline policy knows only what this
 * module finds in its prompt.
 */
import { z } from 'zod';
import { findMoney, formatCents, toCents } from './money.js';
import { scanJson } from 'pagewise/internal';

/** One line of an order, as far as it is known. */
export interface KnownItem {
  name?: string;
  productId?: string;
  itemId?: string;
  priceCents?: number;
}

/** An order, as far as it is known. `items`, when present, is taken to be the whole list. */
export interface KnownOrder {
  orderId: string;
  userId?: string;
  /** Lower case: `pending`, `processed`, `delivered`, `cancelled`, ... */
  status?: string;
  /** Payments minus refunds. */
  paidCents?: number;
  items?: KnownItem[];
}

/** A customer, as far as known. `orderIds`, when present, is taken to be the whole list. */
export interface KnownUser {
  userId: string;
  firstName?: string;
  lastName?: string;
  zip?: string;
  orderIds?: string[];
}

/** A catalogue product, as far as known: which of its variants (item ids) are available. */
export interface KnownProduct {
  productId: string;
  name?: string;
  availability: Map<string, boolean>;
}

/** Everything known, by id. */
export interface RetailFacts {
  users: Map<string, KnownUser>;
  orders: Map<string, KnownOrder>;
  products: Map<string, KnownProduct>;
}

/**
 * The fact-line grammar, for a history-compression guideline to quote. One fact a line; a line may start
 * with `-` or `*`; keywords ignore case; fields are separated by `;`, and `items:` comes last because an
 * item list holds commas. A field left out is unknown, not empty. Amounts may carry `$` and `,`.
 */
export const RETAIL_FACT_GRAMMAR = [
  'user <user_id>: name <first name> <last name>; zip <zip>; orders <order id>, <order id>, ...',
  'order <order id>: user <user_id>; status <status>; paid <net amount paid>; items: <item>, <item>, ...',
  '  where <item> is: <product name> <price> (item <item_id>, product <product_id>)',
  'product <product_id>: name <product name>; available <item_id>, ...; unavailable <item_id>, ...',
].join('\n');

/** An empty fact set. */
export function emptyRetailFacts(): RetailFacts {
  return { users: new Map(), orders: new Map(), products: new Map() };
}

const ORDER_ID = /#?\bW\d+\b/i;
const normalizeOrderId = (id: string): string => `#${id.trim().replace(/^#/, '').toUpperCase()}`;

function mergeUser(facts: RetailFacts, user: KnownUser): void {
  const known = facts.users.get(user.userId) ?? { userId: user.userId };
  for (const [key, value] of Object.entries(user)) if (value !== undefined) Object.assign(known, { [key]: value });
  facts.users.set(user.userId, known);
}

function mergeOrder(facts: RetailFacts, order: KnownOrder): void {
  const known = facts.orders.get(order.orderId) ?? { orderId: order.orderId };
  for (const [key, value] of Object.entries(order)) if (value !== undefined) Object.assign(known, { [key]: value });
  facts.orders.set(order.orderId, known);
}

function mergeProduct(facts: RetailFacts, product: KnownProduct): void {
  const known = facts.products.get(product.productId) ?? {
    productId: product.productId,
    availability: new Map<string, boolean>(),
  };
  if (product.name !== undefined) known.name = product.name;
  for (const [itemId, available] of product.availability) known.availability.set(itemId, available);
  facts.products.set(product.productId, known);
}

// ---- JSON records -------------------------------------------------------------------------------
// Shapes are lenient (every field but the id optional) because a compressed observation may keep only
// part of a record; what is missing stays unknown and the policy fetches it again.

const ItemShape = z.looseObject({
  name: z.string().optional(),
  product_id: z.string().optional(),
  item_id: z.string().optional(),
  price: z.number().optional(),
});
const OrderShape = z.looseObject({
  order_id: z.string().regex(ORDER_ID),
  user_id: z.string().optional(),
  status: z.string().optional(),
  items: z.array(ItemShape).optional(),
  // Entries may be partial too: the amount paid is then unknown, and the rest of the order still counts.
  payment_history: z
    .array(z.looseObject({ transaction_type: z.string().optional(), amount: z.number().optional() }))
    .optional(),
});
const VariantShape = z.looseObject({ item_id: z.string().optional(), available: z.boolean().optional() });
const ProductShape = z.looseObject({
  product_id: z.string(),
  name: z.string().optional(),
  variants: z.union([z.record(z.string(), VariantShape), z.array(VariantShape)]),
});
const UserShape = z.looseObject({
  user_id: z.string(),
  name: z.looseObject({ first_name: z.string(), last_name: z.string() }).optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  zip: z.string().optional(),
  address: z.looseObject({ zip: z.string().optional() }).optional(),
  // `get_user_details` lists ids; `list_user_orders` lists whole orders.
  orders: z.array(z.union([z.string(), z.looseObject({ order_id: z.string() })])).optional(),
});

function readRecord(value: Record<string, unknown>, facts: RetailFacts): void {
  if ('order_id' in value) {
    const order = OrderShape.safeParse(value);
    if (!order.success) return;
    const orderRecord = order.data;
    const history = orderRecord.payment_history;
    const paid = history?.every((t) => t.transaction_type !== undefined && t.amount !== undefined)
      ? history.reduce(
          (sum, transaction) =>
            sum +
            (transaction.transaction_type === 'refund' ? -1 : transaction.transaction_type === 'payment' ? 1 : 0) *
              toCents(transaction.amount ?? 0),
          0,
        )
      : undefined;
    mergeOrder(facts, {
      orderId: normalizeOrderId(orderRecord.order_id),
      userId: orderRecord.user_id,
      status: orderRecord.status?.trim().toLowerCase(),
      paidCents: paid,
      items: orderRecord.items?.map((item) => ({
        name: item.name,
        productId: item.product_id,
        itemId: item.item_id,
        priceCents: item.price === undefined ? undefined : toCents(item.price),
      })),
    });
    return;
  }
  if ('variants' in value) {
    const product = ProductShape.safeParse(value);
    if (!product.success) return;
    // A variant keyed by its item id may leave the id out of the record: the key says it.
    const variants = Array.isArray(product.data.variants)
      ? product.data.variants.map((v) => [v.item_id, v] as const)
      : Object.entries(product.data.variants).map(([key, v]) => [v.item_id ?? key, v] as const);
    const availability = new Map<string, boolean>();
    for (const [id, variant] of variants)
      if (id !== undefined && variant.available !== undefined) availability.set(id, variant.available);
    mergeProduct(facts, { productId: product.data.product_id, name: product.data.name, availability });
    return;
  }
  if ('user_id' in value) {
    const user = UserShape.safeParse(value);
    if (!user.success) return;
    const userRecord = user.data;
    mergeUser(facts, {
      userId: userRecord.user_id,
      firstName: userRecord.name?.first_name ?? userRecord.first_name,
      lastName: userRecord.name?.last_name ?? userRecord.last_name,
      zip: userRecord.zip ?? userRecord.address?.zip,
      orderIds: userRecord.orders?.map((o) => normalizeOrderId(typeof o === 'string' ? o : o.order_id)),
    });
  }
}

function walk(value: unknown, facts: RetailFacts): void {
  if (Array.isArray(value)) {
    for (const element of value) walk(element, facts);
  } else if (typeof value === 'object' && value !== null) {
    readRecord(value as Record<string, unknown>, facts);
    // Nested records (orders inside a listing, products inside search results) are records too.
    for (const child of Object.values(value)) if (typeof child === 'object' && child !== null) walk(child, facts);
  }
}

/**
 * The JSON values in a text: the whole text when it is JSON, else every outermost `{...}` that parses.
 * An object cut short (a truncated observation) is skipped, but complete objects inside it still count.
 */
function jsonValues(text: string): unknown[] {
  return scanJson(text).values;
}

// ---- fact lines ---------------------------------------------------------------------------------

const LINE = /^\s*(?:[-*•]\s*)?(user|order|product)\s+([^\s:]+)\s*:\s*(.*)$/i;
const FIELD = /^\s*(user_id|user|status|paid|name|zip|orders|available|unavailable)\b\s*[:=]?\s*(.*?)\s*$/i;

/** Splits an item list at commas that are outside parentheses and not inside a number (`1,234.00`). */
function splitItems(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let position = 0; position < list.length; position += 1) {
    const character = list[position];
    if (character === '(') depth += 1;
    else if (character === ')') depth = Math.max(0, depth - 1);
    else if (character === ',' && depth === 0 && !/\d/.test(list[position + 1] ?? '')) {
      parts.push(list.slice(start, position));
      start = position + 1;
    }
  }
  parts.push(list.slice(start));
  return parts.map((p) => p.trim()).filter(Boolean);
}

function parseItem(text: string): KnownItem {
  const item: KnownItem = {};
  const paren = /\(([^)]*)\)/.exec(text);
  if (paren) {
    item.itemId = /item(?:_id)?\s*[:=]?\s*(\d+)/i.exec(paren[1] ?? '')?.[1];
    item.productId = /product(?:_id)?\s*[:=]?\s*(\d+)/i.exec(paren[1] ?? '')?.[1];
  }
  const rest = paren ? text.replace(paren[0], ' ') : text;
  const amounts = findMoney(rest);
  const price = amounts[amounts.length - 1];
  if (price) item.priceCents = price.cents;
  const name = (price ? rest.slice(0, price.index) : rest)
    .replace(/["“”]/g, '')
    .replace(/[\s:@—–-]+$/, '')
    .trim();
  if (name) item.name = name;
  return item;
}

function readFactLine(line: string, facts: RetailFacts): void {
  const match = LINE.exec(line);
  if (!match) return;
  const [, kindRaw = '', id = '', body = ''] = match;
  const kind = kindRaw.toLowerCase();
  // `items:` runs to the end of the line; the other fields are `;`-separated before it.
  const itemsAt = body.search(/\bitems\s*:/i);
  const head = itemsAt >= 0 ? body.slice(0, itemsAt) : body;
  const fields = new Map<string, string>();
  for (const part of head.split(';')) {
    const field = FIELD.exec(part);
    if (field?.[1]) fields.set(field[1].toLowerCase(), field[2] ?? '');
  }
  if (kind === 'order') {
    if (!/^#?W\d+$/i.test(id)) return;
    const paid = findMoney(fields.get('paid') ?? '')[0];
    mergeOrder(facts, {
      orderId: normalizeOrderId(id),
      userId: fields.get('user') ?? fields.get('user_id'),
      status: fields.get('status')?.toLowerCase(),
      paidCents: paid?.cents,
      items: itemsAt >= 0 ? splitItems(body.slice(itemsAt).replace(/^items\s*:/i, '')).map(parseItem) : undefined,
    });
  } else if (kind === 'user') {
    if (!/^[a-z0-9_]+$/i.test(id)) return;
    const [firstName, ...last] = (fields.get('name') ?? '').split(/\s+/).filter(Boolean);
    const orders = fields.get('orders');
    mergeUser(facts, {
      userId: id,
      firstName,
      lastName: last.length > 0 ? last.join(' ') : undefined,
      zip: fields.get('zip') || undefined,
      orderIds:
        orders === undefined
          ? undefined
          : [...orders.matchAll(new RegExp(ORDER_ID, 'gi'))].map((m) => normalizeOrderId(m[0])),
    });
  } else if (kind === 'product') {
    if (!/^\d+$/.test(id)) return;
    const availability = new Map<string, boolean>();
    for (const [key, available] of [
      ['available', true],
      ['unavailable', false],
    ] as const) {
      for (const itemMatch of (fields.get(key) ?? '').matchAll(/\d+/g)) availability.set(itemMatch[0], available);
    }
    mergeProduct(facts, { productId: id, name: fields.get('name') || undefined, availability });
  }
}

/**
 * Reads every retail fact in `text` into `facts` (a new set by default): records in JSON (the whole text,
 * or objects embedded in it) and fact lines of {@link RETAIL_FACT_GRAMMAR}. Later facts about the same
 * record add to or override earlier ones.
 *
 * @example
 * const facts = readRetailFacts('order #W1234567: status delivered; paid $12.50; items: Mug 12.50');
 * facts.orders.get('#W1234567')?.paidCents; // 1250
 */
export function readRetailFacts(text: string, facts: RetailFacts = emptyRetailFacts()): RetailFacts {
  for (const value of jsonValues(text)) walk(value, facts);
  if (/^\s*(?:[-*•]\s*)?(?:user|order|product)\s/im.test(text)) {
    for (const line of text.split('\n')) readFactLine(line, facts);
  }
  return facts;
}

function formatItem(item: KnownItem): string {
  const ids = [item.itemId && `item ${item.itemId}`, item.productId && `product ${item.productId}`]
    .filter(Boolean)
    .join(', ');
  const price = item.priceCents === undefined ? '' : ` ${formatCents(item.priceCents)}`;
  return `${item.name ?? 'unnamed'}${price}${ids ? ` (${ids})` : ''}`;
}

/**
 * Writes facts as fact lines of {@link RETAIL_FACT_GRAMMAR}, which {@link readRetailFacts} reads back to
 * the same facts: a way to keep what the tool results said in a few tokens.
 */
export function formatRetailFacts(facts: RetailFacts): string {
  const lines: string[] = [];
  for (const user of facts.users.values()) {
    const name = [user.firstName, user.lastName].filter(Boolean).join(' ');
    const fields = [
      name && `name ${name}`,
      user.zip && `zip ${user.zip}`,
      user.orderIds && `orders ${user.orderIds.join(', ')}`,
    ].filter(Boolean);
    lines.push(`user ${user.userId}: ${fields.join('; ')}`);
  }
  for (const order of facts.orders.values()) {
    const fields = [
      order.userId && `user ${order.userId}`,
      order.status && `status ${order.status}`,
      order.paidCents !== undefined && `paid ${formatCents(order.paidCents)}`,
      order.items && `items: ${order.items.map(formatItem).join(', ')}`,
    ].filter(Boolean);
    lines.push(`order ${order.orderId}: ${fields.join('; ')}`);
  }
  for (const product of facts.products.values()) {
    const ids = (available: boolean) => [...product.availability].filter(([, a]) => a === available).map(([id]) => id);
    const fields = [
      product.name && `name ${product.name}`,
      ids(true).length > 0 && `available ${ids(true).join(', ')}`,
      ids(false).length > 0 && `unavailable ${ids(false).join(', ')}`,
    ].filter(Boolean);
    lines.push(`product ${product.productId}: ${fields.join('; ')}`);
  }
  return lines.join('\n');
}
