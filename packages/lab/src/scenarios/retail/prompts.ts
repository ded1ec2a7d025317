/**
 * The wording of retail-tool-use tasks, kept in one place: the generator writes requests with
 * {@link formatRetailPrompt} and the offline policy reads them back with {@link parseRetailPrompt}, so the
 * two cannot drift apart.
 */

/** The kinds of retail task. */
export type RetailTemplate =
  'delivered-product-spend' | 'modifiable-pending-orders' | 'most-expensive-item' | 'delivered-spend-comparison';

/** Every template, in the order the generator cycles through them. */
export const RETAIL_TEMPLATES: readonly RetailTemplate[] = [
  'delivered-product-spend',
  'modifiable-pending-orders',
  'most-expensive-item',
  'delivered-spend-comparison',
];

/** A customer as a task names them: the way a support agent would get them, by name and zip. */
export interface RetailCustomerRef {
  firstName: string;
  lastName: string;
  zip: string;
}

/** What a task asks, as read from its wording. */
export interface RetailRequest {
  template: RetailTemplate;
  customers: RetailCustomerRef[];
  /** The product name, for `delivered-product-spend`. */
  productName?: string;
}

const LEAD = 'Look up these customers by name and zip code:';

// Each question has a fixed phrase the parser keys on; the answer format is repeated in the request so
// that an agent run without the retail instruction still knows how to answer.
const QUESTION: Record<RetailTemplate, (productName?: string) => string> = {
  'delivered-product-spend': (productName) =>
    `Question: what is the total amount paid (payments minus refunds) for all of their delivered orders that contain at least one "${productName ?? ''}"? ` +
    'End your reply with one line: Answer: $<total>',
  'modifiable-pending-orders': () =>
    'Question: which of their pending orders can still be modified, and what is the item total of each? ' +
    'A pending order can still be modified only if every item in it (the exact variant bought) is still available in the product catalogue. ' +
    'End your reply with one line listing only the orders that can be modified: Answer: <order id>: $<item total>; <order id>: $<item total> (or Answer: none)',
  'most-expensive-item': () =>
    'Question: what is the most expensive single item they ever bought, ignoring cancelled orders? ' +
    'End your reply with one line: Answer: <product name>, $<price paid>, order <order id>',
  'delivered-spend-comparison': () =>
    'Question: which of the two spent more on delivered orders (payments minus refunds), and how much did each spend? ' +
    'End your reply with one line: Answer: <full name> spent more; <full name>: $<total>; <full name>: $<total>',
};

const PATTERNS: [RetailTemplate, RegExp][] = [
  ['delivered-product-spend', /delivered orders that contain at least one "([^"]+)"/],
  ['modifiable-pending-orders', /which of their pending orders can still be modified/],
  ['most-expensive-item', /most expensive single item they ever bought/],
  ['delivered-spend-comparison', /which of the two spent more on delivered orders/],
];

/** Writes the user's request for a task. */
export function formatRetailPrompt(request: RetailRequest): string {
  const who = request.customers.map((c) => `${c.firstName} ${c.lastName} (zip ${c.zip})`).join(', ');
  return `${LEAD} ${who}.\n${QUESTION[request.template](request.productName)}`;
}

/** Reads a request written by {@link formatRetailPrompt} back, or `undefined` when the text is not one. */
export function parseRetailPrompt(text: string): RetailRequest | undefined {
  const start = text.indexOf(LEAD);
  if (start < 0) return undefined;
  const lead = text.slice(start + LEAD.length).split('\n')[0] ?? '';
  const customers = [...lead.matchAll(/([^\s,:()]+)\s+([^\s,:()]+)\s+\(zip\s+([^\s,:()]+)\)/g)].map(
    ([, firstName = '', lastName = '', zip = '']) => ({
      firstName,
      lastName,
      zip,
    }),
  );
  if (customers.length === 0) return undefined;
  for (const [template, pattern] of PATTERNS) {
    const match = pattern.exec(text);
    if (match) return { template, customers, ...(match[1] ? { productName: match[1] } : {}) };
  }
  return undefined;
}
