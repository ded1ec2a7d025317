/**
 * ACON compression inside a plain AI SDK call, no runner: a verbose tool result is compressed by the
 * middleware before the model sees it, with a handle; the model follows the handle with the middleware's
 * `page_in` tool when it needs the whole result. The model here is the AI SDK's mock, scripted to do
 * that, so this runs offline:
 * npx tsx examples/ai-sdk-middleware.ts
 */
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { compressionMiddleware, handleOf } from 'pagewise/ai-sdk';
import { z } from 'zod';

const orders = Array.from({ length: 120 }, (_, index) => ({
  order_id: `#W${1000 + index}`,
  status: index % 4 ? 'delivered' : 'pending',
  total: 20 + index,
  note: 'Left at the front door.',
}));
const listOrders = tool({
  description: 'Lists every order.',
  inputSchema: z.object({}),
  execute: async () => orders,
});

/** The text of the latest tool result in the prompt, and the tool that returned it. */
function lastResult(prompt: LanguageModelV3Prompt): { tool: string; text: string } | undefined {
  const message = prompt.at(-1);
  const part = message?.role === 'tool' ? message.content[0] : undefined;
  if (part?.type !== 'tool-result') return undefined;
  const text = part.output.type === 'text' ? part.output.value : JSON.stringify(part.output);
  return { tool: part.toolName, text };
}

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};
const call = (toolName: string, input: object) => ({
  content: [{ type: 'tool-call' as const, toolCallId: `${toolName}-1`, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: undefined },
  usage,
  warnings: [],
});
const say = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  finishReason: { unified: 'stop' as const, raw: undefined },
  usage,
  warnings: [],
});

// A scripted model: list the orders, page the compressed result back in, then answer.
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const last = lastResult(prompt);
    if (!last) return call('list_orders', {});
    const handle = handleOf(last.text);
    console.log(`The model sees ${last.text.length} characters from ${last.tool}.`);
    if (last.tool === 'list_orders' && handle) return call('page_in', { uris: [handle] });
    return say(`Pending: ${(last.text.match(/"pending"/gu) ?? []).length} orders.`);
  },
});

// The extractive compressor needs no model; name a cheap model spec instead to compress with an LLM.
const middleware = compressionMiddleware({ compressor: 'extractive', observation: { thresholdTokens: 512 } });
const { text } = await generateText({
  model: wrapLanguageModel({ model, middleware }),
  tools: { list_orders: listOrders, ...middleware.tools },
  prompt: 'How many orders are still pending?',
  stopWhen: stepCountIs(5),
});
console.log(`Raw tool output: ${JSON.stringify(orders).length} characters.`);
console.log(text);
