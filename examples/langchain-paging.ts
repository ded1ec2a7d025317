/**
 * Instruction paging and compression inside a LangChain.js agent: `createAgent` runs the loop and keeps
 * the messages; pagewise middleware renders the working set into the system message, offers the paging
 * tools, and stores a large tool result compressed with a handle to its raw text. pagewise state is kept
 * per LangGraph thread. The model is LangChain's own fake chat model (not an LLM), so this runs offline:
 * npx tsx examples/langchain-paging.ts
 */
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { LangChainThreads, observationMiddleware, pagingMiddleware } from '@pagewise/langchain';
import { observationCompressor } from 'pagewise/compression';
import { compactPagingTurns, PagingService } from 'pagewise/paging';
import { handleOf } from 'pagewise/ai-sdk';
import { generateReports, inMemoryCorpus } from '@pagewise/lab/scenarios/report-analysis';

const reports = generateReports(12, 4);
const service = new PagingService({ source: inMemoryCorpus(reports).source });
const threads = new LangChainThreads();
const inventory = Array.from({ length: 150 }, (_, i) => `item ${i}: ${(i * 7) % 40} units in bin ${i % 9}`).join('\n');
const fetchInventory = tool(() => inventory, {
  name: 'fetch_inventory',
  description: 'The inventory.',
  schema: z.object({}),
});

const systemOf = (messages: BaseMessage[]) => String(messages[0]?.content ?? '');
const pagesIn = (system: string) => (system.match(/^<<<PAGE /gm) ?? []).length;
const call = (name: string, args: Record<string, unknown>, id: string) => ({
  name,
  args,
  id,
  type: 'tool_call' as const,
});
// Each response is computed from the messages the model receives, as a model would see them.
const model = fakeModel()
  .respond(
    () =>
      new AIMessage({
        content: '',
        tool_calls: [call('get_reports', { urls: reports.slice(0, 6).map((r) => r.uri) }, 'r1')],
      }),
  )
  .respond(
    (messages) =>
      new AIMessage({
        content: '',
        tool_calls: [
          call('save_result', { task_id: 'first', result: `${pagesIn(systemOf(messages))} pages read` }, 's1'),
          call('fetch_inventory', {}, 'i1'),
        ],
      }),
  )
  .respond((messages) => {
    const handle = handleOf(String(messages.at(-1)?.content ?? ''));
    const saved = /- first: (.*)/.exec(systemOf(messages))?.[1];
    return new AIMessage(`Saved "${saved}"; inventory handle: ${handle}`);
  });

const paging = pagingMiddleware({
  service,
  threads,
  tools: ['get_reports', 'save_result', 'page_in'],
  processors: [compactPagingTurns()],
});
const agent = createAgent({
  model,
  systemPrompt: 'Read the reports, then check the inventory.',
  tools: [fetchInventory],
  middleware: [
    observationMiddleware({ processors: [observationCompressor({ service, thresholdTokens: 300 })], threads }),
    paging,
  ],
});
const result = await agent.invoke(
  { messages: [new HumanMessage('Report and inventory check.')] },
  { configurable: { thread_id: 'example-1' } },
);
const answer = String(result.messages.at(-1)?.content);
console.log(answer);
const stored = JSON.stringify(result.messages);
console.log(
  `LangChain's messages: ${stored.length} characters; report bodies in them: ${reports.filter((r) => stored.includes(r.body.slice(-80))).length}`,
);
console.log(
  `Raw inventory behind the handle, byte for byte: ${(await service.body(/tool:\/\/\S+/.exec(answer)![0], 'example-1')) === inventory}`,
);
const session = await threads.store.getSession({ appName: 'langchain', userId: 'langchain', sessionId: 'example-1' });
console.log(`Thread state kept for the next invocation: ${JSON.stringify(session?.state)}`);
console.log(
  `Model calls measured: ${paging.ledger.entries.map((e) => e.promptTokens).join(', ')} prompt tokens (o200k).`,
);
