/**
 * Guidelines tuned by hand for the built-in retail scenario, standing in for what the guideline
 * optimizer produces: the templates tell an LLM which records and fields the tasks turn on (and to keep
 * them as the scenario's fact lines), and the rules make the extractive backend keep exactly those
 * fields. The default guidelines keep about half of every record and lose fields the tasks need; these
 * show what tuning the knobs buys.
 */
import { RETAIL_FACT_GRAMMAR } from './facts.js';
import { parseGuideline, type Guideline } from 'pagewise/compression';

// The fields the retail tasks read: who a customer is and their order ids; per order its status, its
// items (name, ids, price paid) and its payments and refunds; per catalogue product which variants are
// available. Those of customers and orders are kept outright; addresses, fulfilments, options and
// payment methods are dropped; everything else must score above minScore, which in a product passes the
// variant whose item id appears in the task's context (an item of an order) and no other.
const RETAIL_RULES = JSON.stringify(
  {
    // The kept fields are the budget: a ratio would cut into them, and a record missing a field reads
    // as a different record (an order list cut short looks complete).
    ratio: 1,
    minScore: 0.8,
    jsonKeepFields: [
      'user_id',
      'first_name',
      'last_name',
      'zip',
      'order_id',
      'status',
      'items.name',
      'items.product_id',
      'items.item_id',
      'items.price',
      'payment_history.transaction_type',
      'payment_history.amount',
      'product_id',
      'error',
      'message',
    ],
    jsonDropFields: ['address', 'fulfillments', 'options', 'payment_method_id', 'payment_methods', 'email'],
    // A profile's order list holds bare order ids; errors are kept whole.
    keepPatterns: ['^orders: #?W\\d+$', '^Error:'],
  },
  null,
  2,
);

/** Retail observation guideline: keep the fields the retail tasks read, as compact JSON. */
export const RETAIL_OBSERVATION_GUIDELINE: Guideline = Object.freeze(
  parseGuideline(
    `---
id: observation-retail
version: 1
target: observation
description: Retail support observations; keeps ids, statuses, items with prices, payments and variant availability.
---
You refine the latest tool observation of a retail support agent, so that it takes fewer tokens but keeps everything its task may need.

Task:
{{task}}

Recent steps of the agent (context only):
{{history}}

Observation:
{{observation}}

Rewrite the observation in at most {{max_tokens}} tokens, as compact JSON with the same field names. Keep exactly: user ids, customer names and zip codes, order ids, order statuses, every item of an order with its name, product_id, item_id and price, every payment and refund (transaction_type and amount), and for a catalogue product its product_id and, per variant, item_id and available. Drop addresses, emails, payment methods, fulfilments, tracking ids and item options. Copy every value exactly. Output only the JSON.

\`\`\`rules json
${RETAIL_RULES}
\`\`\`
`,
    'pagewise:observation-retail',
  ),
);

/** Retail history guideline: a summary in the retail fact-line grammar (LLM) or the kept fields of every result (extractive). */
export const RETAIL_HISTORY_GUIDELINE: Guideline = Object.freeze(
  parseGuideline(
    `---
id: history-retail
version: 1
target: history
description: Retail support history; every customer, order and product fact the task needs, as fact lines.
---
You compress the history of a retail support agent that is in the middle of a task. It will continue from your summary alone.

Task:
{{task}}

Summary so far (empty before the first compression):
{{previous_summary}}

Steps since that summary:
{{history}}

Write one summary that replaces both, in at most {{max_tokens}} tokens. Write every fact the steps established as one line in this grammar, copying ids, names, statuses and amounts exactly:

${RETAIL_FACT_GRAMMAR}

Write one line per customer, order and product seen; an order line lists all its items; a product line lists the variants whose availability the task needs. Then one line "To do:" with the look-ups still missing. Output only these lines.

\`\`\`rules json
${RETAIL_RULES}
\`\`\`
`,
    'pagewise:history-retail',
  ),
);
