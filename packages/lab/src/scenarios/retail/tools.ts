/**
 * Read-only tools over the tau-bench retail database. Like a real business API they answer with the
 * whole record as pretty-printed JSON: the observations are large on purpose, since making them small
 * is the job of the context strategies under test, not of the tools.
 */
import { z } from 'zod';
import { tool, type AnyTool, type Tool } from 'pagewise';
import type { RetailData, RetailOrder } from './data.js';

/** Names of the retail tools, as the offline policy and the instruction refer to them. */
export const RETAIL_TOOL_NAMES = {
  findUser: 'find_user_id_by_name_zip',
  getUser: 'get_user_details',
  getOrder: 'get_order_details',
  getProduct: 'get_product_details',
  listUserOrders: 'list_user_orders',
  searchProducts: 'search_products',
} as const;

/** The most products one `search_products` call returns. */
export const SEARCH_RESULT_LIMIT = 10;

const pretty = (value: unknown): string => JSON.stringify(value, null, 2);

const UserIdInput = z.object({
  user_id: z
    .string()
    .min(1)
    .max(100)
    .describe('The user id, e.g. "sara_doe_496". Find it with find_user_id_by_name_zip.'),
});
const OrderIdInput = z.object({
  order_id: z.string().min(1).max(100).describe('The order id, starting with "#W", e.g. "#W0000000".'),
});
const ProductIdInput = z.object({
  product_id: z.string().min(1).max(100).describe('The product id, e.g. "6086499569".'),
});
const FindUserInput = z.object({
  first_name: z.string().min(1).max(100).describe('The customer\'s first name, e.g. "John".'),
  last_name: z.string().min(1).max(100).describe('The customer\'s last name, e.g. "Doe".'),
  zip: z.string().min(1).max(20).describe('The zip code of the customer\'s address, e.g. "12345".'),
});
const SearchInput = z.object({
  query: z.string().min(1).max(500).describe('Words of the product name, e.g. "kettle". Matching ignores case.'),
});

/**
 * The retail tools over `data`: look-ups by id, a customer search by name and zip, a listing of a
 * customer's orders, and a product search. Every tool is read-only, so calling one twice is harmless;
 * an unknown id throws an error that says how to find a valid one (the runner returns it to the model).
 *
 * @example
 * const tools = createRetailTools(await loadRetailData());
 * const getOrder = tools.find((t) => t.name === RETAIL_TOOL_NAMES.getOrder);
 * const json = await getOrder?.execute({ order_id: '#W2611340' }, ctx); // the order, pretty-printed
 */
export function createRetailTools(data: RetailData): AnyTool[] {
  const userOrThrow = (userId: string) => {
    const user = data.users.get(userId.trim());
    if (!user) {
      throw new Error(
        `Unknown user_id "${userId}". Look the customer up with find_user_id_by_name_zip (first name, last name, zip).`,
      );
    }
    return user;
  };
  const orderOrThrow = (orderId: string): RetailOrder => {
    const id = orderId.trim();
    // Models often drop the leading "#"; the id is still unambiguous, so accept it.
    const order = data.orders.get(id) ?? data.orders.get(`#${id}`);
    if (!order) {
      throw new Error(
        `Unknown order_id "${orderId}". Order ids look like "#W0000000"; get_user_details lists a customer's orders.`,
      );
    }
    return order;
  };

  const findUser: Tool<z.infer<typeof FindUserInput>> = tool({
    name: RETAIL_TOOL_NAMES.findUser,
    description: "Finds a customer's user id from their first name, last name and zip code.",
    inputSchema: FindUserInput,
    execute: ({ first_name, last_name, zip }) => {
      const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
      for (const [userId, user] of data.users) {
        if (
          same(user.name.first_name, first_name) &&
          same(user.name.last_name, last_name) &&
          same(user.address.zip, zip)
        ) {
          return pretty({
            user_id: userId,
            first_name: user.name.first_name,
            last_name: user.name.last_name,
            zip: user.address.zip,
          });
        }
      }
      throw new Error(
        `No customer named "${first_name} ${last_name}" with zip "${zip}". Check the spelling of the names and the zip code.`,
      );
    },
  });

  const getUser: Tool<z.infer<typeof UserIdInput>> = tool({
    name: RETAIL_TOOL_NAMES.getUser,
    description: "Returns a customer's profile: name, address, email, payment methods and the ids of all their orders.",
    inputSchema: UserIdInput,
    execute: ({ user_id }) => pretty({ user_id: user_id.trim(), ...userOrThrow(user_id) }),
  });

  const getOrder: Tool<z.infer<typeof OrderIdInput>> = tool({
    name: RETAIL_TOOL_NAMES.getOrder,
    description: 'Returns an order: status, shipping address, items with prices, fulfilments and payment history.',
    inputSchema: OrderIdInput,
    execute: ({ order_id }) => pretty(orderOrThrow(order_id)),
  });

  const getProduct: Tool<z.infer<typeof ProductIdInput>> = tool({
    name: RETAIL_TOOL_NAMES.getProduct,
    description:
      'Returns a product of the catalogue with all its variants: item id, options, price and whether it is available.',
    inputSchema: ProductIdInput,
    execute: ({ product_id }) => {
      const product = data.products.get(product_id.trim());
      if (!product) {
        throw new Error(
          `Unknown product_id "${product_id}". Order items carry their product_id; search_products finds products by name.`,
        );
      }
      return pretty(product);
    },
  });

  const listUserOrders: Tool<z.infer<typeof UserIdInput>> = tool({
    name: RETAIL_TOOL_NAMES.listUserOrders,
    description:
      'Returns every order of a customer in full (status, items, payments). Large for customers with many orders.',
    inputSchema: UserIdInput,
    execute: ({ user_id }) => {
      const user = userOrThrow(user_id);
      const orders = user.orders.map((id) => orderOrThrow(id));
      return pretty({ user_id: user_id.trim(), order_count: orders.length, orders });
    },
  });

  const searchProducts: Tool<z.infer<typeof SearchInput>> = tool({
    name: RETAIL_TOOL_NAMES.searchProducts,
    description: `Finds catalogue products whose name contains every word of the query (at most ${SEARCH_RESULT_LIMIT}), with their variants.`,
    inputSchema: SearchInput,
    execute: ({ query }) => {
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      const hits = [...data.products.values()].filter((p) => words.every((w) => p.name.toLowerCase().includes(w)));
      return pretty({
        query,
        total_matches: hits.length,
        products: hits.slice(0, SEARCH_RESULT_LIMIT),
      });
    },
  });

  return [findUser, getUser, getOrder, getProduct, listUserOrders, searchProducts];
}
