/**
 * ACON compression inside a plain AI SDK call, no runner: a verbose tool result in the prompt is compressed
 * by the middleware before the model sees it. The model here is the AI SDK's mock, so this runs offline:
 * npx tsx examples/ai-sdk-middleware.ts
 */
import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { compressionMiddleware } from 'pagewise/ai-sdk';

const orders = Array.from({ length: 120 }, (_, i) => ({
  order_id: `#W${1000 + i}`,
  status: i % 4 ? 'delivered' : 'pending',
  total: 20 + i,
  note: 'Left at the front door.',
}));
const model = new MockLanguageModelV3({
  doGenerate: async (options) => {
    const tool = options.prompt.find((m) => m.role === 'tool');
    const seen =
      tool?.role === 'tool' && tool.content[0]?.type === 'tool-result'
        ? JSON.stringify(tool.content[0].output).length
        : 0;
    return {
      content: [{ type: 'text', text: `The model saw ${seen} characters of tool output.` }],
      finishReason: { unified: 'stop', raw: undefined },
      usage: {
        inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 0, text: 0, reasoning: undefined },
      },
      warnings: [],
    };
  },
});

// The extractive compressor needs no model; name a cheap model spec instead to compress with an LLM.
const middleware = compressionMiddleware({ compressor: 'extractive', observation: { thresholdTokens: 512 } });
const { text } = await generateText({
  model: wrapLanguageModel({ model, middleware }),
  messages: [
    { role: 'user', content: 'Which orders are still pending?' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'list_orders', input: {} }] },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'list_orders', output: { type: 'json', value: orders } },
      ],
    },
  ],
});
console.log(`Raw tool output: ${JSON.stringify(orders).length} characters.`);
console.log(text);
