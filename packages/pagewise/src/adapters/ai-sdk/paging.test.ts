/**
 * Instruction paging on the AI SDK itself: generateText and ToolLoopAgent run the loop, the model is the
 * AI SDK's MockLanguageModelV3 answering from the prompt it receives.
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
} from '@ai-sdk/provider';
import { generateText, stepCountIs, tool, ToolLoopAgent, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compressionMiddleware } from '../../compression/middleware.js';
import { handleOf } from '../../compression/transcript.js';
import { viewPrompt } from '../../models/prompt-view.js';
import { compactPagingTurns } from '../../paging/paging-history.js';
import { PagingService } from '../../paging/service.js';
import { generateReports } from '../../../../lab/src/scenarios/report-analysis/corpus.js';
import { inMemoryCorpus } from '../../../../lab/src/scenarios/report-analysis/run.js';
import { brokenPairs, catalogue } from '../adapter-checks.contract.js';
import { tool as pagewiseTool } from '../../agents/tool.js';
import { ConfigurationError } from '../../errors.js';
import { aiSdkTool, createAiSdkPaging } from './paging.js';

let ids = 0;
function reply(
  content: (LanguageModelV3Content | { toolName: string; input: unknown })[],
): LanguageModelV3GenerateResult {
  const parts: LanguageModelV3Content[] = content.map((part) =>
    'type' in part
      ? part
      : { type: 'tool-call', toolCallId: `c${++ids}`, toolName: part.toolName, input: JSON.stringify(part.input) },
  );
  return {
    content: parts,
    finishReason: { unified: parts.some((p) => p.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined },
    usage: {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    },
    warnings: [],
  };
}

/** A mock model answering with the scripted step for each call, in order. */
function mock(steps: ((options: LanguageModelV3CallOptions) => LanguageModelV3GenerateResult)[]) {
  let callCount = 0;
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const step = steps[callCount++];
      if (!step) throw new Error(`unexpected model call #${callCount}`);
      return step(options);
    },
  });
}

const sentence = (body: string) => body.split('\n').find((l) => l.length > 120)!;

describe('pagewise/ai-sdk: instruction paging', () => {
  const reports = generateReports(20, 5);
  const { source } = inMemoryCorpus(reports);
  const uris = reports.map((r) => r.uri);

  it('offers every paging tool but get_reports unless told which: get_reports would repeat page_in', () => {
    const offered = Object.keys(createAiSdkPaging({ service: new PagingService({ source }), instruction: '' }).tools);
    expect(offered).not.toContain('get_reports');
    expect(offered).toEqual(expect.arrayContaining(['page_in', 'page_out', 'read_frame', 'save_result', 'calculate']));
    const pattern = createAiSdkPaging({
      service: new PagingService({ source }),
      instruction: '',
      tools: ['get_reports', 'save_result'],
    });
    expect(Object.keys(pattern.tools)).toEqual(['get_reports', 'save_result']);
  });

  it('generateText: prepareStep re-renders the step block from the working set after the messages; bodies never enter the messages', async () => {
    const paging = createAiSdkPaging({
      service: new PagingService({ source }),
      instruction: 'Count the reports you read.',
      processors: [compactPagingTurns({ keepLast: 1 })],
    });
    const systems: string[] = [];
    const blocks: string[] = [];
    const system = (options: LanguageModelV3CallOptions) => {
      const view = viewPrompt(options);
      systems.push(view.system);
      blocks.push(view.stepBlock);
      return view.stepBlock;
    };
    const model = mock([
      (o) => (system(o), reply([{ toolName: 'page_in', input: { uris: uris.slice(0, 10) } }])),
      (options) => {
        const prompt = system(options);
        const seen = reports.filter((r) => prompt.includes(sentence(r.body))).length;
        return reply([
          { toolName: 'save_result', input: { task_id: 'batch-1', result: `${seen} read` } },
          { toolName: 'page_in', input: { uris: uris.slice(10) } },
        ]);
      },
      (options) => {
        const prompt = system(options);
        const seen = reports.filter((r) => prompt.includes(sentence(r.body))).length;
        return reply([{ type: 'text', text: `batch 1: ${/batch-1: (\d+) read/.exec(prompt)?.[1]}, batch 2: ${seen}` }]);
      },
    ]);
    const result = await generateText({
      model,
      tools: paging.tools,
      prepareStep: paging.prepareStep,
      stopWhen: stepCountIs(10),
      prompt: 'How many reports are there?',
    });
    expect(result.text).toBe('batch 1: 10, batch 2: 10');
    // Only the current batch was in the step block each time; the system message never changed.
    expect(blocks[1]).toContain(sentence(reports[0]!.body));
    expect(blocks[2]).not.toContain(sentence(reports[0]!.body));
    expect(blocks[2]).toContain(sentence(reports[19]!.body));
    expect(systems).toEqual(Array(3).fill('Count the reports you read.'));
    expect(model.doGenerateCalls[1]!.prompt.at(-1)!.role).toBe('user');
    // The AI SDK's own history holds receipts, never a body.
    const history = JSON.stringify(result.response.messages);
    for (const report of reports) expect(history).not.toContain(JSON.stringify(sentence(report.body)).slice(1, -1));
    expect(history).toContain('10 loaded');
    // Older paging turns were dropped from the request, whole; pairs intact everywhere.
    expect(brokenPairs(model.doGenerateCalls)).toBeUndefined();
    const lastPrompt = model.doGenerateCalls[2]!.prompt;
    expect(lastPrompt.filter((m) => m.role === 'assistant')).toHaveLength(1);
    expect(paging.state['result:batch-1']).toBe('10 read');
    expect(paging.state['temp:want_read']).toBeDefined();
    // The next call is a new invocation: the working set starts empty, saved results remain.
    const next = mock([
      (o) => reply([{ type: 'text', text: viewPrompt(o).instruction.includes('<<<PAGE') ? 'pages' : 'none' }]),
    ]);
    const again = await generateText({
      model: next,
      tools: paging.tools,
      prepareStep: paging.prepareStep,
      prompt: 'And now?',
    });
    expect(again.text).toBe('none');
    expect(paging.state['temp:want_read']).toBeUndefined();
    expect(paging.state['result:batch-1']).toBe('10 read');
  });

  it('ToolLoopAgent + compression middleware: a compressed result keeps a handle that page_in follows', async () => {
    const { text, fact } = catalogue();
    const compression = compressionMiddleware({ observation: { thresholdTokens: 300 }, history: false });
    const paging = createAiSdkPaging({ service: compression.service, instruction: 'Answer about the catalogue.' });
    let seenOutput = '';
    const base = mock([
      () => reply([{ toolName: 'fetch_catalogue', input: {} }]),
      (options) => {
        const last = viewPrompt(options).turns.at(-1)!;
        seenOutput = last.role === 'tool' ? last.results[0]!.output : '';
        return reply([{ toolName: 'page_in', input: { uris: [handleOf(seenOutput) ?? 'none'] } }]);
      },
      (o) => reply([{ type: 'text', text: viewPrompt(o).stepBlock.includes(fact) ? `Found: ${fact}` : 'not found' }]),
    ]);
    const agent = new ToolLoopAgent({
      model: wrapLanguageModel({ model: base, middleware: compression }),
      tools: {
        fetch_catalogue: tool({ description: 'The catalogue.', inputSchema: z.object({}), execute: async () => text }),
        page_in: paging.tools.page_in!,
      },
      prepareStep: paging.prepareStep,
      stopWhen: stepCountIs(10),
    });
    const result = await agent.generate({ prompt: 'Which warehouses hold widgets?' });
    expect(result.text).toBe(`Found: ${fact}`);
    expect(seenOutput).toMatch(/^\[pagewise\] Compressed from \d+ tokens/m);
    expect(seenOutput).not.toContain(fact);
    expect(await compression.restore(handleOf(seenOutput)!)).toBe(text);
    expect(brokenPairs(base.doGenerateCalls)).toBeUndefined();
    // What the model saw as history: the compressed text, never the raw one.
    for (const call of base.doGenerateCalls)
      for (const message of call.prompt)
        if (message.role === 'tool') expect(JSON.stringify(message)).not.toContain(fact);
  });
});

describe('aiSdkTool: a pagewise tool in the AI SDK loop', () => {
  // A pagewise tool that keeps a count in its state, so a call that has no state to write fails.
  const counter = pagewiseTool({
    name: 'count_visit',
    description: 'Counts a visit and returns the count so far.',
    inputSchema: z.object({ page: z.string() }),
    execute: ({ page }, ctx) => {
      const visits = Number(ctx.state.get(`visits:${page}`) ?? 0) + 1;
      ctx.state.set(`visits:${page}`, visits);
      return `${page}: ${visits} visit(s) in session ${ctx.sessionId}`;
    },
  });
  // The tool results the model saw at its last call (the whole conversation by then).
  const toolOutputs = (model: MockLanguageModelV3): string[] =>
    (model.doGenerateCalls.at(-1)?.prompt ?? []).flatMap((message) =>
      message.role === 'tool'
        ? message.content.flatMap((p) => (p.type === 'tool-result' && p.output.type === 'text' ? [p.output.value] : []))
        : [],
    );

  it('called as documented, `aiSdkTool(tool)`, runs the tool with a state of its own', async () => {
    const model = mock([
      () => reply([{ toolName: 'count_visit', input: { page: 'home' } }]),
      () => reply([{ toolName: 'count_visit', input: { page: 'home' } }]),
      () => reply([{ type: 'text', text: 'done' }]),
    ]);
    const result = await generateText({
      model,
      tools: { count_visit: aiSdkTool(counter) },
      stopWhen: stepCountIs(5),
      prompt: 'Visit home twice.',
    });
    expect(result.text).toBe('done');
    expect(toolOutputs(model)).toEqual(['home: 1 visit(s) in session ai-sdk', 'home: 2 visit(s) in session ai-sdk']);
  });

  it('with paging.binding, shares the state the paging tools read', async () => {
    const paging = createAiSdkPaging({ service: new PagingService(), instruction: 'Count visits.' });
    const model = mock([
      () => reply([{ toolName: 'count_visit', input: { page: 'docs' } }]),
      () => reply([{ type: 'text', text: 'done' }]),
    ]);
    await generateText({
      model,
      tools: { count_visit: aiSdkTool(counter, paging.binding), ...paging.tools },
      prepareStep: paging.prepareStep,
      stopWhen: stepCountIs(5),
      prompt: 'Visit docs.',
    });
    expect(paging.state['visits:docs']).toBe(1);
  });

  it('refuses an AI SDK tool or a half binding with a ConfigurationError that says what to pass', () => {
    const sdkTool = tool({ description: 'x', inputSchema: z.object({}), execute: async () => 'x' });
    expect(() => aiSdkTool(sdkTool as never)).toThrow(ConfigurationError);
    expect(() => aiSdkTool(sdkTool as never)).toThrow(/must be a pagewise tool.*goes into `tools` as it is/su);
    expect(() => aiSdkTool(counter, { state: {} } as never)).toThrow(
      /aiSdkTool\(count_visit\): the binding lacks sessionId \(a string\), invocationId .*paging\.binding/su,
    );
  });
});
