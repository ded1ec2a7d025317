/**
 * The instruction-paging flow on Google ADK JS itself: a planner that searches and transfers to an
 * analyst, which reads 164 generated reports in batches through paging tools, saves results and
 * escalates. ADK runs the agents, its session service stores the events; the model is ADK's BaseLlm
 * contract over pagewise's scripted model, whose steps decide from the prompt alone. The same script
 * then runs on pagewise's own runner, and both are measured with the project's tokenizer.
 */
import { InMemorySessionService, LlmAgent, Runner as AdkRunner, type Event } from '@google/adk';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { viewPrompt } from '../../pagewise/src/models/prompt-view.js';
import { describe, expect, it } from 'vitest';
import type { InstructionProvider } from '../../pagewise/src/agents/agent.js';
import { Runner } from '../../pagewise/src/agents/runner.js';
import { observationCompressor } from '../../pagewise/src/compression/observation.js';
import { ScriptedModel, type ScriptedStep } from '../../pagewise/src/models/scripted.js';
import { compactPagingTurns } from '../../pagewise/src/paging/paging-history.js';
import { PagingService } from '../../pagewise/src/paging/service.js';
import { tool } from '../../pagewise/src/agents/tool.js';
import { z } from 'zod';
import { createReportAnalyst } from '../../lab/src/scenarios/report-analysis/agent.js';
import { generateReports } from '../../lab/src/scenarios/report-analysis/corpus.js';
import { reportOfflinePolicy } from '../../lab/src/scenarios/report-analysis/policy.js';
import { generateQuestions, isCorrect } from '../../lab/src/scenarios/report-analysis/questions.js';
import { inMemoryCorpus } from '../../lab/src/scenarios/report-analysis/run.js';
import { measureCallOptions } from '../../pagewise/src/adapters/measure.js';
import { brokenPairs, catalogue } from '../../pagewise/src/adapters/adapter-checks.contract.js';
import { handleOf } from '../../pagewise/src/compression/transcript.js';
import { fifoHistory } from '../../pagewise/src/context/processors.js';
import { AiSdkLlm } from './ai-sdk-llm.js';
import { adkInstruction, adkPagedInstruction } from './instruction.js';
import { PagewiseAdkPlugin } from './plugin.js';
import { adkTool, createAdkPagingTools } from './tools.js';

const BOUNDARY = () => 'f3c1a9e07b5d42c68e1f0a2b3c4d5e6f';

/**
 * One scripted step: the report-analysis rules applied to the prompt the model receives. The transfer
 * argument is named as the offered tool declares it (ADK: agentName, pagewise: agent_name).
 */
const reportStep: ScriptedStep = ({ view, options }) => {
  const decision = reportOfflinePolicy.decide(view);
  return {
    ...(decision.text ? { text: decision.text } : {}),
    toolCalls: (decision.toolCalls ?? []).map((call) => {
      if (call.toolName !== 'transfer_to_agent') return call;
      const declared = options.tools?.find((t) => t.name === 'transfer_to_agent');
      const props = Object.keys((declared?.type === 'function' && declared.inputSchema.properties) || {});
      return { ...call, input: { [props[0] ?? 'agent_name']: (call.input as { agent_name: string }).agent_name } };
    }),
  };
};

/** Per-call prompt tokens of a run, counted the same way on both runners. */
function figures(calls: readonly LanguageModelV3CallOptions[]) {
  const perCall = calls.map((c) => measureCallOptions(c).total);
  return {
    calls: perCall.length,
    peak: Math.max(...perCall),
    cumulative: perCall.reduce((a, b) => a + b, 0),
    perCall,
  };
}

function escalation(events: readonly Event[]): string | undefined {
  for (const event of events)
    for (const part of event.content?.parts ?? [])
      if (part.functionCall?.name === 'escalate') return String((part.functionCall.args as { reason: string }).reason);
  return undefined;
}

describe('pagewise/adk: instruction paging on ADK', () => {
  const reports = generateReports(164, 11);
  const corpus = inMemoryCorpus(reports);
  const question = generateQuestions(reports, 11, 1)[0]!;
  const STEPS = 3 + Math.ceil(164 / 10) + 2;

  it('164 reports: planner searches and transfers, analyst pages in batches, saves and escalates; bodies never stored', async () => {
    const scripted = new ScriptedModel(
      Array.from({ length: STEPS }, () => reportStep),
      { modelId: 'scripted' },
    );
    const ra = createReportAnalyst({ ...corpus, strategy: 'paging', boundary: BOUNDARY });
    const llm = new AiSdkLlm(scripted);
    const analyst = new LlmAgent({
      name: 'analyst',
      description: ra.analyst.description,
      model: llm,
      instruction: adkInstruction(ra.analyst.instruction as InstructionProvider),
      tools: ra.analyst.tools.map((t) => adkTool(t)),
    });
    const planner = new LlmAgent({
      name: 'planner',
      description: ra.planner.description,
      model: llm,
      instruction: adkInstruction(() => ra.planner.instruction as string),
      tools: ra.planner.tools.map((t) => adkTool(t)),
      subAgents: [analyst],
    });
    const sessionService = new InMemorySessionService();
    const plugin = new PagewiseAdkPlugin({ processors: [compactPagingTurns({ keepLast: 1 })], agents: ['analyst'] });
    const runner = new AdkRunner({ appName: 'adk-paging', agent: planner, sessionService, plugins: [plugin] });
    const session = await sessionService.createSession({ appName: 'adk-paging', userId: 'u1' });
    const seen: Event[] = [];
    for await (const event of runner.runAsync({
      userId: 'u1',
      sessionId: session.id,
      newMessage: { role: 'user', parts: [{ text: question.text }] },
    }))
      seen.push(event);
    scripted.assertComplete();

    const answer = escalation(seen);
    expect(answer, 'the analyst escalated with an answer').toBeDefined();
    expect(isCorrect(answer!, question.gold), answer).toBe(true);
    expect(seen.some((e) => e.actions.transferToAgent === 'analyst')).toBe(true);

    const stored = (await sessionService.getSession({ appName: 'adk-paging', userId: 'u1', sessionId: session.id }))!;
    const json = JSON.stringify(stored.events);
    for (const report of reports) {
      const table = JSON.stringify(report.body.slice(report.body.indexOf('## Key figures'))).slice(1, -1);
      expect(json.includes(table), report.uri).toBe(false);
      const sentence = JSON.stringify(report.body.split('\n').find((l) => l.length > 120)!).slice(1, -1);
      expect(json.includes(sentence), report.uri).toBe(false);
    }
    // The model did read them: every body reached some request, in the step block after the history only.
    const blocks = scripted.calls.map((c) => viewPrompt(c).stepBlock).join('\n');
    for (const report of reports.slice(0, 20))
      expect(blocks).toContain(report.body.split('\n').find((l) => l.length > 120));
    // temp: keys (working set, plan) are gone from what ADK stored; the durable result is there.
    expect(Object.keys(stored.state).filter((k) => k.startsWith('temp:'))).toEqual([]);
    expect(json).not.toContain('temp:');
    expect(String(stored.state['result:answer-partial'])).toMatch(/read/);
    // The plugin kept the analyst's history flat: paging turns were dropped from its requests.
    const analystCalls = plugin.ledger.entries.filter((e) => e.agent === 'analyst');
    expect(analystCalls).toHaveLength(STEPS - 3);

    // The same script on pagewise's own runner.
    const scripted2 = new ScriptedModel(
      Array.from({ length: STEPS }, () => reportStep),
      { modelId: 'scripted' },
    );
    const ra2 = createReportAnalyst({ ...corpus, strategy: 'paging', boundary: BOUNDARY, model: scripted2 });
    const own = await new Runner({ agent: ra2.planner, limits: { maxSteps: ra2.maxStepsFor(164) } }).run({
      userId: 'u1',
      message: question.text,
    });
    scripted2.assertComplete();
    expect(own.text).toBe(answer);

    const adk = figures(scripted.calls);
    const pw = figures(scripted2.calls);
    console.log(
      [
        `ADK vs pagewise runner, same scripted sequence (${STEPS} model calls, 164 reports, o200k tokens per request):`,
        `  ADK:      peak ${adk.peak}, cumulative ${adk.cumulative}`,
        `  pagewise: peak ${pw.peak}, cumulative ${pw.cumulative} (ledger: peak ${own.ledger.summary.peakPromptTokens}, cumulative ${own.ledger.summary.cumulativePromptTokens})`,
        `  per call ADK:      ${adk.perCall.join(' ')}`,
        `  per call pagewise: ${pw.perCall.join(' ')}`,
      ].join('\n'),
    );
    expect(adk.calls).toBe(pw.calls);
    // Both stay bounded by the working set: no request carries more than one batch of reports.
    expect(adk.peak).toBeLessThan(32_000);
    expect(pw.peak).toBeLessThan(32_000);
  }, 120_000);
});

describe('pagewise/adk: compression plugin', () => {
  it('a compressed tool response keeps a handle that pages the raw text back in; ADK stores only the compressed text', async () => {
    const { text, fact } = catalogue();
    const paging = new PagingService({ boundary: BOUNDARY });
    const fetchCatalogue = tool({
      name: 'fetch_catalogue',
      description: 'The whole product catalogue.',
      inputSchema: z.object({}),
      execute: () => text,
    });
    const tools = createAdkPagingTools(paging);
    let seenOutput = '';
    const scripted = new ScriptedModel([
      { toolCalls: [{ toolName: 'fetch_catalogue', input: {} }] },
      ({ view }) => {
        const last = view.turns[view.turns.length - 1]!;
        seenOutput = last.role === 'tool' ? last.results[0]!.output : '';
        return { toolCalls: [{ toolName: 'page_in', input: { uris: [handleOf(seenOutput) ?? 'none'] } }] };
      },
      ({ view }) => (view.instruction.includes(fact) ? `Found: ${fact}` : 'not found'),
    ]);
    const agent = new LlmAgent({
      name: 'clerk',
      model: new AiSdkLlm(scripted),
      instruction: adkPagedInstruction({ base: 'Answer questions about the catalogue.', service: paging }),
      tools: [adkTool(fetchCatalogue), tools.page_in, tools.page_out],
    });
    const cObs = observationCompressor({ service: paging, thresholdTokens: 300, boundary: () => 'a1b2c3d4' });
    const sessionService = new InMemorySessionService();
    const plugin = new PagewiseAdkPlugin({ observationProcessors: [cObs] });
    const runner = new AdkRunner({ appName: 'adk-obs', agent, sessionService, plugins: [plugin] });
    const session = await sessionService.createSession({ appName: 'adk-obs', userId: 'u' });
    const events: Event[] = [];
    for await (const event of runner.runAsync({
      userId: 'u',
      sessionId: session.id,
      newMessage: { role: 'user', parts: [{ text: 'Which warehouses hold widgets?' }] },
    }))
      events.push(event);
    scripted.assertComplete();
    // The model saw the compressed text without the fact, then the raw text after following the handle.
    expect(seenOutput).toMatch(/^\[pagewise\] Compressed from \d+ tokens/m);
    expect(seenOutput).not.toContain(fact);
    expect(events.at(-1)?.content?.parts?.[0]?.text).toBe(`Found: ${fact}`);
    const stored = (await sessionService.getSession({ appName: 'adk-obs', userId: 'u', sessionId: session.id }))!;
    // What ADK stored of the tool's response is the compressed text and its handle, not the raw text.
    const json = JSON.stringify(stored.events.filter((e) => e.content?.parts?.some((p) => p.functionResponse)));
    expect(json).not.toContain(fact);
    expect(json).toContain('[pagewise] Compressed from');
    expect(Object.keys(stored.state).filter((k) => k.startsWith('temp:'))).toEqual([]);
    // The raw text is kept byte for byte behind the handle.
    const response = stored.events
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => p.functionResponse?.name === 'fetch_catalogue')!.functionResponse!.response as { result: string };
    const uri = handleOf(response.result)!;
    expect(await paging.body(uri, session.id)).toBe(text);
    expect(brokenPairs(scripted.calls)).toBeUndefined();
    // Every function call ADK stored has its response right after it.
    stored.events.forEach((event, index) => {
      for (const part of event.content?.parts ?? [])
        if (part.functionCall)
          expect(
            stored.events[index + 1]?.content?.parts?.some((q) => q.functionResponse?.id === part.functionCall!.id),
          ).toBe(true);
    });
  });

  it('history processors keep tool call/result pairs intact in the requests ADK sends', async () => {
    const steps: ScriptedStep[] = [];
    for (let index = 0; index < 6; index++)
      steps.push({
        toolCalls: [
          { toolName: 'echo', input: { n: index } },
          { toolName: 'echo', input: { n: 100 + index } },
        ],
      });
    steps.push('done');
    const scripted = new ScriptedModel(steps);
    const echo = tool({
      name: 'echo',
      description: 'Echoes n.',
      inputSchema: z.object({ n: z.number() }),
      execute: ({ n }) => `n=${n}`,
    });
    const agent = new LlmAgent({
      name: 'echoer',
      model: new AiSdkLlm(scripted),
      instruction: 'Echo.',
      tools: [adkTool(echo)],
    });
    const sessionService = new InMemorySessionService();
    const plugin = new PagewiseAdkPlugin({ processors: [fifoHistory({ lastTurns: 3 })] });
    const runner = new AdkRunner({ appName: 'adk-fifo', agent, sessionService, plugins: [plugin] });
    const session = await sessionService.createSession({ appName: 'adk-fifo', userId: 'u' });
    for await (const _ of runner.runAsync({
      userId: 'u',
      sessionId: session.id,
      newMessage: { role: 'user', parts: [{ text: 'go' }] },
    }));
    scripted.assertComplete();
    expect(brokenPairs(scripted.calls)).toBeUndefined();
    // FIFO did cut the history: the last request holds 3 turns and the task, not all 6.
    const last = scripted.calls.at(-1)!;
    expect(last.prompt.filter((m) => m.role === 'assistant')).toHaveLength(3);
    expect(last.prompt.find((m) => m.role === 'user')).toBeDefined();
  });
});
