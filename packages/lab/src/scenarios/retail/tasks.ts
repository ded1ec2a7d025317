/**
 * Long-horizon retail tasks drawn from the tau-bench data with a seed, their gold answers computed from
 * the records (never from tool output), and the answer checker. Every task needs values from the first
 * observations (which orders a customer has, what they contained) when writing the final answer, which
 * is what history compression or truncation can lose.
 */
import { ConfigurationError } from 'pagewise';
import type { RetailData, RetailOrder, RetailUser } from './data.js';
import { formatCents, moneyAmounts, toCents } from './money.js';
import { formatRetailPrompt, RETAIL_TEMPLATES, type RetailCustomerRef, type RetailTemplate } from './prompts.js';
import { seededRandom } from 'pagewise/internal';
import { seededShuffle } from '../../util/seeded-shuffle.js';

/** Fewest tool calls the reference plan of a generated task needs. */
export const MIN_TASK_CALLS = 8;
/** Most tool calls the reference plan of a generated task needs. */
export const MAX_TASK_CALLS = 30;
// A request naming more customers than this reads like a report, not a support question.
const MAX_CUSTOMERS = 4;
const ATTEMPTS_PER_TASK = 500;

/** A customer of a task, with the user id the agent has to find. */
export interface RetailCustomer extends RetailCustomerRef {
  userId: string;
}

/** The gold answer of a task, by template. Amounts are integer cents. */
export type RetailGold =
  | { template: 'delivered-product-spend'; totalCents: number; orderIds: string[] }
  | {
      template: 'modifiable-pending-orders';
      /** The pending orders whose every item is still available, with their item totals. */
      modifiable: { orderId: string; itemTotalCents: number }[];
      /** The pending orders with at least one item no longer available. */
      notModifiable: string[];
    }
  | { template: 'most-expensive-item'; orderId: string; productName: string; priceCents: number }
  | {
      template: 'delivered-spend-comparison';
      winnerUserId: string;
      totals: { userId: string; name: string; totalCents: number }[];
    };

/** One generated task. */
export interface RetailTask {
  /** Stable for a given data set, seed and position: `retail-<seed>-<index>-<template>`. */
  id: string;
  template: RetailTemplate;
  /** The user's request, the first user message of the episode. */
  prompt: string;
  customers: RetailCustomer[];
  /** The product a `delivered-product-spend` task asks about. */
  productName?: string;
  gold: RetailGold;
  /** The gold answer written in the answer format the prompt asks for. */
  goldAnswer: string;
  /**
   * Tool calls of the reference plan: per customer a name look-up, a profile and every order, plus (for
   * `modifiable-pending-orders`) one catalogue look-up per product in a pending order.
   */
  expectedCalls: number;
  /** True when `answer` is right; the same as {@link checkAnswer} with this task. */
  checker(answer: string): boolean;
}

/** Options of {@link generateRetailTasks}. */
export interface GenerateRetailTasksOptions {
  /** How many tasks to draw. */
  count: number;
  /** The same seed and data give the same tasks. */
  seed: number;
  /** Templates to cycle through; all of them by default. */
  templates?: readonly RetailTemplate[];
}

/** Net amount paid for an order: payments minus refunds. */
export function orderPaidCents(order: RetailOrder): number {
  let cents = 0;
  for (const transaction of order.payment_history) {
    if (transaction.transaction_type === 'payment') cents += toCents(transaction.amount);
    else if (transaction.transaction_type === 'refund') cents -= toCents(transaction.amount);
  }
  return cents;
}

/** Sum of an order's item prices. */
export function orderItemTotalCents(order: RetailOrder): number {
  return order.items.reduce((sum, item) => sum + toCents(item.price), 0);
}

/** True when the exact variant is in the catalogue and available. */
function variantAvailable(data: RetailData, productId: string, itemId: string): boolean {
  const variants = data.products.get(productId)?.variants;
  return variants !== undefined && Object.hasOwn(variants, itemId) && variants[itemId]?.available === true;
}

interface Draft {
  customers: RetailCustomer[];
  productName?: string;
  gold: RetailGold;
}

/** A view of the data the generator and gold functions share: users with their orders resolved. */
class Shop {
  readonly userIds: string[];
  constructor(readonly data: RetailData) {
    // Sorted so the draw depends on the seed only, not on the order of keys in the files.
    this.userIds = [...data.users.keys()].sort();
  }

  user(userId: string): RetailUser {
    const user = this.data.users.get(userId);
    if (!user) throw new ConfigurationError('invalid-tau-retail', `User "${userId}" is not in the retail data.`);
    return user;
  }

  orders(userId: string): RetailOrder[] {
    return this.user(userId).orders.flatMap((id) => this.data.orders.get(id) ?? []);
  }

  customer(userId: string): RetailCustomer {
    const user = this.user(userId);
    return { userId, firstName: user.name.first_name, lastName: user.name.last_name, zip: user.address.zip };
  }

  /** Tool calls of the reference plan for a group of customers (see {@link RetailTask.expectedCalls}). */
  referenceCalls(template: RetailTemplate, userIds: readonly string[]): number {
    let calls = 0;
    const products = new Set<string>();
    for (const userId of userIds) {
      const orders = this.orders(userId);
      calls += 2 + orders.length;
      if (template === 'modifiable-pending-orders') {
        for (const order of orders)
          if (order.status === 'pending') for (const item of order.items) products.add(item.product_id);
      }
    }
    return calls + products.size;
  }

  deliveredCents(userId: string): number {
    return this.orders(userId)
      .filter((o) => o.status === 'delivered')
      .reduce((sum, o) => sum + orderPaidCents(o), 0);
  }
}

/** Adds customers from `pool` until the reference plan needs enough calls and `done` holds. */
function growGroup(
  shop: Shop,
  template: RetailTemplate,
  pool: string[],
  done: (userIds: string[]) => boolean,
): string[] | undefined {
  const group: string[] = [];
  for (const userId of pool) {
    group.push(userId);
    const calls = shop.referenceCalls(template, group);
    if (calls > MAX_TASK_CALLS || group.length > MAX_CUSTOMERS) return undefined;
    if (calls >= MIN_TASK_CALLS && done(group)) return group;
  }
  return undefined;
}

function goldDeliveredProductSpend(shop: Shop, userIds: readonly string[], productName: string): RetailGold {
  const orders = userIds
    .flatMap((id) => shop.orders(id))
    .filter((o) => o.status === 'delivered' && o.items.some((i) => i.name === productName));
  return {
    template: 'delivered-product-spend',
    totalCents: orders.reduce((sum, o) => sum + orderPaidCents(o), 0),
    orderIds: orders.map((o) => o.order_id),
  };
}

function goldModifiable(
  shop: Shop,
  userIds: readonly string[],
): Extract<RetailGold, { template: 'modifiable-pending-orders' }> {
  const pending = userIds.flatMap((id) => shop.orders(id)).filter((o) => o.status === 'pending');
  const modifiable: { orderId: string; itemTotalCents: number }[] = [];
  const notModifiable: string[] = [];
  for (const order of pending) {
    if (order.items.every((i) => variantAvailable(shop.data, i.product_id, i.item_id))) {
      modifiable.push({ orderId: order.order_id, itemTotalCents: orderItemTotalCents(order) });
    } else {
      notModifiable.push(order.order_id);
    }
  }
  return { template: 'modifiable-pending-orders', modifiable, notModifiable };
}

/** The most expensive item, or `undefined` when the top price is shared by items of different orders or products. */
function goldMostExpensive(shop: Shop, userIds: readonly string[]): RetailGold | undefined {
  let best: { orderId: string; productName: string; priceCents: number } | undefined;
  let tied = false;
  for (const order of userIds.flatMap((id) => shop.orders(id))) {
    if (order.status === 'cancelled') continue;
    for (const item of order.items) {
      const priceCents = toCents(item.price);
      if (!best || priceCents > best.priceCents) {
        best = { orderId: order.order_id, productName: item.name, priceCents };
        tied = false;
      } else if (
        priceCents === best.priceCents &&
        (order.order_id !== best.orderId || item.name !== best.productName)
      ) {
        tied = true;
      }
    }
  }
  return best && !tied ? { template: 'most-expensive-item', ...best } : undefined;
}

function draw(shop: Shop, template: RetailTemplate, rnd: () => number): Draft | undefined {
  const { data } = shop;
  switch (template) {
    case 'delivered-product-spend': {
      const names = [...new Set([...data.products.values()].map((p) => p.name))].sort();
      const productName = names[Math.floor(rnd() * names.length)];
      if (productName === undefined) return undefined;
      const buyers = shop.userIds.filter((id) =>
        shop.orders(id).some((o) => o.status === 'delivered' && o.items.some((i) => i.name === productName)),
      );
      const group = growGroup(shop, template, seededShuffle(buyers, rnd), () => true);
      if (!group) return undefined;
      return {
        customers: group.map((id) => shop.customer(id)),
        productName,
        gold: goldDeliveredProductSpend(shop, group, productName),
      };
    }
    case 'modifiable-pending-orders': {
      const pool = shop.userIds.filter((id) => shop.orders(id).some((o) => o.status === 'pending'));
      // Both kinds of pending order must be present, or the availability rule would not matter.
      const group = growGroup(shop, template, seededShuffle(pool, rnd), (ids) => {
        const gold = goldModifiable(shop, ids);
        return gold.modifiable.length > 0 && gold.notModifiable.length > 0;
      });
      if (!group) return undefined;
      return { customers: group.map((id) => shop.customer(id)), gold: goldModifiable(shop, group) };
    }
    case 'most-expensive-item': {
      const pool = shop.userIds.filter((id) =>
        shop.orders(id).some((o) => o.status !== 'cancelled' && o.items.length > 0),
      );
      const group = growGroup(
        shop,
        template,
        seededShuffle(pool, rnd),
        (ids) => goldMostExpensive(shop, ids) !== undefined,
      );
      const gold = group && goldMostExpensive(shop, group);
      if (!group || !gold) return undefined;
      return { customers: group.map((id) => shop.customer(id)), gold };
    }
    case 'delivered-spend-comparison': {
      const pool = seededShuffle(
        shop.userIds.filter((id) => shop.deliveredCents(id) > 0),
        rnd,
      ).slice(0, 2);
      if (pool.length < 2) return undefined;
      const calls = shop.referenceCalls(template, pool);
      const totals = pool.map((userId) => {
        const customer = shop.customer(userId);
        return { userId, name: `${customer.firstName} ${customer.lastName}`, totalCents: shop.deliveredCents(userId) };
      });
      const [first, second] = totals;
      if (
        !first ||
        !second ||
        first.totalCents === second.totalCents ||
        calls < MIN_TASK_CALLS ||
        calls > MAX_TASK_CALLS
      )
        return undefined;
      const winnerUserId = first.totalCents > second.totalCents ? first.userId : second.userId;
      return { customers: pool.map((id) => shop.customer(id)), gold: { template, winnerUserId, totals } };
    }
  }
}

/** Writes a gold answer in the format the task's prompt asks for. */
export function formatGoldAnswer(gold: RetailGold): string {
  switch (gold.template) {
    case 'delivered-product-spend':
      return `Answer: ${formatCents(gold.totalCents)}`;
    case 'modifiable-pending-orders':
      return gold.modifiable.length === 0
        ? 'Answer: none'
        : `Answer: ${gold.modifiable.map((o) => `${o.orderId}: ${formatCents(o.itemTotalCents)}`).join('; ')}`;
    case 'most-expensive-item':
      return `Answer: ${gold.productName}, ${formatCents(gold.priceCents)}, order ${gold.orderId}`;
    case 'delivered-spend-comparison': {
      const winner = gold.totals.find((t) => t.userId === gold.winnerUserId);
      return `Answer: ${winner?.name ?? gold.winnerUserId} spent more; ${gold.totals.map((t) => `${t.name}: ${formatCents(t.totalCents)}`).join('; ')}`;
    }
  }
}

/**
 * Draws `count` distinct tasks, cycling through the templates. Customers are chosen so that the
 * reference plan needs {@link MIN_TASK_CALLS}–{@link MAX_TASK_CALLS} tool calls; a group of several
 * customers is named when one alone has too few orders.
 *
 * @throws ConfigurationError when the data cannot yield `count` distinct tasks of the asked templates.
 * @example
 * const tasks = generateRetailTasks(await loadRetailData(), { count: 8, seed: 1 });
 * tasks[0].checker('Answer: $1234.56');
 */
export function generateRetailTasks(data: RetailData, options: GenerateRetailTasksOptions): RetailTask[] {
  const templates = options.templates ?? RETAIL_TEMPLATES;
  if (templates.length === 0)
    throw new ConfigurationError('invalid-option', 'generateRetailTasks: `templates` must name at least one template.');
  const shop = new Shop(data);
  const rnd = seededRandom(options.seed);
  const seen = new Set<string>();
  const tasks: RetailTask[] = [];
  for (let index = 0; index < options.count; index += 1) {
    const template = templates[index % templates.length] as RetailTemplate;
    let draft: Draft | undefined;
    for (let attempt = 0; attempt < ATTEMPTS_PER_TASK && !draft; attempt += 1) {
      const candidate = draw(shop, template, rnd);
      const key =
        candidate &&
        [template, candidate.productName ?? '', ...candidate.customers.map((c) => c.userId).sort()].join('|');
      if (candidate && key && !seen.has(key)) {
        seen.add(key);
        draft = candidate;
      }
    }
    if (!draft) {
      throw new ConfigurationError(
        'retail-tasks-exhausted',
        `Could not draw ${options.count} distinct "${template}" tasks from the retail data in ${data.dir}; ask for fewer tasks (count).`,
      );
    }
    const task: RetailTask = {
      id: `retail-${options.seed}-${index}-${template}`,
      template,
      prompt: formatRetailPrompt({
        template,
        customers: draft.customers,
        ...(draft.productName ? { productName: draft.productName } : {}),
      }),
      customers: draft.customers,
      ...(draft.productName ? { productName: draft.productName } : {}),
      gold: draft.gold,
      goldAnswer: formatGoldAnswer(draft.gold),
      expectedCalls: shop.referenceCalls(
        template,
        draft.customers.map((c) => c.userId),
      ),
      checker: (answer) => checkAnswer(task, answer),
    };
    tasks.push(task);
  }
  return tasks;
}

/** The part of a reply that holds the answer: after the last `Answer:`, or the whole reply without one. */
function answerSegment(text: string): string {
  const matches = [...text.matchAll(/answer\s*:/gi)];
  const last = matches[matches.length - 1];
  return last ? text.slice(last.index + last[0].length) : text;
}

const ORDER_ID = /#?\bW\d{7}\b/gi;
const normalizeOrderId = (id: string) => `#${id.replace(/^#/, '').toUpperCase()}`;

/**
 * Whether a reply answers the task right. Only the text after the last `Answer:` counts (the whole reply
 * when there is none); amounts are read exactly to the cent (`$1,234.5` = `1234.50`), and an answer
 * states each amount once: a reply that hedges with several amounts is wrong even if one is right.
 * - delivered-product-spend: exactly one amount, the gold total.
 * - modifiable-pending-orders: exactly the modifiable orders are named, each followed by exactly one
 *   amount, its item total.
 * - most-expensive-item: names the gold order (and no other), the product, and exactly one amount, the price.
 * - delivered-spend-comparison: the winner is the first customer named, and the amounts are exactly the
 *   customers' totals.
 */
export function checkAnswer(task: Pick<RetailTask, 'gold'>, answerText: string): boolean {
  const segment = answerSegment(answerText);
  const gold = task.gold;
  const amounts = moneyAmounts(segment).map((m) => m.cents);
  const mentions = [...segment.matchAll(ORDER_ID)].map((m) => ({ id: normalizeOrderId(m[0]), index: m.index }));
  const mentionedIds = new Set(mentions.map((m) => m.id));
  switch (gold.template) {
    case 'delivered-product-spend':
      return amounts.length === 1 && amounts[0] === gold.totalCents;
    case 'modifiable-pending-orders': {
      if (gold.modifiable.length === 0) return mentions.length === 0 && /\bnone\b/i.test(segment);
      if (mentionedIds.size !== gold.modifiable.length) return false;
      return gold.modifiable.every(({ orderId, itemTotalCents }) =>
        mentions.some((mention, index) => {
          if (mention.id !== orderId) return false;
          const end = mentions[index + 1]?.index ?? segment.length;
          // The id itself is skipped: its digits are not an amount.
          const stated = moneyAmounts(segment.slice(mention.index, end).replace(ORDER_ID, ' '));
          return stated.length === 1 && stated[0]?.cents === itemTotalCents;
        }),
      );
    }
    case 'most-expensive-item':
      return (
        mentionedIds.size === 1 &&
        mentionedIds.has(gold.orderId) &&
        segment.toLowerCase().includes(gold.productName.toLowerCase()) &&
        amounts.length === 1 &&
        amounts[0] === gold.priceCents
      );
    case 'delivered-spend-comparison': {
      const lower = segment.toLowerCase();
      const firstMention = (total: { userId: string; name: string }) => {
        const found = [lower.indexOf(total.name.toLowerCase()), lower.indexOf(total.userId.toLowerCase())].filter(
          (i) => i >= 0,
        );
        return found.length > 0 ? Math.min(...found) : Number.POSITIVE_INFINITY;
      };
      const order = [...gold.totals].sort((a, b) => firstMention(a) - firstMention(b));
      const first = order[0];
      return (
        first !== undefined &&
        first.userId === gold.winnerUserId &&
        firstMention(first) !== Number.POSITIVE_INFINITY &&
        amounts.length === gold.totals.length &&
        gold.totals.every((t) => amounts.includes(t.totalCents))
      );
    }
  }
}
