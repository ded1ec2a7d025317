/**
 * ACON at a prompt-token budget, offline: C_hist compresses only when a request would exceed the budget, into
 * the room the rest of the request leaves (`budgetTokens`), and C_obs shows a repeated call its result whole
 * when the first, compressed copy did not hold what the agent looked for (`expandOnRepeat`). A scripted model
 * reads twelve large order records, asks for one of them again, and answers.
 * npx tsx examples/compression-budget.ts
 */
import { z } from 'zod';
import { Agent, Runner, tool } from 'pagewise';
import { historyCompressor, observationCompressor } from 'pagewise/compression';
import { scriptedModel } from 'pagewise/testing';

const BUDGET = 2500;

/** A verbose order record, as a real API returns it: ~300 tokens. */
function order(index: number): string {
  return JSON.stringify({
    order_id: `#W${1000 + index}`,
    status: index % 3 === 0 ? 'cancelled' : 'pending',
    address: { street: `${index} Long Street`, city: 'Springfield', zip: `8028${index % 10}`, country: 'USA' },
    items: Array.from({ length: 3 }, (_, item) => ({
      name: ['Desk Lamp', 'Tea Kettle', 'Backpack'][item],
      item_id: `${7000000 + index * 10 + item}`,
      price: 20 + index + item * 7.25,
      options: { color: 'white', material: 'metal', warranty: '2 years' },
    })),
    fulfillments: [{ tracking_id: [`88286${index}96656`], carrier: 'ground' }],
    payment_history: [{ transaction_type: 'payment', amount: 100 + index, payment_method_id: `credit_card_${index}` }],
  });
}

const getOrder = tool({
  name: 'get_order',
  description: 'One order by id, as JSON.',
  inputSchema: z.object({ order_id: z.string() }),
  execute: ({ order_id }) => order(Number(order_id.slice(2)) - 1000),
});

const calls = Array.from({ length: 12 }, (_, index) => ({
  toolCalls: [{ toolName: 'get_order', input: { order_id: `#W${1000 + index}` } }],
}));
const model = scriptedModel([
  ...calls,
  // The same call again: its first copy was compressed, so this one is shown whole.
  { toolCalls: [{ toolName: 'get_order', input: { order_id: '#W1004' } }] },
  'Orders #W1003, #W1006 and #W1009 are cancelled; the others are pending.',
]);

const cObs = observationCompressor({ thresholdTokens: 200, maxTokens: 400 });
const agent = new Agent({
  name: 'orders',
  instruction: 'Report which of the orders #W1000 to #W1011 are cancelled.',
  tools: [getOrder],
  observationProcessors: [cObs],
  processors: [historyCompressor({ budgetTokens: BUDGET })],
});
const result = await new Runner({ agent, model }).run({
  userId: 'u',
  message: 'Which of my twelve orders are cancelled?',
});

console.log(`Prompt tokens per model call (budget ${BUDGET}):`);
console.log(result.ledger.entries.map((e) => e.promptTokens).join(' '));
const repeat = model.views.at(-1)?.turns.at(-1);
const shownWhole = repeat?.role === 'tool' && repeat.results[0]?.output === order(4);
console.log(`The repeated get_order was shown ${shownWhole ? 'whole' : 'compressed'}.`);
console.log(`Answer: ${result.text}`);
