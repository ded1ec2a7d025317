/**
 * Auto-paging for any tool: results above a threshold become pages with a handle; the model pages them
 * back in when it needs them. Uses the scripted test model to show the flow: npx tsx examples/auto-paging.ts
 */
import { z } from 'zod';
import { Agent, Runner, tool } from 'pagewise';
import { PagingService, autoPaging, createPagingTools, pagedInstruction } from 'pagewise/paging';
import { scriptedModel } from 'pagewise/testing';

const listOrders = tool({
  name: 'list_orders',
  description: 'Returns every order (verbose JSON).',
  inputSchema: z.object({}),
  execute: () =>
    Array.from({ length: 300 }, (_, index) => ({
      id: `#W${1000 + index}`,
      status: index % 3 ? 'delivered' : 'pending',
      total: 10 + index,
    })),
});

const service = new PagingService();
const paging = createPagingTools(service);
const agent = new Agent({
  name: 'clerk',
  instruction: pagedInstruction({ base: 'You answer questions about orders.', service }),
  tools: [listOrders, paging.page_in, paging.calculate],
  observationProcessors: [autoPaging({ service, thresholdTokens: 1024 })],
});
const model = scriptedModel([
  { toolCalls: [{ toolName: 'list_orders', input: {} }] },
  ({ view }) => {
    const receipt = view.turns.at(-1);
    console.log(
      'What the model saw instead of the orders:\n ',
      receipt?.role === 'tool' ? receipt.results[0]!.output : '',
    );
    const uri = /"(tool:\/\/[^"]+)"/.exec(receipt?.role === 'tool' ? receipt.results[0]!.output : '')![1]!;
    return { toolCalls: [{ toolName: 'page_in', input: { uris: [uri] } }] };
  },
  'The orders are now in my instruction.',
]);
const result = await new Runner({ agent, model }).run({ userId: 'u', message: 'How many orders are pending?' });
console.log(
  result.ledger.entries
    .map(
      (e) => `call ${e.index}: history ${e.parts.history + e.parts.observation} tokens, paged ${e.parts.paged} tokens`,
    )
    .join('\n'),
);
