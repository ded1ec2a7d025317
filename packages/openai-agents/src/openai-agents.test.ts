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
import { isStepBlockItem, readItems } from './items.js';
import { pagewiseInputFilter } from './filter.js';
import { createOpenAiPagingTools, durableState, pagedInstructions, pagingContext } from './paging.js';
import { PagewiseSession } from './session.js';

const runner = new Runner({ tracingDisabled: true });

/** What a model call was shown of the instructions: the system instructions and the step block after the history. */
function shown(request: { systemInstructions?: string; input: string | AgentInputItem[] }): string {
  const last = typeof request.input === 'string' ? undefined : request.input.at(-1);
  const block = last && isStepBlockItem(last) ? (last as { content: string }).content : '';
  return `${request.systemInstructions ?? ''}\n\n${block}`;
}
const sentence = (body: string) => body.split('\n').find((l) => l.length > 120)!;

/** The first broken tool call/result pair of an input, or undefined. */
function brokenPair(input: string | AgentInputItem[]): string | undefined {
  if (typeof input === 'string') return undefined;
  const events = readItems(input).map(({ event }, index) => ({
    id: `e${index}`,
    invocationId: '',
    author: 'a',
    timestamp: 0,
    ...event,
  }));
  return findBrokenToolPair(eventsToItems(events as never));
}

function lastResult(input: string | AgentInputItem[]): string {
  if (typeof input === 'string') return '';
  const lastItem = [...input].reverse().find((i) => 'type' in i && i.type === 'function_call_result');
  return lastItem && 'output' in lastItem && typeof lastItem.output === 'string' ? lastItem.output : '';
}

describe('pagewise/openai-agents', () => {
  const reports = generateReports(20, 6);
  const { source } = inMemoryCorpus(reports);
  const uris = reports.map((r) => r.uri);
  const count = (text: string | undefined) => reports.filter((r) => text?.includes(sentence(r.body))).length;

  it('paging: instructions expand the working set from the run context; the session stores receipts only', async () => {
    const paging = new PagingService({ source });
    const tools = createOpenAiPagingTools(paging);
    const model = new ScriptedModel([
      modelResponder(() => [functionCall('get_reports', { urls: uris.slice(0, 10) }, { callId: 'c1' })]),
      modelResponder(({ request }) => [
        functionCall('save_result', { task_id: 'b1', result: `${count(shown(request))} read` }, { callId: 'c2' }),
        functionCall('get_reports', { urls: uris.slice(10) }, { callId: 'c3' }),
      ]),
      modelResponder(({ request }) => [
        assistantMessage(`${/- b1: (\d+) read/.exec(shown(request))?.[1]} + ${count(shown(request))}`),
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
    for (const report of reports) expect(stored).not.toContain(JSON.stringify(sentence(report.body)).slice(1, -1));
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

  it('cache layout: the instructions stay the same from call to call; the per-step part follows the history and is never stored', async () => {
    const paging = new PagingService({ source });
    const tools = createOpenAiPagingTools(paging);
    // Call ids differ per run: the SDK keeps only the latest of items with one call id.
    const script = (run: number) =>
      new ScriptedModel([
        modelResponder(() => [functionCall('get_reports', { urls: uris.slice(0, 4) }, { callId: `g${run}` })]),
        modelResponder(() => [
          functionCall('save_result', { task_id: 'k', result: 'four read' }, { callId: `s${run}` }),
        ]),
        modelResponder(() => [assistantMessage('done')]),
      ]);
    const agent = (model: ScriptedModel) =>
      new Agent({
        name: 'analyst',
        model,
        instructions: pagedInstructions({ base: 'Read the reports.', service: paging }),
        tools: [tools.get_reports, tools.save_result],
      });
    for (const wrap of [false, true]) {
      const session = wrap ? new PagewiseSession(new MemorySession()) : new MemorySession();
      const context = pagingContext();
      const models = [script(0), script(1)];
      for (const model of models)
        await runner.run(agent(model), 'Read four reports.', {
          context,
          session,
          callModelInputFilter: pagewiseInputFilter(),
        });
      const calls = models.flatMap((model) => model.calls.map((call) => call.request));
      // One system text for every call of both runs: the cacheable prefix starts with it.
      expect(new Set(calls.map((request) => request.systemInstructions))).toEqual(
        new Set([calls[0]!.systemInstructions]),
      );
      expect(calls[0]!.systemInstructions).toContain('Read the reports.');
      for (const request of calls) {
        const input = request.input as AgentInputItem[];
        // At most one step block, and only as the last item (the first call of a run has nothing per step).
        const blocks = input.filter(isStepBlockItem);
        expect(blocks.length).toBeLessThanOrEqual(1);
        if (blocks.length === 1) expect(input.at(-1)).toBe(blocks[0]);
      }
      // The pages reach the model, in the step block, fenced.
      expect(isStepBlockItem((calls[1]!.input as AgentInputItem[]).at(-1)!)).toBe(true);
      const paged = shown(calls[1]!);
      expect(count(paged)).toBe(4);
      expect(paged).toMatch(/^<<<PAGE /m);
      expect(calls[1]!.systemInstructions).not.toMatch(/^<<<PAGE /m);
      // Within a run each call's history (all but the step block) extends the previous call's.
      for (const model of models)
        for (const [index, call] of model.calls.entries()) {
          if (index === 0) continue;
          const previous = model.calls[index - 1]!.request.input as AgentInputItem[];
          const before = previous.filter((item) => !isStepBlockItem(item));
          const now = (call.request.input as AgentInputItem[]).slice(0, before.length);
          expect(JSON.stringify(now)).toBe(JSON.stringify(before));
        }
      const stored = await session.getItems();
      // PagewiseSession never stores a step block; with a plain session the SDK may store the first call's,
      // and the filter drops it from the next run's input (checked above: one block per call).
      if (wrap) expect(stored.filter(isStepBlockItem)).toHaveLength(0);
    }
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
        assistantMessage(shown(request).includes(fact) ? `Found: ${fact}` : 'not found'),
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
    for (let index = 0; index < 5; index++)
      steps.push(
        modelResponder(() => [
          functionCall('echo', { n: index }, { callId: `e${index}` }),
          functionCall('echo', { n: 10 + index }, { callId: `x${index}` }),
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

describe('pagewiseInputFilter across calls', () => {
  const result = (callId: string, output: string): AgentInputItem => ({
    type: 'function_call_result',
    callId,
    name: 'search',
    status: 'completed',
    output,
  });
  const call = (callId: string): AgentInputItem => ({
    type: 'function_call',
    callId,
    name: 'search',
    arguments: '{}',
    status: 'completed',
  });

  /** A filter whose one observation processor marks each result and counts the results it reads. */
  function counting() {
    const read: string[] = [];
    const filter = pagewiseInputFilter({
      observationProcessors: [
        { name: 'mark', process: async (obs) => (read.push(obs.output), { ...obs, output: `seen: ${obs.output}` }) },
      ],
    });
    const send = async (input: AgentInputItem[]) =>
      (await filter({ modelData: { input, instructions: 'Answer.' }, agent: { name: 'a' }, context: {} } as never))
        .input;
    return { read, send };
  }

  it('processes a result once, and again when the same call id comes with another output', async () => {
    const { read, send } = counting();
    const history: AgentInputItem[] = [{ role: 'user', content: 'task' }, call('c1'), result('c1', 'first')];
    await send(structuredClone(history));
    // The SDK's copy of the same items with one more step: only the new result is read.
    await send(structuredClone([...history, call('c2'), result('c2', 'second')]));
    expect(read).toEqual(['first', 'second']);
    const edited = await send([...history.slice(0, 2), result('c1', 'edited')]);
    expect(read).toEqual(['first', 'second', 'edited']);
    expect(edited.at(-1)).toMatchObject({ output: 'seen: edited' });
  });

  it('reads an output changed in place in an item it has seen', async () => {
    const { send } = counting();
    const history: AgentInputItem[] = [{ role: 'user', content: 'task' }, call('c1'), result('c1', 'first')];
    await send(history);
    (history[2] as { output: string }).output = 'changed';
    expect((await send(history)).at(-1)).toMatchObject({ output: 'seen: changed' });
  });
});
