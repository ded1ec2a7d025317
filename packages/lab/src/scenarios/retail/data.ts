/**
 * Loads the tau-bench retail database (users, orders, products) that the retail-tool-use scenario runs
 * on, validating its shape so a changed or truncated file fails here with the file named, not deep
 * inside a tool or a gold computation.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConfigurationError } from 'pagewise';
import { findDataPath, missingDataHint } from '../../util/data-path.js';

/** The environment variable that points the loader at another copy of the tau-bench retail data. */
export const TAU_RETAIL_DIR_ENV = 'PAGEWISE_TAU_RETAIL_DIR';

/** The three files the folder must hold. */
export const TAU_RETAIL_FILES = ['users.json', 'orders.json', 'products.json'] as const;

// Records are loose objects: the tools return them verbatim, like a real API, so fields this code does
// not read (addresses, fulfilments, payment methods, options) must survive validation.
const AddressSchema = z.looseObject({ zip: z.string() });

const UserSchema = z.looseObject({
  name: z.looseObject({ first_name: z.string().min(1), last_name: z.string().min(1) }),
  address: AddressSchema,
  email: z.string(),
  payment_methods: z.record(z.string(), z.looseObject({ source: z.string(), id: z.string() })),
  orders: z.array(z.string()),
});

const OrderItemSchema = z.looseObject({
  name: z.string().min(1),
  product_id: z.string().min(1),
  item_id: z.string().min(1),
  price: z.number().nonnegative(),
  options: z.record(z.string(), z.unknown()),
});

const OrderSchema = z.looseObject({
  order_id: z.string().min(1),
  user_id: z.string().min(1),
  address: AddressSchema,
  items: z.array(OrderItemSchema),
  fulfillments: z.array(z.unknown()),
  status: z.string().min(1),
  payment_history: z.array(
    z.looseObject({ transaction_type: z.string(), amount: z.number(), payment_method_id: z.string() }),
  ),
});

const VariantSchema = z.looseObject({
  item_id: z.string().min(1),
  options: z.record(z.string(), z.unknown()),
  available: z.boolean(),
  price: z.number().nonnegative(),
});

const ProductSchema = z.looseObject({
  name: z.string().min(1),
  product_id: z.string().min(1),
  variants: z.record(z.string(), VariantSchema),
});

/** A customer record as stored (keyed by user id, which the record itself does not repeat). */
export type RetailUser = z.infer<typeof UserSchema>;
/** One line of an order: the exact variant (`item_id`) of a product and the price paid for it. */
export type RetailOrderItem = z.infer<typeof OrderItemSchema>;
/** An order record as stored. */
export type RetailOrder = z.infer<typeof OrderSchema>;
/** A catalogue product with its variants, keyed by item id. */
export type RetailProduct = z.infer<typeof ProductSchema>;

/**
 * The whole retail database. Maps rather than plain objects, because ids come from model tool calls and
 * a plain object would answer `constructor` or `__proto__` with something that is not a record.
 */
export interface RetailData {
  /** The folder the data was read from. */
  dir: string;
  users: ReadonlyMap<string, RetailUser>;
  orders: ReadonlyMap<string, RetailOrder>;
  products: ReadonlyMap<string, RetailProduct>;
}

/**
 * Where {@link loadRetailData} reads from when given no folder: `$PAGEWISE_TAU_RETAIL_DIR`, else
 * the fetched data (`pagewise data fetch tau-retail`) or `../shared/data/tau-retail` beside the project.
 */
export function defaultRetailDataDir(): string {
  const fromEnv = process.env[TAU_RETAIL_DIR_ENV];
  return fromEnv ? path.resolve(fromEnv) : findDataPath('tau-retail', process.env, TAU_RETAIL_FILES);
}

/**
 * Why retail data is missing, and how to get it: the folder looked in, the fetch command and the
 * variables, in the words every skip message uses.
 */
export function retailDataMissing(dir: string = defaultRetailDataDir()): string {
  return `no tau-bench retail data at ${dir}. ${missingDataHint('tau-retail', TAU_RETAIL_DIR_ENV)}`;
}

/** True when all three data files exist, so tests and benchmarks can skip with a reason instead of failing. */
export function retailDataAvailable(dir: string = defaultRetailDataDir()): boolean {
  return TAU_RETAIL_FILES.every((file) => existsSync(path.join(dir, file)));
}

async function readTable<T>(dir: string, file: string, schema: z.ZodType<T>): Promise<Map<string, T>> {
  const where = path.join(dir, file);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(where, 'utf8'));
  } catch (error) {
    throw new ConfigurationError(
      'invalid-tau-retail',
      `${where} could not be read as JSON: ${(error as Error).message}`,
      error,
    );
  }
  const parsed = z.record(z.string(), schema).safeParse(json);
  if (!parsed.success) {
    throw new ConfigurationError(
      'invalid-tau-retail',
      `${where} does not have the tau-bench retail shape: ${z.prettifyError(parsed.error)}`,
      parsed.error,
    );
  }
  return new Map(Object.entries(parsed.data));
}

/**
 * Reads and validates the tau-bench retail database.
 *
 * @param dir the folder holding `users.json`, `orders.json` and `products.json`; defaults to
 *   {@link defaultRetailDataDir}.
 * @throws ConfigurationError when a file is missing (naming the folder and {@link TAU_RETAIL_DIR_ENV}), is
 *   not JSON, does not have the expected shape, or refers to an order that does not exist.
 * @example
 * if (retailDataAvailable()) {
 *   const data = await loadRetailData();
 *   console.log(data.users.size); // 500
 * }
 */
export async function loadRetailData(dir: string = defaultRetailDataDir()): Promise<RetailData> {
  const missing = TAU_RETAIL_FILES.filter((file) => !existsSync(path.join(dir, file)));
  if (missing.length > 0) {
    throw new ConfigurationError(
      'tau-retail-missing',
      `tau-bench retail data not found at ${dir} (missing ${missing.join(', ')}). ${missingDataHint('tau-retail', TAU_RETAIL_DIR_ENV)}`,
    );
  }
  const [users, orders, products] = await Promise.all([
    readTable(dir, 'users.json', UserSchema),
    readTable(dir, 'orders.json', OrderSchema),
    readTable(dir, 'products.json', ProductSchema),
  ]);
  // Gold answers walk user -> order links; a dangling link would make a task unanswerable by any agent.
  for (const [userId, user] of users) {
    for (const orderId of user.orders) {
      if (!orders.has(orderId)) {
        throw new ConfigurationError(
          'invalid-tau-retail',
          `${path.join(dir, 'users.json')}: user "${userId}" lists order "${orderId}", which orders.json does not hold.`,
        );
      }
    }
  }
  return { dir, users, orders, products };
}
