import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  defaultRetailDataDir,
  retailDataMissing,
  loadRetailData,
  retailDataAvailable,
  type RetailData,
} from './data.js';
import { RETAIL_TEMPLATES, type RetailTemplate } from './prompts.js';
import {
  checkAnswer,
  generateRetailTasks,
  MAX_TASK_CALLS,
  MIN_TASK_CALLS,
  type RetailGold,
  type RetailTask,
} from './tasks.js';

const dir = defaultRetailDataDir();
const available = retailDataAvailable(dir);
if (!available) console.log(`retail task tests skipped: ${retailDataMissing(dir)}`);

// The reference computations below read the raw files with plain loops and float dollars, on purpose
// sharing no code with the generator's gold functions.
interface RawItem {
  name: string;
  product_id: string;
  item_id: string;
  price: number;
}
interface RawOrder {
  status: string;
  items: RawItem[];
  payment_history: { transaction_type: string; amount: number }[];
}
interface Raw {
  users: Record<
    string,
    { name: { first_name: string; last_name: string }; address: { zip: string }; orders: string[] }
  >;
  orders: Record<string, RawOrder>;
  products: Record<string, { variants: Record<string, { available: boolean }> }>;
}
const readRaw = (): Raw => {
  const read = (file: string) => JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
  return { users: read('users.json'), orders: read('orders.json'), products: read('products.json') };
};

const byTemplate = <T extends RetailTemplate>(tasks: RetailTask[], template: T) => {
  const task = tasks.find((t) => t.template === template);
  if (!task) throw new Error(`no ${template} task`);
  return { task, gold: task.gold as Extract<RetailGold, { template: T }> };
};
const stripCheckers = (tasks: RetailTask[]) => tasks.map(({ checker: _checker, ...rest }) => rest);

describe.skipIf(!available)('generateRetailTasks', () => {
  let data: RetailData;
  let raw: Raw;
  let tasks: RetailTask[];
  beforeAll(async () => {
    data = await loadRetailData(dir);
    raw = readRaw();
    tasks = generateRetailTasks(data, { count: 40, seed: 7 });
  });

  const userIdOf = (customer: { firstName: string; lastName: string; zip: string }) =>
    Object.keys(raw.users).find((id) => {
      const user = raw.users[id];
      return (
        user?.name.first_name === customer.firstName &&
        user.name.last_name === customer.lastName &&
        user.address.zip === customer.zip
      );
    }) ?? '';
  const ordersOf = (task: RetailTask) =>
    task.customers.flatMap((customer) =>
      (raw.users[userIdOf(customer)]?.orders ?? []).map((id) => ({ id, order: raw.orders[id] as RawOrder })),
    );
  const paid = (order: RawOrder) =>
    order.payment_history.reduce((s, t) => s + (t.transaction_type === 'refund' ? -t.amount : t.amount), 0);
  const cents = (dollars: number) => Math.round(dollars * 100);

  it('names each customer by the name and zip of the user it means', () => {
    for (const task of tasks) for (const customer of task.customers) expect(userIdOf(customer)).toBe(customer.userId);
  });

  it('delivered-product-spend: gold matches a sum computed by hand from the raw JSON', () => {
    const { task, gold } = byTemplate(tasks, 'delivered-product-spend');
    const hits = ordersOf(task).filter(
      ({ order }) => order.status === 'delivered' && order.items.some((i) => i.name === task.productName),
    );
    expect(hits.length).toBeGreaterThan(0);
    expect(gold.totalCents).toBe(cents(hits.reduce((s, h) => s + paid(h.order), 0)));
    expect(gold.orderIds).toEqual(hits.map((h) => h.id));
    expect(task.prompt).toContain(`"${task.productName}"`);
  });

  it('modifiable-pending-orders: gold matches availability checked by hand', () => {
    const { gold, task } = byTemplate(tasks, 'modifiable-pending-orders');
    const pending = ordersOf(task).filter(({ order }) => order.status === 'pending');
    const ok = pending.filter(({ order }) =>
      order.items.every((i) => raw.products[i.product_id]?.variants[i.item_id]?.available === true),
    );
    expect(gold.modifiable).toEqual(
      ok.map(({ id, order }) => ({ orderId: id, itemTotalCents: cents(order.items.reduce((s, i) => s + i.price, 0)) })),
    );
    expect(gold.notModifiable.sort()).toEqual(
      pending
        .filter((p) => !ok.includes(p))
        .map((p) => p.id)
        .sort(),
    );
    expect(gold.modifiable.length).toBeGreaterThan(0);
    expect(gold.notModifiable.length).toBeGreaterThan(0);
  });

  it('most-expensive-item: gold is the top-priced item of the non-cancelled orders', () => {
    const { gold, task } = byTemplate(tasks, 'most-expensive-item');
    const items = ordersOf(task)
      .filter(({ order }) => order.status !== 'cancelled')
      .flatMap(({ id, order }) => order.items.map((i) => ({ id, name: i.name, price: i.price })))
      .sort((a, b) => b.price - a.price);
    expect(gold).toEqual({
      template: 'most-expensive-item',
      orderId: items[0]?.id,
      productName: items[0]?.name,
      priceCents: cents(items[0]?.price ?? 0),
    });
  });

  it('delivered-spend-comparison: gold totals and winner match sums by hand', () => {
    const { gold, task } = byTemplate(tasks, 'delivered-spend-comparison');
    const totals = task.customers.map((customer) =>
      cents(
        (raw.users[customer.userId]?.orders ?? [])
          .map((id) => raw.orders[id] as RawOrder)
          .filter((o) => o.status === 'delivered')
          .reduce((s, o) => s + paid(o), 0),
      ),
    );
    expect(gold.totals.map((t) => t.totalCents)).toEqual(totals);
    expect(gold.winnerUserId).toBe(totals[0]! > totals[1]! ? task.customers[0]?.userId : task.customers[1]?.userId);
  });

  it('pins the first four tasks of seed 7 (checked against an independent script)', () => {
    expect(tasks.slice(0, 4).map((t) => t.goldAnswer)).toEqual([
      'Answer: $7319.93',
      'Answer: #W5402785: $149.45; #W6002958: $189.50; #W1013897: $152.56',
      'Answer: Laptop, $2520.52, order #W7594624',
      'Answer: Harper Patel spent more; Harper Patel: $666.92; Liam Li: $381.26',
    ]);
  });

  it(`needs ${MIN_TASK_CALLS}-${MAX_TASK_CALLS} tool calls per task, counted by hand`, () => {
    for (const task of tasks) {
      const orders = ordersOf(task);
      const products = new Set(
        task.template === 'modifiable-pending-orders'
          ? orders.filter((o) => o.order.status === 'pending').flatMap((o) => o.order.items.map((i) => i.product_id))
          : [],
      );
      const calls = 2 * task.customers.length + orders.length + products.size;
      expect(task.expectedCalls).toBe(calls);
      expect(calls).toBeGreaterThanOrEqual(MIN_TASK_CALLS);
      expect(calls).toBeLessThanOrEqual(MAX_TASK_CALLS);
    }
  });

  it('is deterministic by seed, cycles through the templates and never repeats a task', () => {
    expect(stripCheckers(generateRetailTasks(data, { count: 40, seed: 7 }))).toEqual(stripCheckers(tasks));
    expect(generateRetailTasks(data, { count: 8, seed: 8 }).map((t) => t.prompt)).not.toEqual(
      tasks.slice(0, 8).map((t) => t.prompt),
    );
    expect(tasks.slice(0, 4).map((t) => t.template)).toEqual(RETAIL_TEMPLATES);
    expect(new Set(tasks.map((t) => t.prompt)).size).toBe(tasks.length);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
    const only = generateRetailTasks(data, { count: 3, seed: 1, templates: ['most-expensive-item'] });
    expect(only.every((t) => t.template === 'most-expensive-item')).toBe(true);
  });

  it('accepts every gold answer through the task checker', () => {
    for (const task of tasks) expect(task.checker(`Some reasoning.\n${task.goldAnswer}`)).toBe(true);
  });
});

describe('checkAnswer', () => {
  const spend: Pick<RetailTask, 'gold'> = {
    gold: { template: 'delivered-product-spend', totalCents: 731993, orderIds: ['#W3977493', '#W2421430'] },
  };
  const modifiable: Pick<RetailTask, 'gold'> = {
    gold: {
      template: 'modifiable-pending-orders',
      modifiable: [
        { orderId: '#W5402785', itemTotalCents: 14945 },
        { orderId: '#W6002958', itemTotalCents: 18950 },
      ],
      notModifiable: ['#W4386313'],
    },
  };
  const top: Pick<RetailTask, 'gold'> = {
    gold: { template: 'most-expensive-item', orderId: '#W7594624', productName: 'Laptop', priceCents: 252052 },
  };
  const compare: Pick<RetailTask, 'gold'> = {
    gold: {
      template: 'delivered-spend-comparison',
      winnerUserId: 'harper_patel_2628',
      totals: [
        { userId: 'harper_patel_2628', name: 'Harper Patel', totalCents: 66692 },
        { userId: 'liam_li_8526', name: 'Liam Li', totalCents: 38126 },
      ],
    },
  };

  it('accepts a right total written in several ways', () => {
    for (const text of [
      'Answer: $7319.93',
      'answer: 7,319.93 USD',
      'The total is $7,319.93.',
      'Answer: #W3977493 and #W2421430, $7319.93 in all',
    ]) {
      expect(checkAnswer(spend, text)).toBe(true);
    }
  });

  it('rejects a wrong or missing total, and looks only after the last "Answer:"', () => {
    for (const text of [
      'Answer: $7319.94',
      'Answer: unknown',
      // One amount is the answer: a hedge that lists others beside it is not.
      'Answer: $7319.93 (2 orders: $5000.00 + $2319.93)',
      'Answer: $5000.00 or $7319.93',
      'I paid $7319.93? Answer: $7000.00',
      'Missing: order #W3977493.\nAnswer: unknown',
    ]) {
      expect(checkAnswer(spend, text)).toBe(false);
    }
  });

  it('needs exactly the modifiable orders, each with its own total', () => {
    expect(checkAnswer(modifiable, 'Answer: #W5402785: $149.45; #W6002958: $189.50')).toBe(true);
    expect(checkAnswer(modifiable, 'Answer: W6002958 ($189.50) and W5402785 ($149.45)')).toBe(true);
    expect(checkAnswer(modifiable, 'Answer: #W5402785: $149.45')).toBe(false);
    expect(checkAnswer(modifiable, 'Answer: #W5402785: $189.50; #W6002958: $149.45')).toBe(false);
    expect(checkAnswer(modifiable, 'Answer: #W5402785: $149.45; #W6002958: $189.50; #W4386313: $519.07')).toBe(false);
  });

  it('needs the product, the price and only the right order for the top item', () => {
    expect(checkAnswer(top, 'Answer: Laptop, $2520.52, order #W7594624')).toBe(true);
    expect(checkAnswer(top, 'Answer: laptop for 2,520.52 in W7594624')).toBe(true);
    expect(checkAnswer(top, 'Answer: Laptop, $2520.52, order #W2092674')).toBe(false);
    expect(checkAnswer(top, 'Answer: Wristwatch, $2520.52, order #W7594624')).toBe(false);
    expect(checkAnswer(top, 'Answer: Laptop, $2520.52, order #W7594624 or #W2092674')).toBe(false);
  });

  it('needs the winner named first and both totals', () => {
    expect(checkAnswer(compare, 'Answer: Harper Patel spent more; Harper Patel: $666.92; Liam Li: $381.26')).toBe(true);
    expect(checkAnswer(compare, 'Answer: Liam Li spent more; Harper Patel: $666.92; Liam Li: $381.26')).toBe(false);
    expect(checkAnswer(compare, 'Answer: Harper Patel spent more ($666.92)')).toBe(false);
  });
});
