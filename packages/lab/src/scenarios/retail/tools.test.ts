import { beforeAll, describe, expect, it } from 'vitest';
import type { AnyTool, ToolContext } from '../../../../pagewise/src/agents/tool.js';
import { retailDataMissing, loadRetailData, retailDataAvailable, type RetailData } from './data.js';
import { createRetailTools, RETAIL_TOOL_NAMES } from './tools.js';

const available = retailDataAvailable();
if (!available) console.log(`retail tool tests skipped: ${retailDataMissing()}`);

// The retail tools read nothing from their context; a bare stand-in is enough.
const ctx = {} as ToolContext;

async function call(tools: AnyTool[], name: string, args: unknown): Promise<string> {
  const tool = tools.find((x) => x.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return String(await tool.execute(tool.inputSchema.parse(args), ctx));
}

describe.skipIf(!available)('retail tools', () => {
  let data: RetailData;
  let tools: AnyTool[];
  beforeAll(async () => {
    data = await loadRetailData();
    tools = createRetailTools(data);
  });

  it('offers every retail tool, none with side effects', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(Object.values(RETAIL_TOOL_NAMES).sort());
    expect(tools.every((t) => !t.sideEffects)).toBe(true);
  });

  it('finds a customer by name and zip, ignoring case, and returns pretty-printed JSON', async () => {
    const out = await call(tools, RETAIL_TOOL_NAMES.findUser, { first_name: 'noah', last_name: 'BROWN', zip: '80279' });
    expect(out).toContain('\n  "user_id": "noah_brown_6181"');
    await expect(
      call(tools, RETAIL_TOOL_NAMES.findUser, { first_name: 'Noah', last_name: 'Brown', zip: '00000' }),
    ).rejects.toThrow(/zip/);
  });

  it('returns whole records, with the user id added to the profile', async () => {
    const user = JSON.parse(await call(tools, RETAIL_TOOL_NAMES.getUser, { user_id: 'noah_brown_6181' }));
    expect(user).toEqual({ user_id: 'noah_brown_6181', ...data.users.get('noah_brown_6181') });
    const order = JSON.parse(await call(tools, RETAIL_TOOL_NAMES.getOrder, { order_id: '#W2611340' }));
    expect(order).toEqual(data.orders.get('#W2611340'));
    // A model that drops the "#" still gets the order.
    expect(JSON.parse(await call(tools, RETAIL_TOOL_NAMES.getOrder, { order_id: 'W2611340' }))).toEqual(order);
    const product = JSON.parse(await call(tools, RETAIL_TOOL_NAMES.getProduct, { product_id: '9523456873' }));
    expect(product.name).toBe('T-Shirt');
  });

  it('lists every order of a customer in full', async () => {
    const userId = [...data.users.keys()].find((id) => (data.users.get(id)?.orders.length ?? 0) >= 3) ?? '';
    const listing = JSON.parse(await call(tools, RETAIL_TOOL_NAMES.listUserOrders, { user_id: userId }));
    expect(listing.orders.map((o: { order_id: string }) => o.order_id)).toEqual(data.users.get(userId)?.orders);
    expect(listing.orders[0]).toHaveProperty('status');
    expect(listing.orders[0]).toHaveProperty('items');
  });

  it('searches products by every word of the query', async () => {
    const kettles = JSON.parse(await call(tools, RETAIL_TOOL_NAMES.searchProducts, { query: 'kettle' }));
    expect(kettles.products.map((p: { name: string }) => p.name).sort()).toEqual(['Electric Kettle', 'Tea Kettle']);
    const tea = JSON.parse(await call(tools, RETAIL_TOOL_NAMES.searchProducts, { query: 'TEA kettle' }));
    expect(tea.total_matches).toBe(1);
    expect(JSON.parse(await call(tools, RETAIL_TOOL_NAMES.searchProducts, { query: 'spaceship' })).products).toEqual(
      [],
    );
  });

  it('says how to find a valid id when an id is unknown', async () => {
    await expect(call(tools, RETAIL_TOOL_NAMES.getUser, { user_id: 'constructor' })).rejects.toThrow(
      /find_user_id_by_name_zip/,
    );
    await expect(call(tools, RETAIL_TOOL_NAMES.getOrder, { order_id: '#W0' })).rejects.toThrow(/#W0000000/);
    await expect(call(tools, RETAIL_TOOL_NAMES.getProduct, { product_id: '1' })).rejects.toThrow(/search_products/);
    await expect(call(tools, RETAIL_TOOL_NAMES.listUserOrders, { user_id: 'nobody' })).rejects.toThrow(
      /Unknown user_id/,
    );
  });

  it('changes nothing in the data', async () => {
    const before = JSON.stringify([...data.orders.values()]);
    for (const tool of tools) {
      const args =
        tool.name === RETAIL_TOOL_NAMES.findUser
          ? { first_name: 'Noah', last_name: 'Brown', zip: '80279' }
          : tool.name === RETAIL_TOOL_NAMES.getOrder
            ? { order_id: '#W2611340' }
            : tool.name === RETAIL_TOOL_NAMES.getProduct
              ? { product_id: '9523456873' }
              : tool.name === RETAIL_TOOL_NAMES.searchProducts
                ? { query: 'chair' }
                : { user_id: 'james_li_5688' };
      await call(tools, tool.name, args);
    }
    expect(JSON.stringify([...data.orders.values()])).toBe(before);
  });
});
