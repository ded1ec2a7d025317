/**
 * Instruction paging and compression inside a Mastra agent: Mastra's `Agent` runs the loop and keeps the
 * messages in its memory; pagewise processors render the working set into a system message on every step,
 * offer the paging tools, and store a large tool result compressed with a handle to its raw text. pagewise
 * state is kept per Mastra memory thread. The model is the AI SDK's mock model (not an LLM), each response
 * computed from the prompt Mastra sends, so this runs offline:
 * npx tsx examples/mastra-paging.ts
 */
import { Agent } from '@mastra/core/agent';
import { MockMemory } from '@mastra/core/memory';
import { createTool } from '@mastra/core/tools';
import type { LanguageModelV3CallOptions, LanguageModelV3Content } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { MastraThreads, observationProcessor, pagingProcessor } from '@pagewise/mastra';
import { observationCompressor } from 'pagewise/compression';
import { compactPagingTurns, PagingService } from 'pagewise/paging';
import { handleOf } from 'pagewise/ai-sdk';
import { generateReports, inMemoryCorpus } from '@pagewise/lab/scenarios/report-analysis';

const reports = generateReports(12, 4);
const service = new PagingService({ source: inMemoryCorpus(reports).source });
const threads = new MastraThreads();
const memory = new MockMemory();
const inventory = Array.from({ length: 150 }, (_, i) => `item ${i}: ${(i * 7) % 40} units in bin ${i % 9}`).join('\n');
const fetchInventory = createTool({
  id: 'fetch_inventory',
  description: 'The inventory.',
  inputSchema: z.object({}),
  execute: async () => inventory,
});

const systemOf = (options: LanguageModelV3CallOptions) =>
  options.prompt.flatMap((m) => (m.role === 'system' ? [m.content] : [])).join('\n');
const pagesIn = (system: string) => (system.match(/^<<<PAGE /gm) ?? []).length;
const lastToolOutput = (options: LanguageModelV3CallOptions) => {
  const last = options.prompt.at(-1);
  const part = last?.role === 'tool' ? last.content.at(-1) : undefined;
  return part?.type === 'tool-result' && part.output.type === 'text' ? part.output.value : '';
};
const call = (toolName: string, input: object, toolCallId: string): LanguageModelV3Content => ({
  type: 'tool-call',
  toolCallId,
  toolName,
  input: JSON.stringify(input),
});
// Each response is computed from the prompt the model receives, as a model would see it.
const responses: ((options: LanguageModelV3CallOptions) => LanguageModelV3Content[])[] = [
  () => [call('get_reports', { urls: reports.slice(0, 6).map((r) => r.uri) }, 'r1')],
  (options) => [
    call('save_result', { task_id: 'first', result: `${pagesIn(systemOf(options))} pages read` }, 's1'),
    call('fetch_inventory', {}, 'i1'),
  ],
  (options) => {
    const saved = /- first: (.*)/.exec(systemOf(options))?.[1];
    return [{ type: 'text', text: `Saved "${saved}"; inventory handle: ${handleOf(lastToolOutput(options))}` }];
  },
];
let step = 0;
const model = new MockLanguageModelV3({
  doGenerate: async (options) => {
    const content = responses[step++]!(options);
    return {
      content,
      finishReason: { unified: content.some((c) => c.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined },
      usage: {
        inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 0, text: 0, reasoning: 0 },
      },
      warnings: [],
    };
  },
});

const paging = pagingProcessor({
  service,
  threads,
  tools: ['get_reports', 'save_result', 'page_in'],
  processors: [compactPagingTurns()],
});
const observations = observationProcessor({
  processors: [observationCompressor({ service, thresholdTokens: 300 })],
  threads,
});
const agent = new Agent({
  id: 'analyst',
  name: 'analyst',
  instructions: 'Read the reports, then check the inventory.',
  model,
  memory,
  tools: { fetch_inventory: fetchInventory },
  inputProcessors: [observations, paging],
  outputProcessors: [observations],
});
const result = await agent.generate('Report and inventory check.', {
  memory: { thread: 'example-1', resource: 'user-1' },
});
console.log(result.text);
const stored = JSON.stringify((await memory.recall({ threadId: 'example-1', perPage: false })).messages);
console.log(
  `Mastra's memory: ${stored.length} characters; report bodies in it: ${reports.filter((r) => stored.includes(r.body.slice(-80))).length}`,
);
console.log(
  `Raw inventory behind the handle, byte for byte: ${(await service.body(/tool:\/\/\S+/.exec(result.text)![0], 'example-1')) === inventory}`,
);
const session = await threads.session({ threadId: 'example-1', resourceId: 'user-1' });
console.log(`Thread state kept for the next call: ${JSON.stringify(session?.state)}`);
console.log(
  `Model requests measured: ${paging.ledger.entries.map((e) => e.promptTokens).join(', ')} prompt tokens (o200k).`,
);
