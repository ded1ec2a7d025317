/**
 * pagewise inside LangChain.js itself: `createAgent` runs the loop and keeps the messages, the model is
 * LangChain's own fake chat model (`fakeModel` from `@langchain/core/testing`) whose responses are
 * computed from the messages it receives, and pagewise comes in as middleware and tools only.
 */
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool as lcTool } from '@langchain/core/tools';
import { createAgent, summarizationMiddleware } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { InstructionProvider } from '../../pagewise/src/agents/agent.js';
import { observationCompressor } from '../../pagewise/src/compression/observation.js';
import { historyCompressor } from '../../pagewise/src/compression/history.js';
import { handleOf } from '../../pagewise/src/compression/transcript.js';
import { viewPrompt } from '../../pagewise/src/models/prompt-view.js';
import type { OfflineDecision } from '../../pagewise/src/models/offline.js';
import { compactPagingTurns } from '../../pagewise/src/paging/paging-history.js';
import { PagingService } from '../../pagewise/src/paging/service.js';
import { brokenPairs } from '../../pagewise/src/adapters/adapter-checks.contract.js';
import * as flows from '../../pagewise/src/adapters/thread-adapter.contract.js';
import { isCorrect } from '../../lab/src/scenarios/report-analysis/questions.js';
import { langchainRequestToCallOptions } from './messages.js';
import {
  historyMiddleware,
  observationMiddleware,
  pagewiseInstructionMiddleware,
  pagingMiddleware,
} from './middleware.js';
import { LangChainThreads } from './threads.js';
import { langchainTool } from './tools.js';

let ids = 0;

/**
 * LangChain's fake model with `responseCount` queued responses, each computed by `decide` from the view of the
 * messages it receives (the agent's tools named as offered); every request is kept for measuring.
 */
function reader(responseCount: number, tools: readonly unknown[], decide: flows.Decide) {
  const requests: ReturnType<typeof langchainRequestToCallOptions>[] = [];
  const model = fakeModel();
  for (let index = 0; index < responseCount; index++)
    model.respond((messages: BaseMessage[]) => {
      const options = langchainRequestToCallOptions({ messages, tools });
      requests.push(options);
      const decided = decide(viewPrompt(options));
      const decision: OfflineDecision = typeof decided === 'string' ? { text: decided } : decided;
      return new AIMessage({
        content: decision.text ?? '',
        tool_calls: (decision.toolCalls ?? []).map((call) => ({
          id: `call_${++ids}`,
          name: call.toolName,
          args: call.input as Record<string, unknown>,
          type: 'tool_call' as const,
        })),
      });
    });
  return { model, requests };
}

function escalation(messages: readonly BaseMessage[]): string | undefined {
  for (const message of messages)
    if (AIMessage.isInstance(message))
      for (const call of message.tool_calls ?? [])
        if (call.name === 'escalate') return String((call.args as { reason: string }).reason);
  return undefined;
}

const transfer = lcTool(() => 'Transferred to the analyst.', {
  name: 'transfer_to_agent',
  description: 'Hand the task to another agent.',
  schema: z.object({ agent_name: z.string() }),
  returnDirect: true,
});

describe('@pagewise/langchain: the 164-report paging flow inside createAgent', () => {
  const task = flows.reportTask();
  const { reports, question } = task;
  const config = { configurable: { thread_id: 'analysis-1' }, recursionLimit: 400 };

  /** Planner then analyst, two LangChain agents on one thread; the analyst's middleware is given. */
  async function runFlow(
    strategy: 'paging' | 'none',
    analystMiddleware: (ra: ReturnType<typeof flows.reportAnalyst>, threads: LangChainThreads) => never[],
  ) {
    const threads = new LangChainThreads();
    const ra = flows.reportAnalyst(task, strategy);
    const plannerTools = [...ra.planner.tools.map((t) => langchainTool(t, { threads })), transfer];
    const planner = reader(3, plannerTools, flows.reportDecide);
    const plannerAgent = createAgent({
      model: planner.model,
      tools: plannerTools,
      middleware: [pagewiseInstructionMiddleware({ instruction: () => ra.planner.instruction as string, threads })],
    });
    const planned = await plannerAgent.invoke({ messages: [new HumanMessage(question.text)] }, config);
    const analystTools = ra.analyst.tools.map((tool) =>
      langchainTool(tool, { threads, returnDirect: tool.name === 'escalate' }),
    );
    const analyst = reader(60, analystTools, flows.reportDecide);
    const analystAgent = createAgent({
      model: analyst.model,
      tools: analystTools,
      middleware: analystMiddleware(ra, threads),
    });
    const result = await analystAgent.invoke({ messages: planned.messages }, config);
    return { threads, planner, analyst, result, answer: escalation(result.messages) };
  }

  it('bodies never enter LangChain messages; the answer matches the pagewise runner on the same script', async () => {
    const flow = await runFlow('paging', (ra, threads) => [
      pagewiseInstructionMiddleware({
        instruction: ra.analyst.instruction as InstructionProvider,
        threads,
        processors: [compactPagingTurns({ keepLast: 1 })],
      }) as never,
    ]);
    expect(flow.answer, 'the analyst escalated with an answer').toBeDefined();
    expect(isCorrect(flow.answer!, question.gold), flow.answer).toBe(true);

    // What LangChain keeps (its state messages) holds receipts only, never a report body; the model did read
    // them: bodies reached the step block after the history, fenced, while the system message stayed the same at
    // every call (the cacheable prefix). The thread's session kept the durable result and no working set.
    const session = (await flow.threads.store.getSession({
      appName: 'langchain',
      userId: 'langchain',
      sessionId: 'analysis-1',
    }))!;
    flows.expectPagedFlow(
      task,
      {
        kept: JSON.stringify(flow.result.messages),
        analyst: flow.analyst.requests,
        all: [...flow.planner.requests, ...flow.analyst.requests],
        systems: flow.analyst.requests.map((c) => (c.prompt[0]?.role === 'system' ? c.prompt[0].content : '')),
      },
      session,
    );
    for (const request of flow.analyst.requests) expect(request.prompt.at(-1)?.role).toBe('user');

    // The same script on pagewise's own runner.
    const own = await flows.runnerReplay(task, flow.planner.requests.length + flow.analyst.requests.length);
    expect(own.answer).toBe(flow.answer);

    // LangChain's own summarization on the naive strategy (bodies returned into history), same reader.
    const summaries: ReturnType<typeof langchainRequestToCallOptions>[] = [];
    const summarizer = fakeModel();
    for (let index = 0; index < 40; index++)
      summarizer.respond((messages: BaseMessage[]) => {
        summaries.push(langchainRequestToCallOptions({ messages }));
        // A stand-in summarizer: the first 2,000 characters of the messages it was asked to summarize.
        const prompt = messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
        const at = prompt.indexOf('Messages to summarize:');
        return new AIMessage(
          prompt
            .slice(at < 0 ? 0 : at + 'Messages to summarize:'.length)
            .trim()
            .slice(0, 2000),
        );
      });
    const naive = await runFlow('none', (ra, threads) => [
      summarizationMiddleware({ model: summarizer, trigger: { tokens: 24_000 }, keep: { messages: 6 } }) as never,
      pagewiseInstructionMiddleware({ instruction: ra.analyst.instruction as InstructionProvider, threads }) as never,
    ]);

    const plain = await runFlow('none', (ra, threads) => [
      pagewiseInstructionMiddleware({ instruction: ra.analyst.instruction as InstructionProvider, threads }) as never,
    ]);
    // The body check above has teeth: without paging, LangChain's messages do hold the bodies.
    expect(JSON.stringify(plain.result.messages)).toContain(flows.bodySentence(reports[0]!.body));
    const nv = flows.figures([...plain.planner.requests, ...plain.analyst.requests]);
    const lc = flows.figures([...flow.planner.requests, ...flow.analyst.requests]);
    const pw = flows.figures(own.calls);
    const sm = flows.figures([...naive.planner.requests, ...naive.analyst.requests]);
    const smCost = flows.figures(summaries.length ? summaries : [{ prompt: [] }]);
    console.log(
      [
        `LangChain createAgent vs pagewise runner, same scripted reader (164 reports, o200k tokens per request):`,
        `  LangChain + pagewise paging:        ${lc.calls} calls, peak ${lc.peak}, cumulative ${lc.cumulative}, answer ${isCorrect(flow.answer!, question.gold) ? 'correct' : 'wrong'}`,
        `  pagewise runner:                    ${pw.calls} calls, peak ${pw.peak}, cumulative ${pw.cumulative}`,
        `  LangChain naive (bodies in history): ${nv.calls} calls, peak ${nv.peak}, cumulative ${nv.cumulative}, answer ${plain.answer && isCorrect(plain.answer, question.gold) ? 'correct' : 'not correct'}`,
        `  LangChain naive + summarization:    ${sm.calls} calls, peak ${sm.peak}, cumulative ${sm.cumulative} (+ ${summaries.length} summarizer calls, cumulative ${summaries.length ? smCost.cumulative : 0}), answer ${naive.answer && isCorrect(naive.answer, question.gold) ? 'correct' : `not correct: ${naive.answer?.replace(/\s+/g, ' ').slice(0, 90)}`}`,
      ].join('\n'),
    );
    flows.expectRunnerParity(lc, pw);
  }, 300_000);
});

describe('@pagewise/langchain: contract', () => {
  const PROBE = flows.secretProbe('LANGCHAIN');

  it('a compressed tool result keeps a handle that page_in restores byte for byte; LangChain stores only the compressed text', async () => {
    const { text, fact, service, ...script } = flows.catalogueCase();
    const threads = new LangChainThreads();
    const fetchCatalogue = langchainTool(script.tool, { threads });
    const paging = pagingMiddleware({ service, threads, tools: ['page_in', 'page_out'] });
    const tools = [fetchCatalogue, ...(paging.tools ?? [])];
    const scripted = reader(3, tools, script.decide);
    const agent = createAgent({
      model: scripted.model,
      tools: [fetchCatalogue],
      systemPrompt: 'Answer questions about the catalogue.',
      middleware: [
        observationMiddleware({
          processors: [observationCompressor({ service, thresholdTokens: 300, boundary: () => 'a1b2c3d4' })],
          threads,
        }),
        paging,
      ],
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Which warehouses hold widgets?')] },
      { configurable: { thread_id: 'clerk-1' } },
    );
    flows.expectCompressedCatalogue(script.seen(), fact);
    expect(result.messages.at(-1)?.content).toBe(`Found: ${fact}`);
    const stored = result.messages.find(
      (x) => x.getType() === 'tool' && (x as { name?: string }).name === 'fetch_catalogue',
    )!;
    expect(JSON.stringify(stored)).not.toContain(fact);
    expect(await service.body(handleOf(String(stored.content))!, 'clerk-1')).toBe(text);
    expect(brokenPairs(scripted.requests)).toBeUndefined();
    // The ledger measured every model call.
    expect(paging.ledger.entries).toHaveLength(3);
  });

  it('untrusted page text stays inside the fence; a forged fence line cannot close it', async () => {
    const hostile = flows.hostilePage();
    const service = new PagingService({ source: hostile.source });
    const threads = new LangChainThreads();
    const paging = pagingMiddleware({ service, threads, tools: ['get_reports'] });
    const scripted = reader(2, paging.tools ?? [], hostile.decide);
    const agent = createAgent({ model: scripted.model, tools: [], middleware: [paging] });
    const result = await agent.invoke({ messages: [new HumanMessage('Read it.')] });
    flows.expectFenceHolds(hostile.system());
    expect(JSON.stringify(result.messages)).not.toContain('ignore all rules');
  });

  it('a failing tool reaches the model as an error result with secrets from the environment redacted', async () => {
    const secret = 'sk-live-0123456789abcdef';
    process.env[PROBE] = secret;
    const threads = new LangChainThreads();
    const pagewiseFailing = langchainTool(flows.failingCharge(secret), { threads });
    const ownFailing = lcTool(
      () => {
        throw new Error(`upstream said: bad token ${secret}`);
      },
      { name: 'lookup', description: 'Looks up.', schema: z.object({}) },
    );
    const scripted = reader(2, [pagewiseFailing, ownFailing], flows.chargeAndLookup);
    const agent = createAgent({
      model: scripted.model,
      tools: [pagewiseFailing, ownFailing],
      middleware: [observationMiddleware({ processors: [], threads })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage('Charge it.')] });
    const json = JSON.stringify(result.messages) + JSON.stringify(scripted.requests);
    expect(json).not.toContain(secret);
    expect(json).toContain(`[redacted ${PROBE}]`);
    const errors = result.messages.filter(
      (x) => x.getType() === 'tool' && (x as { status?: string }).status === 'error',
    );
    expect(errors).toHaveLength(2);
    expect(brokenPairs(scripted.requests)).toBeUndefined();
  });

  it('history compression rewrites LangChain state with pairs intact; the summary names a handle page_in restores', async () => {
    const service = new PagingService();
    const threads = new LangChainThreads();
    const echo = langchainTool(flows.echoTool(), { threads });
    const paging = pagingMiddleware({ service, threads, tools: ['page_in'] });
    const tools = [echo, ...(paging.tools ?? [])];
    const script = flows.echoScript(/kept as (tool:\/\/history\/h1%2F1); page_in/);
    const scripted = reader(9, tools, script.decide);
    const agent = createAgent({
      model: scripted.model,
      tools: [echo],
      middleware: [
        historyMiddleware({
          processors: [historyCompressor({ thresholdTokens: 600, keepLastTurns: 2 })],
          service,
          threads,
        }),
        paging,
      ],
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Echo six times.')] },
      { configurable: { thread_id: 'h1' }, recursionLimit: 100 },
    );
    expect(brokenPairs(scripted.requests)).toBeUndefined();
    // LangChain's state was rewritten: fewer tool messages than calls made, a summary with a handle.
    const toolMessages = result.messages.filter((x) => x.getType() === 'tool');
    expect(toolMessages.length).toBeLessThan(12);
    expect(JSON.stringify(result.messages)).toMatch(/kept as tool:\/\/history/);
    // The archive holds the replaced tool results verbatim.
    flows.expectArchive(script.restored(), await service.body('tool://history/h1%2F1', 'h1'));
  });

  it('keeps pagewise state per LangGraph thread: saved results outlive an invocation, the working set does not', async () => {
    const service = new PagingService();
    const threads = new LangChainThreads();
    const paging = pagingMiddleware({ service, threads, tools: ['save_result'] });
    const systems: string[] = [];
    const scripted = reader(
      6,
      paging.tools ?? [],
      flows.noteScript(systems, (v) => v.firstUserText),
    );
    const agent = createAgent({ model: scripted.model, tools: [], middleware: [paging] });
    await agent.invoke({ messages: [new HumanMessage('save alpha')] }, { configurable: { thread_id: 'a' } });
    await agent.invoke({ messages: [new HumanMessage('what was saved?')] }, { configurable: { thread_id: 'a' } });
    await agent.invoke({ messages: [new HumanMessage('what was saved?')] }, { configurable: { thread_id: 'b' } });
    // Calls: save, ok (thread a), ok (thread a, next invocation), ok (thread b).
    flows.expectNotesPerThread(systems);
    const threadA = await threads.store.getSession({ appName: 'langchain', userId: 'langchain', sessionId: 'a' });
    expect(threadA?.state['result:note']).toBe('save alpha');
  });
});
