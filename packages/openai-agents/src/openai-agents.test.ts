/**
 * pagewise on the OpenAI Agents SDK itself: the SDK's Runner runs the loop, its MemorySession stores
 * history, and the model is the SDK's own ScriptedModel answering from the request it receives.
 */
import { Agent, MemorySession, Runner, tool, type AgentInputItem } from '@openai/agents';
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { observationCompressor } from '../../pagewise/src/compression/observation.js';
import { handleOf } from '../../pagewise/src/compression/transcript.js';
import { eventsToItems } from '../../pagewise/src/context/history.js';
import { fifoHistory } from '../../pagewise/src/context/processors.js';
import { findBrokenToolPair } from '../../pagewise/src/context/request.js';
import { compactPagingTurns } from '../../pagewise/src/paging/paging-history.js';
import { PagingService } from '../../pagewise/src/paging/service.js';
import { generateReports } from '../../lab/src/scenarios/report-analysis/corpus.js';
import { inMemoryCorpus } from '../../lab/src/scenarios/report-analysis/run.js';
import { catalogue } from '../../pagewise/src/adapters/adapter-checks.contract.js';
import { readItems } from './items.js';
import { pagewiseInputFilter } from './filter.js';
import { createOpenAiPagingTools, durableState, pagedInstructions, pagingContext } from './paging.js';
import { PagewiseSession } from './session.js';

const runner = new Runner({ tracingDisabled: true });
const sentence = (body: string) => body.split('\n').find((l) => l.length > 120)!;

/** The first broken tool call/result pair of an input, or undefined. */
function brokenPair(input: string | AgentInputItem[]): string | undefined {
  if (typeof input === 'string') return undefined;
  const events = readItems(input).map(({ event }, i) => ({
    id: `e${i}`,
    invocationId: '',
    author: 'a',
    timestamp: 0,
    ...event,
  }));
  return findBrokenToolPair(eventsToItems(events as never));
}

function lastResult(input: string | AgentInputItem[]): string {
  if (typeof input === 'string') return '';
  const r = [...input].reverse().find((i) => 'type' in i && i.type === 'function_call_result');
  return r && 'output' in r && typeof r.output === 'string' ? r.output : '';
}

describe('pagewise/openai-agents', () => {
  const reports = generateReports(20, 6);
  const { source } = inMemoryCorpus(reports);
  const uris = reports.map((r) => r.uri);

  it('paging: instructions expand the working set from the run context; the session stores receipts only', async () => {
    const paging = new PagingService({ source });
    const tools = createOpenAiPagingTools(paging);
    const count = (system: string | undefined) => reports.filter((r) => system?.includes(sentence(r.body))).length;
    const model = new ScriptedModel([
      modelResponder(() => [functionCall('get_reports', { urls: uris.slice(0, 10) }, { callId: 'c1' })]),
      modelResponder(({ request }) => [
        functionCall(
          'save_result',
          { task_id: 'b1', result: `${count(request.systemInstructions)} read` },
          { callId: 'c2' },
        ),
        functionCall('get_reports', { urls: uris.slice(10) }, { callId: 'c3' }),
      ]),
      modelResponder(({ request }) => [
        assistantMessage(
          `${/- b1: (\d+) read/.exec(request.systemInstructions ?? '')?.[1]} + ${count(request.systemInstructions)}`,
        ),
      ]),
    ]);
    const agent = new Agent({
      name: 'analyst',
      model,
      instructions: pagedInstructions({ base: 'Count the reports.', service: paging }),
      tools: [tools.get_reports, tools.save_result],
    });
    const session = new MemorySession();
    const context = pagingContext();
    const result = await runner.run(agent, 'How many reports?', {
      context,
      session,
      callModelInputFilter: pagewiseInputFilter({ processors: [compactPagingTurns({ keepLast: 1 })] }),
    });
    model.assertComplete();
    expect(result.finalOutput).toBe('10 + 10');
    const stored = JSON.stringify(await session.getItems());
    for (const r of reports) expect(stored).not.toContain(JSON.stringify(sentence(r.body)).slice(1, -1));
    expect(stored).toContain('10 loaded');
    // Each model call's input: pairs intact, and older paging turns dropped whole.
    for (const call of model.calls) expect(brokenPair(call.request.input)).toBeUndefined();
    const last = model.calls[2]!.request.input as AgentInputItem[];
    expect(
      last.filter((i) => 'type' in i && i.type === 'function_call').map((i) => (i as { callId: string }).callId),
    ).toEqual(['c2', 'c3']);
    // Saved results outlive the run; the working set does not.
    expect(durableState(context)).toEqual({ 'result:b1': '10 read' });
  });

  it('compression: the filter shows compressed results with a handle; PagewiseSession stores them compressed; page_in restores', async () => {
    const { text, fact } = catalogue();
    const paging = new PagingService();
    const cObs = observationCompressor({ service: paging, thresholdTokens: 300 });
    const tools = createOpenAiPagingTools(paging);
    let seen = '';
    const model = new ScriptedModel([
      modelResponder(() => [functionCall('fetch_catalogue', {}, { callId: 'f1' })]),
      modelResponder(({ request }) => {
        seen = lastResult(request.input);
        return [functionCall('page_in', { uris: [handleOf(seen) ?? 'none'] }, { callId: 'p1' })];
      }),
      modelResponder(({ request }) => [
        assistantMessage(request.systemInstructions?.includes(fact) ? `Found: ${fact}` : 'not found'),
      ]),
    ]);
    const agent = new Agent({
      name: 'clerk',
      model,
      instructions: pagedInstructions({ base: 'Answer about the catalogue.', service: paging }),
      tools: [
        tool({ name: 'fetch_catalogue', description: 'The catalogue.', parameters: z.object({}), execute: () => text }),
        tools.page_in,
      ],
    });
    const session = new PagewiseSession(new MemorySession(), { observationProcessors: [cObs] });
    const context = pagingContext({ sessionId: await session.getSessionId() });
    const result = await runner.run(agent, 'Which warehouses hold widgets?', {
      context,
      session,
      callModelInputFilter: pagewiseInputFilter({ observationProcessors: [cObs] }),
    });
    model.assertComplete();
    expect(result.finalOutput).toBe(`Found: ${fact}`);
    expect(seen).toMatch(/^\[pagewise\] Compressed from \d+ tokens/m);
    expect(seen).not.toContain(fact);
    const items = await session.getItems();
    const storedResult = items.find((i) => 'type' in i && i.type === 'function_call_result' && i.callId === 'f1');
    expect(JSON.stringify(storedResult)).not.toContain(fact);
    expect(handleOf((storedResult as { output: string }).output)).toBe(handleOf(seen));
    expect(await paging.body(handleOf(seen)!, context.pagewise.sessionId)).toBe(text);
    for (const call of model.calls) expect(brokenPair(call.request.input)).toBeUndefined();
  });

  it('PagewiseSession with a history processor archives what it replaces and keeps pairs intact', async () => {
    const paging = new PagingService();
    const echo = tool({
      name: 'echo',
      description: 'Echoes n.',
      parameters: z.object({ n: z.number() }),
      execute: ({ n }) => `n=${n}`,
    });
    const steps = [];
    for (let i = 0; i < 5; i++)
      steps.push(
        modelResponder(() => [
          functionCall('echo', { n: i }, { callId: `e${i}` }),
          functionCall('echo', { n: 10 + i }, { callId: `x${i}` }),
        ]),
      );
    steps.push(modelResponder(() => [assistantMessage('done')]));
    const model = new ScriptedModel(steps);
    const agent = new Agent({ name: 'echoer', model, instructions: 'Echo.', tools: [echo] });
    const session = new PagewiseSession(new MemorySession(), {
      processors: [fifoHistory({ lastTurns: 2 })],
      service: paging,
    });
    await runner.run(agent, 'go', { session });
    model.assertComplete();
    const items = await session.getItems();
    expect(brokenPair(items)).toBeUndefined();
    expect(items.filter((i) => 'type' in i && i.type === 'function_call').length).toBeLessThanOrEqual(4);
    const archive = await paging.pageStore.list(`session:${await session.getSessionId()}`);
    expect(archive.length).toBeGreaterThan(0);
  });

  it('PagewiseSession wrapped again over the same store numbers its archives after the ones there', async () => {
    const paging = new PagingService();
    const echo = tool({
      name: 'echo',
      description: 'Echoes n.',
      parameters: z.object({ n: z.number() }),
      execute: ({ n }) => `n=${n}`,
    });
    const inner = new MemorySession();
    const sessionId = await inner.getSessionId();
    const archives = async () =>
      Object.fromEntries(
        await Promise.all(
          (await paging.pageStore.list(`session:${sessionId}`)).map(
            async (page) => [page.uri, (await paging.pageStore.get(page.namespace, page.uri))!.body] as const,
          ),
        ),
      );
    let before: Record<string, string> = {};
    // Each run in a new wrapper, as a restarted process would make.
    for (const run of [0, 1]) {
      const steps = [0, 1, 2, 3].map((index) =>
        modelResponder(() => [functionCall('echo', { n: run * 10 + index }, { callId: `e${run}-${index}` })]),
      );
      const model = new ScriptedModel([...steps, modelResponder(() => [assistantMessage('done')])]);
      const agent = new Agent({ name: 'echoer', model, instructions: 'Echo.', tools: [echo] });
      const session = new PagewiseSession(inner, { processors: [fifoHistory({ lastTurns: 2 })], service: paging });
      await runner.run(agent, 'go', { session });
      model.assertComplete();
      if (run === 0) before = await archives();
    }
    const after = await archives();
    expect(Object.keys(before).length).toBeGreaterThan(0);
    expect(Object.keys(after).length).toBeGreaterThan(Object.keys(before).length);
    // The archives of the first wrapper are there, unchanged.
    for (const [uri, body] of Object.entries(before)) expect(after[uri]).toBe(body);
  });
});
