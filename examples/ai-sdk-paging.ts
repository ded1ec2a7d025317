/**
 * Instruction paging inside a plain AI SDK `generateText` loop: `prepareStep` re-renders `system` from
 * the working set before every step, the paging tools return receipts, old paging turns are dropped
 * from the messages. The model is the AI SDK's mock answering from its prompt, so this runs offline:
 * npx tsx examples/ai-sdk-paging.ts
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Content } from '@ai-sdk/provider';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createAiSdkPaging } from 'pagewise/ai-sdk';
import { compactPagingTurns, PagingService } from 'pagewise/paging';
import { generateReports, inMemoryCorpus } from '@pagewise/lab/scenarios/report-analysis';
import { viewPrompt } from 'pagewise/testing';

const reports = generateReports(30, 8);
const paging = createAiSdkPaging({
  service: new PagingService({ source: inMemoryCorpus(reports).source }),
  instruction: 'Read every report in batches of 10 and count them.',
  processors: [compactPagingTurns({ keepLast: 1 })],
});

let step = 0;
let savedBatches = 0;
const promptSizes: number[] = [];
const model = new MockLanguageModelV3({
  doGenerate: async (options: LanguageModelV3CallOptions) => {
    const view = viewPrompt(options);
    promptSizes.push(JSON.stringify(options.prompt).length);
    const inPrompt = (view.stepBlock.match(/^<<<PAGE /gm) ?? []).length;
    const saved = Number(/- read: (\d+)/.exec(view.stepBlock)?.[1] ?? 0);
    const batch = reports.slice(step * 10, step * 10 + 10).map((r) => r.uri);
    // The batch in the prompt is new when it was loaded by the previous step.
    const fresh = inPrompt > 0 && savedBatches < step;
    savedBatches = step;
    if (batch.length) step += 1;
    // Save what the pages in the prompt add, load the next batch; answer once everything is saved.
    const content: LanguageModelV3Content[] = [
      ...(fresh ? [call('save_result', { task_id: 'read', result: String(saved + inPrompt) })] : []),
      ...(batch.length ? [call('page_in', { uris: batch })] : []),
    ];
    if (content.length === 0) content.push({ type: 'text', text: `I read ${saved} reports, 10 at a time.` });
    return {
      content,
      finishReason: { unified: content[0]?.type === 'text' ? 'stop' : 'tool-calls', raw: undefined },
      usage: {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      },
      warnings: [],
    };
  },
});
function call(toolName: string, input: unknown): LanguageModelV3Content {
  return { type: 'tool-call', toolCallId: `${toolName}-${step}`, toolName, input: JSON.stringify(input) };
}

const result = await generateText({
  model,
  tools: paging.tools,
  prepareStep: paging.prepareStep,
  stopWhen: stepCountIs(10),
  prompt: 'How many reports are there?',
});
console.log(result.text);
console.log(`Prompt size per step (characters): ${promptSizes.join(', ')}`);
console.log(
  `Messages the AI SDK kept: ${result.response.messages.length}, ${JSON.stringify(result.response.messages).length} characters, no report body.`,
);
