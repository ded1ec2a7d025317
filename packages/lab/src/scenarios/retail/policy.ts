/**
 * The offline model's rules for retail-tool-use tasks. At every step it reads the task and every fact
 * still in its prompt (tool output JSON, fact lines of a summary), fetches the first thing it still
 * lacks, and answers once nothing is missing. A fact the context strategy dropped is fetched again when
 * its id is still visible; when it is not, or the same call has been repeated too often, the policy says
 * what is missing instead of guessing, so its success rate measures the context it was given.
 */
import type { OfflineDecision, OfflinePolicy } from 'pagewise';
import { OFFLINE_DISCLAIMER } from 'pagewise';
import type { PromptView } from 'pagewise/testing';
import { emptyRetailFacts, readRetailFacts, type KnownOrder, type KnownUser, type RetailFacts } from './facts.js';
import { formatCents } from './money.js';
import { parseRetailPrompt, type RetailCustomerRef, type RetailRequest, type RetailTemplate } from './prompts.js';
import { RETAIL_TOOL_NAMES } from './tools.js';

/** The line of {@link RETAIL_INSTRUCTION} by which the offline policy recognizes the scenario. */
export const RETAIL_TASK_KIND_LINE = 'Task kind: retail-tool-use';

/** How often the policy repeats an identical call before it answers with what it has. */
export const MAX_IDENTICAL_CALLS = 3;

/** System instruction of the retail support agent. */
export const RETAIL_INSTRUCTION = [
  RETAIL_TASK_KIND_LINE,
  'You are a support analyst of an online retailer. You answer questions about customers and their orders with read-only tools',
  'that return full records as JSON:',
  `- ${RETAIL_TOOL_NAMES.findUser}: a customer's user id from first name, last name and zip code;`,
  `- ${RETAIL_TOOL_NAMES.getUser}: a customer's profile, with the ids of all their orders;`,
  `- ${RETAIL_TOOL_NAMES.getOrder}: one order: status (pending, processed, delivered, cancelled), items with the price paid for each`,
  '  and the exact variant (item_id) bought, and the payment history (payments and refunds);',
  `- ${RETAIL_TOOL_NAMES.getProduct}: a catalogue product with every variant (item_id) and whether it is still available;`,
  `- ${RETAIL_TOOL_NAMES.listUserOrders}: every order of a customer in full, as one large result;`,
  `- ${RETAIL_TOOL_NAMES.searchProducts}: catalogue products whose name matches a query.`,
  'Use only what the tools returned: never guess an id, a status or an amount. Amounts are US dollars; add them exactly, to the cent.',
  'When you know everything the request asks, reply with one or two sentences of reasoning and end with the single line',
  'starting with "Answer:" in the format the request gives. If something cannot be found, say what is missing instead of guessing.',
].join('\n');

type Call = { toolName: string; input: Record<string, string> };
/** What the policy still lacks: the call that would fetch it, and how to say it is missing. */
type Need = { call: Call; missing: string };

const norm = (s: string | undefined) => (s ?? '').trim().toLowerCase();
const sameCustomer = (user: KnownUser, customer: RetailCustomerRef) =>
  norm(user.firstName) === norm(customer.firstName) &&
  norm(user.lastName) === norm(customer.lastName) &&
  norm(user.zip) === norm(customer.zip);
const callKey = (toolName: string, input: unknown) => `${toolName} ${canonicalJson(input)}`;

function canonicalJson(value: unknown): string {
  if (typeof value === 'string') {
    // Calls recorded as raw argument text compare by their parsed arguments.
    try {
      return canonicalJson(JSON.parse(value));
    } catch {
      return JSON.stringify(value);
    }
  }
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The task as the prompt states it: the first user message that is a retail request, else the system text. */
function findRequest(view: PromptView): RetailRequest | undefined {
  for (const turn of view.turns) {
    if (turn.role !== 'user') continue;
    const request = parseRetailPrompt(turn.text);
    if (request) return request;
  }
  return parseRetailPrompt(view.instruction);
}

/** Every fact the prompt holds, wherever it sits: system text (a summary may live there), turns, tool output. */
function readPrompt(view: PromptView): RetailFacts {
  const facts = emptyRetailFacts();
  readRetailFacts(view.instruction, facts);
  for (const turn of view.turns) {
    if (turn.role === 'tool') {
      for (const result of turn.results) if (!result.isError) readRetailFacts(result.output, facts);
    } else if (turn.text) {
      readRetailFacts(turn.text, facts);
    }
  }
  return facts;
}

/** Whether an order is known well enough for the template (only the fields the answer depends on). */
function orderKnown(template: RetailTemplate, order: KnownOrder | undefined, productName: string | undefined): boolean {
  if (!order?.status) return false;
  const items = order.items;
  switch (template) {
    case 'delivered-product-spend':
      if (order.status !== 'delivered') return true;
      if (!items || items.some((i) => i.name === undefined)) return false;
      return !items.some((i) => norm(i.name) === norm(productName)) || order.paidCents !== undefined;
    case 'modifiable-pending-orders':
      return (
        order.status !== 'pending' ||
        (!!items && items.every((i) => i.itemId && i.productId && i.priceCents !== undefined))
      );
    case 'most-expensive-item':
      return (
        order.status === 'cancelled' ||
        (!!items && items.every((i) => i.name !== undefined && i.priceCents !== undefined))
      );
    case 'delivered-spend-comparison':
      return order.status !== 'delivered' || order.paidCents !== undefined;
  }
}

/** The first thing still missing, in the order a person would look it up: customer by customer. */
function firstNeed(request: RetailRequest, facts: RetailFacts, users: (KnownUser | undefined)[]): Need | undefined {
  for (const [index, customer] of request.customers.entries()) {
    const user = users[index];
    const who = `${customer.firstName} ${customer.lastName} (zip ${customer.zip})`;
    if (!user) {
      return {
        call: {
          toolName: RETAIL_TOOL_NAMES.findUser,
          input: { first_name: customer.firstName, last_name: customer.lastName, zip: customer.zip },
        },
        missing: `the user id of ${who}`,
      };
    }
    if (!user.orderIds) {
      return {
        call: { toolName: RETAIL_TOOL_NAMES.getUser, input: { user_id: user.userId } },
        missing: `the order list of ${who}`,
      };
    }
    for (const orderId of user.orderIds) {
      const order = facts.orders.get(orderId);
      if (!orderKnown(request.template, order, request.productName)) {
        return {
          call: { toolName: RETAIL_TOOL_NAMES.getOrder, input: { order_id: orderId } },
          missing: `the details of order ${orderId}`,
        };
      }
      if (request.template !== 'modifiable-pending-orders' || order?.status !== 'pending') continue;
      for (const item of order.items ?? []) {
        const productId = item.productId ?? '';
        if (facts.products.get(productId)?.availability.has(item.itemId ?? '') !== true) {
          return {
            call: { toolName: RETAIL_TOOL_NAMES.getProduct, input: { product_id: productId } },
            missing: `whether item ${item.itemId} of product ${productId} (in order ${orderId}) is still available`,
          };
        }
      }
    }
  }
  return undefined;
}

const nameOf = (c: RetailCustomerRef) => `${c.firstName} ${c.lastName}`;

/** Computes the answer from the facts at hand; when some are missing the result is partial (and said to be). */
function answer(
  request: RetailRequest,
  facts: RetailFacts,
  users: (KnownUser | undefined)[],
): { work: string; answer: string } {
  const ordersOf = (user: KnownUser | undefined) => (user?.orderIds ?? []).flatMap((id) => facts.orders.get(id) ?? []);
  const all = users.flatMap(ordersOf);
  switch (request.template) {
    case 'delivered-product-spend': {
      const product = norm(request.productName);
      const hits = all.filter((o) => o.status === 'delivered' && (o.items ?? []).some((i) => norm(i.name) === product));
      const total = hits.reduce((sum, o) => sum + (o.paidCents ?? 0), 0);
      const list = hits.map((o) => `${o.orderId} (${formatCents(o.paidCents ?? 0)})`).join(', ') || 'none';
      return { work: `Delivered orders containing a ${request.productName}: ${list}.`, answer: formatCents(total) };
    }
    case 'modifiable-pending-orders': {
      const pending = all.filter((o) => o.status === 'pending');
      const available = (order: KnownOrder) =>
        (order.items ?? []).every(
          (i) => facts.products.get(i.productId ?? '')?.availability.get(i.itemId ?? '') === true,
        );
      const ok = pending.filter(available);
      const blocked = pending.filter((o) => !available(o)).map((o) => o.orderId);
      const total = (o: KnownOrder) => (o.items ?? []).reduce((sum, i) => sum + (i.priceCents ?? 0), 0);
      return {
        work: `Pending orders: ${pending.length}; with an item no longer available: ${blocked.join(', ') || 'none'}.`,
        answer: ok.length === 0 ? 'none' : ok.map((o) => `${o.orderId}: ${formatCents(total(o))}`).join('; '),
      };
    }
    case 'most-expensive-item': {
      let best: { orderId: string; name: string; cents: number } | undefined;
      for (const order of all) {
        if (order.status === 'cancelled') continue;
        for (const item of order.items ?? []) {
          if (item.priceCents !== undefined && (!best || item.priceCents > best.cents)) {
            best = { orderId: order.orderId, name: item.name ?? 'unnamed item', cents: item.priceCents };
          }
        }
      }
      return best
        ? {
            work: `Checked ${all.length} orders.`,
            answer: `${best.name}, ${formatCents(best.cents)}, order ${best.orderId}`,
          }
        : { work: `No item found in ${all.length} orders.`, answer: 'none' };
    }
    case 'delivered-spend-comparison': {
      const totals = request.customers.map((customer, index) => ({
        name: nameOf(customer),
        cents: ordersOf(users[index])
          .filter((o) => o.status === 'delivered')
          .reduce((sum, o) => sum + (o.paidCents ?? 0), 0),
      }));
      const [first, second] = totals;
      const verdict =
        !first || !second
          ? 'nobody'
          : first.cents === second.cents
            ? `${first.name} and ${second.name} spent the same`
            : `${(first.cents > second.cents ? first : second).name} spent more`;
      return {
        work: 'Compared delivered orders.',
        answer: [verdict, ...totals.map((t) => `${t.name}: ${formatCents(t.cents)}`)].join('; '),
      };
    }
  }
}

function giveUp(reason: string, partial?: string): OfflineDecision {
  return {
    text:
      `${OFFLINE_DISCLAIMER} I cannot complete this task from the context I have. Missing: ${reason}.` +
      `${partial ? ` Partial result from what is in the context (incomplete, likely wrong): ${partial}.` : ''}\nAnswer: unknown`,
  };
}

/** Decides the next step from the prompt alone. */
function decide(view: PromptView): OfflineDecision {
  const request = findRequest(view);
  if (!request) return giveUp('the task statement (the customers and the question) is no longer in the context');
  const facts = readPrompt(view);
  const users = request.customers.map((customer) => {
    const matching = [...facts.users.values()].filter((u) => sameCustomer(u, customer));
    return matching.find((u) => u.orderIds) ?? matching[0];
  });
  const need = firstNeed(request, facts, users);
  if (!need) {
    const result = answer(request, facts, users);
    return { text: `${OFFLINE_DISCLAIMER} ${result.work}\nAnswer: ${result.answer}` };
  }

  // Count earlier identical calls and remember how the latest one ended.
  const key = callKey(need.call.toolName, need.call.input);
  const keyById = new Map<string, string>();
  let repeats = 0;
  let lastError: string | undefined;
  for (const turn of view.turns) {
    if (turn.role === 'assistant') {
      for (const call of turn.toolCalls) {
        const earlierKey = callKey(call.toolName, call.input);
        keyById.set(call.toolCallId, earlierKey);
        if (earlierKey === key) repeats += 1;
      }
    } else if (turn.role === 'tool') {
      for (const result of turn.results)
        if (keyById.get(result.toolCallId) === key) lastError = result.isError ? result.output : undefined;
    }
  }
  const partial = () => answer(request, facts, users).answer;
  // The tools are read-only and deterministic: an error would come back the same, so stop at once.
  if (lastError !== undefined)
    return giveUp(`${need.missing} (${need.call.toolName} failed: ${lastError.slice(0, 200)})`, partial());
  if (repeats > MAX_IDENTICAL_CALLS) {
    return giveUp(
      `${need.missing}, still not in the context after ${repeats} identical ${need.call.toolName} calls`,
      partial(),
    );
  }
  return { toolCalls: [need.call] };
}

/**
 * The offline model's policy for retail-tool-use tasks: one tool call a step (so the history grows the
 * way a long agent run does), an answer in the task's format once every needed fact is in the prompt.
 *
 * @example
 * const model = new OfflineModel({ policies: [retailOfflinePolicy] });
 */
export const retailOfflinePolicy: OfflinePolicy = {
  name: 'retail-tool-use',
  matches: (view) => view.instruction.includes(RETAIL_TASK_KIND_LINE) || findRequest(view) !== undefined,
  decide,
};
