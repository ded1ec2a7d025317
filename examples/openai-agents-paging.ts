/**
 * Instruction paging and compression on the OpenAI Agents SDK: the agent's dynamic instructions expand
 * the working set kept in the run context, a callModelInputFilter drops old paging turns, and a
 * PagewiseSession stores a large tool result compressed with a handle to its raw text. The model is the
 * SDK's own ScriptedModel (not an LLM), so this runs offline:
 * npx tsx examples/openai-agents-paging.ts
 */
import { Agent, MemorySession, Runner, tool, type AgentInputItem } from '@openai/agents';
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents/testing';
import { z } from 'zod';
import {
  createOpenAiPagingTools,
  durableState,
  isStepBlockItem,
  pagedInstructions,
  pagewiseInputFilter,
  pagingContext,
  PagewiseSession,
  resultOutputText,
} from '@pagewise/openai-agents';
import { observationCompressor, handleOf } from 'pagewise/compression';
import { compactPagingTurns, PagingService } from 'pagewise/paging';
import { generateReports, inMemoryCorpus } from '@pagewise/lab/scenarios/report-analysis';

const reports = generateReports(12, 4);
const paging = new PagingService({ source: inMemoryCorpus(reports).source });
const tools = createOpenAiPagingTools(paging);
const inventory = Array.from({ length: 150 }, (_, i) => `item ${i}: ${(i * 7) % 40} units in bin ${i % 9}`).join('\n');
const cObs = observationCompressor({ service: paging, thresholdTokens: 300 });

// The pages and saved results arrive in the step block, the input's last item (the instructions stay the same).
const stepBlock = (input: unknown) => {
  const last = Array.isArray(input) ? (input.at(-1) as AgentInputItem | undefined) : undefined;
  return last && isStepBlockItem(last) ? String((last as { content: unknown }).content) : '';
};
const pagesIn = (text: string) => (text.match(/^<<<PAGE /gm) ?? []).length;
const model = new ScriptedModel([
  modelResponder(() => [
    functionCall('get_reports', { urls: reports.slice(0, 6).map((r) => r.uri) }, { callId: 'r1' }),
  ]),
  modelResponder(({ request }) => [
    functionCall(
      'save_result',
      { task_id: 'first', result: `${pagesIn(stepBlock(request.input))} pages read` },
      { callId: 's1' },
    ),
    functionCall('fetch_inventory', {}, { callId: 'i1' }),
  ]),
  modelResponder(({ request }) => {
    const results = (request.input as AgentInputItem[]).filter((item) => item.type === 'function_call_result');
    const last = results.at(-1);
    const handle = handleOf(last ? resultOutputText(last.output) : '');
    return [
      assistantMessage(`Saved "${/- first: (.*)/.exec(stepBlock(request.input))?.[1]}"; inventory handle: ${handle}`),
    ];
  }),
]);
const agent = new Agent({
  name: 'analyst',
  model,
  instructions: pagedInstructions({ base: 'Read the reports, then check the inventory.', service: paging }),
  tools: [
    tools.get_reports,
    tools.save_result,
    tool({
      name: 'fetch_inventory',
      description: 'The inventory.',
      parameters: z.object({}),
      execute: () => inventory,
    }),
  ],
});
const session = new PagewiseSession(new MemorySession(), { observationProcessors: [cObs] });
const context = pagingContext({ sessionId: await session.getSessionId() });
const result = await new Runner({ tracingDisabled: true }).run(agent, 'Report and inventory check.', {
  context,
  session,
  callModelInputFilter: pagewiseInputFilter({ observationProcessors: [cObs], processors: [compactPagingTurns()] }),
});
console.log(result.finalOutput);
const stored = JSON.stringify(await session.getItems());
console.log(
  `Stored history: ${stored.length} characters; report bodies in it: ${reports.filter((r) => stored.includes(r.title) && stored.includes(r.body.slice(-80))).length}`,
);
console.log(
  `Raw inventory behind the handle, byte for byte: ${(await paging.body(/tool:\/\/\S+/.exec(result.finalOutput ?? '')![0], context.pagewise.sessionId)) === inventory}`,
);
console.log(`State for the next run: ${JSON.stringify(durableState(context))}`);
