/**
 * pagewise inside Mastra itself: Mastra's `Agent` runs the loop and keeps the messages in its memory
 * (`MockMemory`, Mastra's in-memory memory), the model is the AI SDK's `MockLanguageModelV3` (which
 * Mastra accepts as a model) whose responses are computed from the prompt it receives, and pagewise
 * comes in as tools and processors only.
 */
import { Agent } from '@mastra/core/agent';
import type { MastraDBMessage } from '@mastra/core/agent/message-list';
import { MockMemory } from '@mastra/core/memory';
import { TokenLimiterProcessor } from '@mastra/core/processors';
import { createTool } from '@mastra/core/tools';
import type { LanguageModelV3CallOptions, LanguageModelV3Content } from '@ai-sdk/provider';
import { hasToolCall, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { InstructionProvider } from '../../pagewise/src/agents/agent.js';
import { observationCompressor } from '../../pagewise/src/compression/observation.js';
import { historyCompressor } from '../../pagewise/src/compression/history.js';
import { handleOf } from '../../pagewise/src/compression/transcript.js';
import { viewPrompt, type PromptView } from '../../pagewise/src/models/prompt-view.js';
import type { OfflineDecision } from '../../pagewise/src/models/offline.js';
import { compactPagingTurns } from '../../pagewise/src/paging/paging-history.js';
import { PagingService } from '../../pagewise/src/paging/service.js';
import { measureCallOptions } from '../../pagewise/src/adapters/measure.js';
import { brokenPairs } from '../../pagewise/src/adapters/adapter-checks.contract.js';
import * as flows from '../../pagewise/src/adapters/thread-adapter.contract.js';
import { isCorrect } from '../../lab/src/scenarios/report-analysis/questions.js';
import { historyProcessor, observationProcessor, pagewiseInstructionProcessor, pagingProcessor } from './processors.js';
import { MastraThreads } from './threads.js';
import { mastraTool, type MastraTool } from './tools.js';

const USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};
let ids = 0;

/**
 * The AI SDK's mock model, each response computed by `decide` from the view of the request Mastra
 * sends it; every request is kept for measuring.
 */
function reader(decide: flows.Decide) {
  const requests: LanguageModelV3CallOptions[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      requests.push(options);
      const decided = decide(viewPrompt(options));
      const decision: OfflineDecision = typeof decided === 'string' ? { text: decided } : decided;
      const content: LanguageModelV3Content[] = [
        ...(decision.text ? [{ type: 'text' as const, text: decision.text }] : []),
        ...(decision.toolCalls ?? []).map((call) => ({
          type: 'tool-call' as const,
          toolCallId: `call_${++ids}`,
          toolName: call.toolName,
          input: JSON.stringify(call.input),
        })),
      ];
      const calls = decision.toolCalls?.length ?? 0;
      return {
        content,
        finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined },
        usage: USAGE,
        warnings: [],
      };
    },
  });
  return { model, requests };
}

async function stored(memory: MockMemory, threadId: string): Promise<MastraDBMessage[]> {
  return (await memory.recall({ threadId, perPage: false })).messages;
}

/** The reason of the escalate call Mastra stored, if any. */
function escalation(messages: readonly MastraDBMessage[]): string | undefined {
  for (const message of messages)
    for (const part of message.content.parts)
      if (part.type === 'tool-invocation' && part.toolInvocation.toolName === 'escalate')
        return String((part.toolInvocation.args as { reason: string }).reason);
  return undefined;
}

const toolSet = (tools: readonly MastraTool[]) => Object.fromEntries(tools.map((t) => [t.id, t]));

const transfer = createTool({
  id: 'transfer_to_agent',
  description: 'Hand the task to another agent.',
  inputSchema: z.object({ agent_name: z.string() }),
  execute: async () => 'Transferred to the analyst.',
});

describe('@pagewise/mastra: the 164-report paging flow inside a Mastra agent', () => {
  const task = flows.reportTask();
  const { reports, question } = task;
  const memoryOf = { thread: 'analysis-1', resource: 'u1' };

  /** Planner then analyst, two Mastra agents on one memory thread; the analyst's input processors are given. */
  async function runFlow(
    strategy: 'paging' | 'none',
    analystProcessors: (ra: ReturnType<typeof flows.reportAnalyst>, threads: MastraThreads) => never[],
  ) {
    const threads = new MastraThreads();
    const memory = new MockMemory();
    const ra = flows.reportAnalyst(task, strategy);
    const planner = reader(flows.reportDecide);
    const plannerAgent = new Agent({
      id: 'planner',
      name: 'planner',
      instructions: '',
      model: planner.model,
      memory,
      tools: { ...toolSet(ra.planner.tools.map((t) => mastraTool(t, { threads }))), transfer_to_agent: transfer },
      inputProcessors: [
        pagewiseInstructionProcessor({ instruction: () => ra.planner.instruction as string, threads }) as never,
      ],
    });
    await plannerAgent.generate(question.text, {
      memory: memoryOf,
      stopWhen: [hasToolCall('transfer_to_agent'), stepCountIs(10)],
    });
    const analyst = reader(flows.reportDecide);
    const analystAgent = new Agent({
      id: 'analyst',
      name: 'analyst',
      instructions: '',
      model: analyst.model,
      memory,
      tools: toolSet(ra.analyst.tools.map((t) => mastraTool(t, { threads }))),
      inputProcessors: analystProcessors(ra, threads),
    });
    // The analyst continues the thread: Mastra's memory brings back the question and the planner's turns.
    await analystAgent.generate([], { memory: memoryOf, stopWhen: [hasToolCall('escalate'), stepCountIs(400)] });
    const messages = await stored(memory, memoryOf.thread);
    return { threads, planner, analyst, messages, answer: escalation(messages) };
  }

  it('bodies never enter Mastra messages or memory; the answer matches the pagewise runner on the same script', async () => {
    const flow = await runFlow('paging', (ra, threads) => [
      pagewiseInstructionProcessor({
        instruction: ra.analyst.instruction as InstructionProvider,
        threads,
        processors: [compactPagingTurns({ keepLast: 1 })],
      }) as never,
    ]);
    expect(flow.answer, 'the analyst escalated with an answer').toBeDefined();
    expect(isCorrect(flow.answer!, question.gold), flow.answer).toBe(true);

    // What Mastra keeps (its memory) holds receipts only, never a report body; the model did read them: bodies
    // reached the step block after the history, fenced, while the system messages stayed the same at every call
    // (the cacheable prefix). The thread's session kept the durable result and no working set.
    const session = (await flow.threads.session({ threadId: 'analysis-1', resourceId: 'u1' }))!;
    flows.expectPagedFlow(
      task,
      {
        kept: JSON.stringify(flow.messages),
        analyst: flow.analyst.requests,
        all: [...flow.planner.requests, ...flow.analyst.requests],
        systems: flow.analyst.requests.map((request) =>
          request.prompt
            .filter((m) => m.role === 'system')
            .map((m) => m.content)
            .join('\n'),
        ),
      },
      session,
    );

    // The same script on pagewise's own runner.
    const own = await flows.runnerReplay(task, flow.planner.requests.length + flow.analyst.requests.length);
    expect(own.answer).toBe(flow.answer);

    // Without paging (bodies returned into history), bare and with Mastra's own TokenLimiter.
    const plain = await runFlow('none', (ra, threads) => [
      pagewiseInstructionProcessor({ instruction: ra.analyst.instruction as InstructionProvider, threads }) as never,
    ]);
    // The body check above has teeth: without paging, Mastra's memory does hold the bodies.
    expect(JSON.stringify(plain.messages)).toContain(flows.bodySentence(reports[0]!.body));
    const limited = await runFlow('none', (ra, threads) => [
      new TokenLimiterProcessor({ limit: 24_000 }) as never,
      pagewiseInstructionProcessor({ instruction: ra.analyst.instruction as InstructionProvider, threads }) as never,
    ]);
    const ms = flows.figures([...flow.planner.requests, ...flow.analyst.requests]);
    const pw = flows.figures(own.calls);
    const nv = flows.figures([...plain.planner.requests, ...plain.analyst.requests]);
    const tl = flows.figures([...limited.planner.requests, ...limited.analyst.requests]);
    const verdict = (answer: string | undefined) =>
      answer && isCorrect(answer, question.gold)
        ? 'correct'
        : `not correct: ${answer?.replace(/\s+/g, ' ').slice(0, 90)}`;
    console.log(
      [
        `Mastra Agent vs pagewise runner, same scripted reader (164 reports, o200k tokens per request):`,
        `  Mastra + pagewise paging:             ${ms.calls} calls, peak ${ms.peak}, cumulative ${ms.cumulative}, answer ${verdict(flow.answer)}`,
        `  pagewise runner:                      ${pw.calls} calls, peak ${pw.peak}, cumulative ${pw.cumulative}`,
        `  Mastra naive (bodies in history):     ${nv.calls} calls, peak ${nv.peak}, cumulative ${nv.cumulative}, answer ${verdict(plain.answer)}`,
        `  Mastra naive + TokenLimiter (24,000): ${tl.calls} calls, peak ${tl.peak}, cumulative ${tl.cumulative}, answer ${verdict(limited.answer)}`,
      ].join('\n'),
    );
    flows.expectRunnerParity(ms, pw);
  }, 300_000);
});

describe('@pagewise/mastra: contract', () => {
  const PROBE = flows.secretProbe('MASTRA');

  it('a compressed tool result keeps a handle that page_in restores byte for byte; Mastra stores only the compressed text', async () => {
    const { text, fact, service, ...script } = flows.catalogueCase();
    const threads = new MastraThreads();
    const memory = new MockMemory();
    const fetchCatalogue = mastraTool(script.tool, { threads });
    const paging = pagingProcessor({ service, threads, tools: ['page_in', 'page_out'] });
    const obs = observationProcessor({
      processors: [observationCompressor({ service, thresholdTokens: 300, boundary: () => 'a1b2c3d4' })],
      threads,
    });
    const scripted = reader(script.decide);
    const agent = new Agent({
      id: 'clerk',
      name: 'clerk',
      instructions: 'Answer questions about the catalogue.',
      model: scripted.model,
      memory,
      tools: { fetch_catalogue: fetchCatalogue },
      inputProcessors: [obs, paging],
      outputProcessors: [obs],
    });
    const result = await agent.generate('Which warehouses hold widgets?', {
      memory: { thread: 'clerk-1', resource: 'u1' },
    });
    flows.expectCompressedCatalogue(script.seen(), fact);
    expect(result.text).toBe(`Found: ${fact}`);
    expect(scripted.requests[0]!.prompt[0]).toEqual({
      role: 'system',
      content: 'Answer questions about the catalogue.',
    });
    const messages = await stored(memory, 'clerk-1');
    const part = messages
      .flatMap((x) => x.content.parts)
      .find((p) => p.type === 'tool-invocation' && p.toolInvocation.toolName === 'fetch_catalogue');
    expect(part?.type === 'tool-invocation' && part.toolInvocation.state).toBe('result');
    const kept =
      part?.type === 'tool-invocation' && part.toolInvocation.state === 'result' ? part.toolInvocation.result : '';
    expect(JSON.stringify(part)).not.toContain(fact);
    expect(await service.body(handleOf(String(kept))!, 'clerk-1')).toBe(text);
    expect(brokenPairs(scripted.requests)).toBeUndefined();
    // The ledger measured every model request.
    expect(paging.ledger.entries).toHaveLength(3);
    expect(paging.ledger.entries[0]!.promptTokens).toBe(measureCallOptions(scripted.requests[0]!).total);
  });

  it('untrusted page text stays inside the fence; a forged fence line cannot close it', async () => {
    const hostile = flows.hostilePage();
    const service = new PagingService({ source: hostile.source });
    const threads = new MastraThreads();
    const memory = new MockMemory();
    const paging = pagingProcessor({ service, threads, tools: ['get_reports'] });
    const scripted = reader(hostile.decide);
    const agent = new Agent({
      id: 'reader',
      name: 'reader',
      instructions: 'Read.',
      model: scripted.model,
      memory,
      inputProcessors: [paging],
    });
    await agent.generate('Read it.', { memory: { thread: 'f1', resource: 'u1' } });
    flows.expectFenceHolds(hostile.system());
    expect(JSON.stringify(await stored(memory, 'f1'))).not.toContain('ignore all rules');
  });

  it('a failing tool reaches the model and memory as an error result with secrets from the environment redacted', async () => {
    const secret = 'sk-live-0123456789abcdef';
    process.env[PROBE] = secret;
    const threads = new MastraThreads();
    const memory = new MockMemory();
    const pagewiseFailing = mastraTool(flows.failingCharge(secret), { threads });
    const ownFailing = createTool({
      id: 'lookup',
      description: 'Looks up.',
      inputSchema: z.object({}),
      execute: async () => {
        throw new Error(`upstream said: bad token ${secret}`);
      },
    });
    const scripted = reader(flows.chargeAndLookup);
    const obs = observationProcessor({ processors: [], threads });
    const agent = new Agent({
      id: 'cashier',
      name: 'cashier',
      instructions: 'Charge.',
      model: scripted.model,
      memory,
      tools: { charge: pagewiseFailing, lookup: ownFailing },
      inputProcessors: [obs],
      outputProcessors: [obs],
    });
    const result = await agent.generate('Charge it.', { memory: { thread: 'e1', resource: 'u1' } });
    const messages = await stored(memory, 'e1');
    const json = JSON.stringify(messages) + JSON.stringify(scripted.requests) + JSON.stringify(result.steps);
    expect(json).not.toContain(secret);
    expect(json).toContain(`[redacted ${PROBE}]`);
    const errors = messages
      .flatMap((x) => x.content.parts)
      .filter((p) => p.type === 'tool-invocation' && (p.toolInvocation.state as string) === 'output-error');
    expect(errors).toHaveLength(2);
    expect(brokenPairs(scripted.requests)).toBeUndefined();

    // The check has teeth: without the observation processor, Mastra stores its own tool's error as thrown.
    const bare = new Agent({
      id: 'cashier',
      name: 'cashier',
      instructions: 'Charge.',
      model: reader((view) =>
        view.turns.some((t) => t.role === 'tool') ? 'gave up' : { toolCalls: [{ toolName: 'lookup', input: {} }] },
      ).model,
      memory,
      tools: { lookup: ownFailing },
    });
    await bare.generate('Look it up.', { memory: { thread: 'e2', resource: 'u1' } });
    expect(JSON.stringify(await stored(memory, 'e2'))).toContain(secret);
  });

  it('history compression rewrites each request with pairs intact; the summary names a handle page_in restores', async () => {
    const service = new PagingService();
    const threads = new MastraThreads();
    const memory = new MockMemory();
    const echo = mastraTool(flows.echoTool(), { threads });
    const paging = pagingProcessor({ service, threads, tools: ['page_in'] });
    const script = flows.echoScript(/kept as (tool:\/\/history\/h1%2F\d+); page_in/);
    const scripted = reader(script.decide);
    const agent = new Agent({
      id: 'echoer',
      name: 'echoer',
      instructions: 'Echo.',
      model: scripted.model,
      memory,
      tools: { echo },
      inputProcessors: [
        historyProcessor({
          processors: [historyCompressor({ thresholdTokens: 600, keepLastTurns: 2 })],
          service,
          threads,
        }),
        paging,
      ],
    });
    await agent.generate('Echo six times.', {
      memory: { thread: 'h1', resource: 'u1' },
      stopWhen: stepCountIs(20),
    });
    expect(brokenPairs(scripted.requests)).toBeUndefined();
    // The requests were rewritten: the last carries fewer tool results than calls made, and a summary with a handle.
    const last = scripted.requests.at(-1)!;
    const results = last.prompt.flatMap((x) => (x.role === 'tool' ? x.content : []));
    expect(results.length).toBeLessThan(13);
    expect(JSON.stringify(last.prompt)).toMatch(/kept as tool:\/\/history/);
    // Mastra's memory keeps every result, as with its own TokenLimiter; the archive holds them verbatim.
    const kept = (await stored(memory, 'h1'))
      .flatMap((x) => x.content.parts)
      .filter((p) => p.type === 'tool-invocation' && p.toolInvocation.toolName === 'echo');
    expect(kept).toHaveLength(12);
    flows.expectArchive(script.restored(), await service.body('tool://history/h1%2F1', 'h1'));
  });

  it('keeps pagewise state per Mastra thread: saved results outlive a call, the working set does not', async () => {
    const service = new PagingService();
    const threads = new MastraThreads();
    const memory = new MockMemory();
    const paging = pagingProcessor({ service, threads, tools: ['save_result'] });
    const systems: string[] = [];
    const lastUserText = (view: PromptView) => {
      const turn = view.turns.filter((t) => t.role === 'user').at(-1);
      return turn?.role === 'user' ? turn.text : '';
    };
    const scripted = reader(flows.noteScript(systems, lastUserText));
    const agent = new Agent({
      id: 'notes',
      name: 'notes',
      instructions: 'Notes.',
      model: scripted.model,
      memory,
      inputProcessors: [paging],
    });
    await agent.generate('save alpha', { memory: { thread: 'a', resource: 'u1' } });
    await agent.generate('what was saved?', { memory: { thread: 'a', resource: 'u1' } });
    await agent.generate('what was saved?', { memory: { thread: 'b', resource: 'u1' } });
    // Calls: save, ok (thread a), ok (thread a, next call), ok (thread b).
    flows.expectNotesPerThread(systems);
    const threadA = await threads.session({ threadId: 'a', resourceId: 'u1' });
    expect(threadA?.state['result:note']).toBe('save alpha');

    // A restarted process: new thread sessions over the same store, a new agent; the saved result is there.
    const restarted = new MastraThreads({ store: threads.store });
    const later = reader((view) => {
      systems.push(view.instruction);
      return 'ok';
    });
    const again = new Agent({
      id: 'notes',
      name: 'notes',
      instructions: 'Notes.',
      model: later.model,
      memory,
      inputProcessors: [pagingProcessor({ service, threads: restarted, tools: ['save_result'] })],
    });
    await again.generate('what was saved?', { memory: { thread: 'a', resource: 'u1' } });
    expect(systems.at(-1)).toContain('note: save alpha');
  });
});
