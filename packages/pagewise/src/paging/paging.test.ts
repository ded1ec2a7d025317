import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agents/agent.js';
import { Runner } from '../agents/runner.js';
import { tool } from '../agents/tool.js';
import { LimitExceededError } from '../errors.js';
import { scriptedModel } from '../models/scripted.js';
import { loaderSource } from '../sources/source.js';
import { Ledger } from '../tokens/ledger.js';
import { countTokens } from '../tokens/tokenizer.js';
import { autoPaging } from './auto-paging.js';
import { evaluate, ExpressionError, extractNumbers } from './calculate.js';
import { parseFencedPages } from './fence.js';
import { splitFrames } from './frames.js';
import { pagedInstruction } from './instruction.js';
import { compactPagingTurns, SAVED_RESULT_ELIDED, SHOWN_PAGES_ELIDED } from './paging-history.js';
import { PagingService, WANT_READ_KEY } from './service.js';
import { createPagingTools } from './tools.js';

function corpus(docs: Record<string, string>) {
  let fetches = 0;
  const source = loaderSource(
    'test',
    (u) => u in docs,
    (uri) => {
      fetches += 1;
      return { body: docs[uri]!, title: `Title of ${uri}` };
    },
  );
  return { source, fetches: () => fetches };
}

const doc = (ordinal: number, words = 300) =>
  `Document ${ordinal}. ` + Array.from({ length: words }, (_, j) => `word${(ordinal * 7 + j) % 97}`).join(' ');

function agentWith(
  service: PagingService,
  extra: Parameters<typeof scriptedModel>[0],
  processors?: ConstructorParameters<typeof Agent>[0]['processors'],
) {
  const tools = createPagingTools(service);
  const agent = new Agent({
    name: 'reader',
    instruction: pagedInstruction({ base: 'You read pages.', service }),
    tools: Object.values(tools),
    ...(processors ? { processors } : {}),
  });
  const model = scriptedModel(extra);
  return { agent, model, runner: new Runner({ agent, model }) };
}

describe('paging service and tools', () => {
  it('pages bodies into the step block after the history, never into events, and empties the working set at the end', async () => {
    const { source } = corpus({ a: doc(1), b: doc(2), c: doc(3) });
    const service = new PagingService({ source });
    const { runner, model } = agentWith(service, [
      { toolCalls: [{ toolName: 'get_reports', input: { urls: ['a', 'b'] } }] },
      { toolCalls: [{ toolName: 'page_in', input: { uris: ['c'], mode: 'add' } }] },
      { toolCalls: [{ toolName: 'page_out', input: { uris: ['a'] } }] },
      'done',
    ]);
    const result = await runner.run({ userId: 'u', message: 'read' });
    const pagesAt = model.views.map((v) => parseFencedPages(v.stepBlock).pages.map((p) => p.uri));
    expect(pagesAt).toEqual([[], ['a', 'b'], ['a', 'b', 'c'], ['b', 'c']]);
    expect(parseFencedPages(model.views[1]!.stepBlock).pages[0]!.body).toBe(doc(1));
    // The system message is the agent's own instruction at every call; the block is the prompt's last message.
    expect(model.views.map((v) => v.system)).toEqual(Array(4).fill('You read pages.'));
    const last = model.calls[1]!.prompt.at(-1)!;
    expect(last.role === 'user' && last.content[0]?.type === 'text' && last.content[0].text).toBe(
      model.views[1]!.stepBlock,
    );
    const receipts = result.session.events.flatMap((e) => (e.kind === 'tool-result' ? [e.output] : []));
    expect(receipts[0]).toMatch(/^2 loaded\.$/);
    const json = JSON.stringify(result.session.events);
    for (const text of [doc(1), doc(2), doc(3)]) expect(json.includes(text.slice(0, 60))).toBe(false);
    expect(result.session.state[WANT_READ_KEY]).toBeUndefined();
    // The ledger labels the paged content.
    expect(result.ledger.entries[1]!.parts.paged).toBeGreaterThan(2 * countTokens(doc(1)) - 10);
    expect(result.ledger.entries[0]!.parts.paged).toBe(0);
  });

  it('refuses a page-in over budget, says what fits, and changes nothing', async () => {
    const docs = { a: doc(1, 600), b: doc(2, 600), c: doc(3, 600) };
    const { source } = corpus(docs);
    const one = countTokens(docs.a);
    const service = new PagingService({ source, ramBudgetTokens: one * 2 + 50 });
    const { runner, model } = agentWith(service, [
      { toolCalls: [{ toolName: 'page_in', input: { uris: ['a'] } }] },
      { toolCalls: [{ toolName: 'page_in', input: { uris: ['b', 'c'], mode: 'add' } }] },
      'done',
    ]);
    await runner.run({ userId: 'u', message: 'read' });
    const refusal = model.views[2]!.turns.at(-1);
    expect(refusal?.role === 'tool' && refusal.results[0]!.isError).toBe(true);
    const text = refusal?.role === 'tool' ? refusal.results[0]!.output : '';
    expect(text).toMatch(/ramBudgetTokens/);
    expect(text).toMatch(/nothing was changed/);
    expect(text).toContain('These fit: ["b"]');
    expect(parseFencedPages(model.views[2]!.stepBlock).pages.map((p) => p.uri)).toEqual(['a']);
  });

  it('states the budget in the preface only once the working set holds more than half of it', async () => {
    const docs = { a: doc(1, 600), b: doc(2, 600), c: doc(3, 600) };
    const { source } = corpus(docs);
    const one = countTokens(docs.a);
    // Two pages fit under half the budget, three do not.
    const service = new PagingService({ source, ramBudgetTokens: Math.floor(one * 5.5) });
    const state = fakeState();
    const ctx = { state, invocationId: 'i', sessionId: 's' };
    await service.pageIn(['a', 'b'], 'replace', ctx);
    const below = (await service.render(state.snapshot(), 's')).text;
    expect(below.split('\n')[0]).not.toMatch(/tokens/);
    expect(parseFencedPages(below).pages).toHaveLength(2);
    await service.pageIn(['a', 'b', 'c'], 'replace', ctx);
    const above = (await service.render(state.snapshot(), 's')).text;
    const used = (await service.workingSet(state.snapshot(), 's')).reduce((s, e) => s + e.tokens, 0);
    expect(above.split('\n')[0]).toContain(`3 loaded pages (${used} of ${Math.floor(one * 5.5)} tokens) follow:`);
    expect(parseFencedPages(above).pages).toHaveLength(3);
  });

  it('caps pages per read with an error naming the setting', async () => {
    const { source } = corpus({ a: doc(1), b: doc(2), c: doc(3) });
    const service = new PagingService({ source, maxPagesPerRead: 2 });
    await expect(
      service.pageIn(['a', 'b', 'c'], 'replace', { state: fakeState(), invocationId: 'i', sessionId: 's' }),
    ).rejects.toBeInstanceOf(LimitExceededError);
  });

  it('fetches a page at most once per invocation, and follows the cache policy across invocations', async () => {
    const loader = corpus({ a: doc(1) });
    const service = new PagingService({ source: loader.source, cacheMaxAgeMs: 0 });
    const state = fakeState();
    await service.pageIn(['a'], 'replace', { state, invocationId: 'inv1', sessionId: 's' });
    await service.pageIn(['a'], 'replace', { state, invocationId: 'inv1', sessionId: 's' });
    expect(loader.fetches()).toBe(1);
    await service.pageIn(['a'], 'replace', { state, invocationId: 'inv2', sessionId: 's' });
    expect(loader.fetches()).toBe(2);
    const cached = new PagingService({ source: loader.source, cacheMaxAgeMs: 60_000, pageStore: service.pageStore });
    await cached.pageIn(['a'], 'replace', { state, invocationId: 'inv3', sessionId: 's' });
    expect(loader.fetches()).toBe(2);
  });

  it('splits a very large page into frames and reads them one by one', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `Line ${i}: value ${i * 3} units of widget ${i % 13}.`).join(
      '\n',
    );
    const { source } = corpus({ big });
    const service = new PagingService({ source, frameTokens: 4000, ramBudgetTokens: 9000 });
    const state = fakeState();
    const receipt = await service.pageIn(['big'], 'replace', { state, invocationId: 'i', sessionId: 's' });
    const frames = splitFrames(big, 4000);
    expect(frames.length).toBeGreaterThan(5);
    expect(frames.join('\n')).toBe(big);
    for (const frame of frames) expect(countTokens(frame)).toBeLessThanOrEqual(4000);
    expect(receipt).toContain(`big has ${frames.length} frames`);
    await service.readFrame('big', 3, { state, invocationId: 'i', sessionId: 's' });
    const rendered = await service.render(state.snapshot(), 's');
    const pages = parseFencedPages(rendered.text).pages;
    expect(pages).toHaveLength(1);
    expect(pages[0]!.frame).toBe(`3/${frames.length}`);
    expect(pages[0]!.body).toBe(frames[2]);
    await expect(
      service.readFrame('big', frames.length + 1, { state, invocationId: 'i', sessionId: 's' }),
    ).rejects.toThrow(/frames 1\.\./);
  });

  it('saves results durably and shows them in the instruction', async () => {
    const { source } = corpus({ a: doc(1) });
    const service = new PagingService({ source });
    const { runner, model } = agentWith(service, [
      { toolCalls: [{ toolName: 'save_result', input: { task_id: 't1', result: 'sum=42' } }] },
      { toolCalls: [{ toolName: 'list_results', input: {} }] },
      'done',
    ]);
    const result = await runner.run({ userId: 'u', message: 'x' });
    expect(result.session.state['result:t1']).toBe('sum=42');
    expect(model.views[1]!.stepBlock).toContain('- t1: sum=42');
    const listed = model.views[2]!.turns.at(-1);
    expect(listed?.role === 'tool' && listed.results[0]!.output).toContain('"t1": "sum=42"');
  });

  it('saves and lists a result whose task id is __proto__ like any other', async () => {
    const { source } = corpus({ a: doc(1) });
    const service = new PagingService({ source });
    const { runner, model } = agentWith(service, [
      { toolCalls: [{ toolName: 'save_result', input: { task_id: '__proto__', result: 'sum=42' } }] },
      { toolCalls: [{ toolName: 'list_results', input: {} }] },
      'done',
    ]);
    const result = await runner.run({ userId: 'u', message: 'x' });
    expect(result.session.state['result:__proto__']).toBe('sum=42');
    expect(model.views[1]!.stepBlock).toContain('- __proto__: sum=42');
    const listed = model.views[2]!.turns.at(-1);
    expect(listed?.role === 'tool' && listed.results[0]!.output).toContain('"__proto__": "sum=42"');
  });

  it('compacts paging turns: older ones go, the newest shows a placeholder for a saved result, which cannot be saved back', async () => {
    const { source } = corpus({ a: doc(1), b: doc(2) });
    const service = new PagingService({ source });
    const { runner, model } = agentWith(
      service,
      [
        { toolCalls: [{ toolName: 'get_reports', input: { urls: ['a'] } }] },
        {
          toolCalls: [
            { toolName: 'save_result', input: { task_id: 't1', result: 'a says 42' } },
            { toolName: 'get_reports', input: { urls: ['b'] } },
          ],
        },
        { toolCalls: [{ toolName: 'save_result', input: { task_id: 't1', result: SAVED_RESULT_ELIDED } }] },
        'done',
      ],
      [compactPagingTurns({ keepShownTurns: true })],
    );
    const result = await runner.run({ userId: 'u', message: 'read' });
    const third = model.views[2]!;
    // The first paging turn is gone; the newest shows the placeholder, and the instruction the result itself.
    const calls = third.turns.flatMap((t) => (t.role === 'assistant' ? t.toolCalls : []));
    expect(calls.map((c) => c.toolName)).toEqual(['save_result', 'get_reports']);
    expect(calls[0]!.input).toEqual({ task_id: 't1', result: SAVED_RESULT_ELIDED });
    // The batch it loaded is in the instruction's block, so its URI list is not repeated either.
    expect(calls[1]!.input).toEqual({ urls: [SHOWN_PAGES_ELIDED] });
    expect(parseFencedPages(third.stepBlock).pages.map((p) => p.uri)).toEqual(['b']);
    expect(third.stepBlock).toContain('- t1: a says 42');
    // Copying the placeholder back is refused; the saved result stays.
    const refused = model.views[3]!.turns.at(-1);
    expect(refused?.role === 'tool' && refused.results[0]!.isError).toBe(true);
    expect(result.session.state['result:t1']).toBe('a says 42');
    // The session keeps what the model wrote.
    expect(JSON.stringify(result.session.events)).toContain('a says 42');
  });

  it('keeps the URI list of a kept paging turn when the instruction no longer shows those pages, and refuses the placeholder as a URI', async () => {
    const { source } = corpus({ a: doc(1), b: doc(2), c: doc(3) });
    const service = new PagingService({ source });
    const { runner, model } = agentWith(
      service,
      [
        { toolCalls: [{ toolName: 'page_in', input: { uris: ['a', 'b'] } }] },
        { toolCalls: [{ toolName: 'page_out', input: { uris: ['b'] } }] },
        { toolCalls: [{ toolName: 'get_reports', input: { urls: [SHOWN_PAGES_ELIDED] } }] },
        'done',
      ],
      [compactPagingTurns({ keepLast: 2, keepShownTurns: true })],
    );
    await runner.run({ userId: 'u', message: 'read' });
    const callsAt = (view: number) =>
      model.views[view]!.turns.flatMap((t) => (t.role === 'assistant' ? t.toolCalls : []));
    // Both pages shown: the list is elided. After b is paged out, a page_in of a and b shows its list again.
    expect(callsAt(1)[0]!.input).toEqual({ uris: [SHOWN_PAGES_ELIDED] });
    expect(callsAt(2)[0]!.input).toEqual({ uris: ['a', 'b'] });
    // A model that copies the placeholder loads nothing and is told why; the working set is unchanged.
    const refused = model.views[3]!.turns.at(-1);
    expect(refused?.role === 'tool' && refused.results[0]!.isError).toBe(true);
    expect(JSON.stringify(refused)).toContain('placeholder');
    expect(parseFencedPages(model.views[3]!.stepBlock).pages.map((p) => p.uri)).toEqual(['a']);
  });

  it('drops a kept paging turn the instruction shows whole, and keeps one that says more', async () => {
    const { source } = corpus({ a: doc(1), b: doc(2), c: doc(3) });
    const service = new PagingService({ source });
    const { runner, model } = agentWith(
      service,
      [
        { toolCalls: [{ toolName: 'get_reports', input: { urls: ['a', 'b'] } }] },
        {
          toolCalls: [
            { toolName: 'save_result', input: { task_id: 't', result: 'a and b read' } },
            { toolName: 'get_reports', input: { urls: ['c'] } },
          ],
        },
        { toolCalls: [{ toolName: 'page_out', input: { uris: ['c'] } }] },
        { text: 'Loading a again.', toolCalls: [{ toolName: 'get_reports', input: { urls: ['a'] } }] },
        'done',
      ],
      [compactPagingTurns()],
    );
    await runner.run({ userId: 'u', message: 'read' });
    const callsAt = (view: number) =>
      model.views[view]!.turns.flatMap((t) => (t.role === 'assistant' ? t.toolCalls.map((c) => c.toolName) : []));
    // Loading a and b, then saving and loading c: the instruction shows the pages and the saved result, and
    // its preface says how many are loaded, so neither turn is repeated in the history.
    expect(callsAt(1)).toEqual([]);
    expect(callsAt(2)).toEqual([]);
    expect(model.views[2]!.stepBlock).toMatch(/^- t: a and b read$/m);
    expect(model.views[2]!.stepBlock).toMatch(/ 1 loaded pages? follow: /);
    // page_out shows no page: its URI list is the only record of what it did, so it is kept.
    expect(callsAt(3)).toEqual(['page_out']);
    // A turn where the model also wrote text is kept, its URI list elided.
    expect(callsAt(4)).toEqual(['get_reports']);
    expect(JSON.stringify(model.views[4]!.turns)).toContain('Loading a again.');
  });

  it('save_result releases the pages the model has seen, keeps a batch loaded in the same step, and can be turned off', async () => {
    const { source } = corpus({ a: doc(1), b: doc(2), c: doc(3) });
    const service = new PagingService({ source });
    const { runner, model } = agentWith(service, [
      { toolCalls: [{ toolName: 'get_reports', input: { urls: ['a', 'b'] } }] },
      // Saving and loading the next batch in one step, in either order: the new batch stays.
      {
        toolCalls: [
          { toolName: 'get_reports', input: { urls: ['c'] } },
          { toolName: 'save_result', input: { task_id: 't', result: 'a and b read' } },
        ],
      },
      { toolCalls: [{ toolName: 'save_result', input: { task_id: 't', result: 'all read' } }] },
      'the answer',
    ]);
    await runner.run({ userId: 'u', message: 'read' });
    const pagesAt = model.views.map((v) => parseFencedPages(v.stepBlock).pages.map((p) => p.uri));
    // The final call carries no batch: the last one was released when its result was saved.
    expect(pagesAt).toEqual([[], ['a', 'b'], ['c'], []]);
    expect(model.views[3]!.stepBlock).toMatch(/^- t: all read$/m);

    const kept = new PagingService({ source });
    const tools = createPagingTools(kept, { releaseOnSave: false });
    const agent = new Agent({
      name: 'reader',
      instruction: pagedInstruction({ base: 'You read pages.', service: kept }),
      tools: Object.values(tools),
    });
    const m2 = scriptedModel([
      { toolCalls: [{ toolName: 'get_reports', input: { urls: ['a'] } }] },
      { toolCalls: [{ toolName: 'save_result', input: { task_id: 't', result: 'x' } }] },
      'done',
    ]);
    await new Runner({ agent, model: m2 }).run({ userId: 'u', message: 'read' });
    expect(parseFencedPages(m2.views[2]!.stepBlock).pages.map((p) => p.uri)).toEqual(['a']);
  });

  it('calculates over a page safely', async () => {
    const { source } = corpus({ t: 'Revenue 1,200 and cost 700; headcount 12. Growth 3.5%' });
    const service = new PagingService({ source });
    const tools = createPagingTools(service);
    const ctx = { state: fakeState(), invocationId: 'i', sessionId: 's' } as never;
    expect(await tools.calculate.execute({ uri: 't', expression: '$1 - $2' }, ctx)).toMatch(/^\$1 - \$2 = 500 /);
    expect(await tools.calculate.execute({ uri: 't', expression: 'round(sum($all) / count($all), 2)' }, ctx)).toMatch(
      /= 478\.88/,
    );
    await expect(tools.calculate.execute({ uri: 't', expression: 'process.exit()' }, ctx)).rejects.toThrow(
      ExpressionError,
    );
  });
});

describe('calculate evaluator', () => {
  it('extracts numbers with separators and decimals, in order', () => {
    expect(extractNumbers('a 1,234.5 b -7 c 0.25 d report-0042 x2')).toEqual([1234.5, -7, 0.25]);
  });
  it('follows precedence and refuses anything else', () => {
    expect(evaluate('2 + 3 * 4 ^ 2', [])).toBe(50);
    expect(evaluate('-(2 + 3) * $2', [1, 10])).toBe(-50);
    expect(evaluate('max($all) - min($all)', [3, 9, 1])).toBe(8);
    for (const bad of ['', '2 +', '$3', 'constructor', '1; 2', 'a.b', '$all + 1', '1 / 0', '(1'])
      expect(() => evaluate(bad, [1, 2])).toThrow(ExpressionError);
  });
});

describe('auto-paging', () => {
  it('stores a large tool result as a page and page_in restores it byte for byte', async () => {
    const big = JSON.stringify(
      { rows: Array.from({ length: 400 }, (_, i) => ({ id: `r${i}`, total: i * 1.5, note: 'ünïcødé ✓' })) },
      null,
      2,
    );
    const dump = tool({ name: 'dump', description: 'returns a lot', inputSchema: z.object({}), execute: () => big });
    const small = tool({
      name: 'small',
      description: 'returns little',
      inputSchema: z.object({}),
      execute: () => 'tiny',
    });
    const service = new PagingService({ frameTokens: 50_000, ramBudgetTokens: 64_000 });
    const tools = createPagingTools(service);
    let handle = '';
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'dump', input: {} },
          { toolName: 'small', input: {} },
        ],
      },
      ({ view }) => {
        const last = view.turns.at(-1);
        const receipt = last?.role === 'tool' ? last.results[0]!.output : '';
        handle = /"(tool:\/\/[^"]+)"/.exec(receipt)![1]!;
        expect(last?.role === 'tool' && last.results[1]!.output).toBe('tiny');
        return { toolCalls: [{ toolName: 'page_in', input: { uris: [handle] } }] };
      },
      'done',
    ]);
    const agent = new Agent({
      name: 'a',
      instruction: pagedInstruction({ base: 'x', service }),
      tools: [dump, small, tools.page_in],
      observationProcessors: [autoPaging({ service, thresholdTokens: 1024 })],
    });
    const result = await new Runner({ agent, model }).run({ userId: 'u', message: 'go' });
    expect(handle).toMatch(/^tool:\/\/dump\//);
    const page = parseFencedPages(model.views[2]!.stepBlock).pages[0]!;
    expect(page.uri).toBe(handle);
    expect(page.body).toBe(big);
    expect(JSON.stringify(result.session.events).includes('ünïcødé')).toBe(false);
  });
});

describe('auto-paging: a result is paged once (invariant 17)', () => {
  const processorContext = {
    invocationId: 'inv',
    agentName: 'a',
    sessionId: 's1',
    task: 'go',
    recentItems: [],
    services: new Map(),
    ledger: new Ledger(),
    signal: new AbortController().signal,
  };
  const result = (output: string, toolCallId = 'c1') => ({
    toolCallId,
    toolName: 'dump',
    input: {},
    output,
    isError: false,
  });

  it('gives the raw text again the same receipt, and a call id reused for another result its own page', async () => {
    const service = new PagingService();
    const paging = autoPaging({ service, thresholdTokens: 100 });
    const big = 'row of the dump, part E-4711\n'.repeat(200);
    const receipt = (await paging.process(result(big), processorContext)).output;
    expect((await paging.process(result(big), processorContext)).output).toBe(receipt);
    // The same call id with another, large result: paged under its own handle, the first page unchanged.
    const other = big.replace('E-4711', 'E-4712');
    const second = (await paging.process(result(other), processorContext)).output;
    const handles = [receipt, second].map((text) => /"(tool:\/\/[^"]+)"/.exec(text)![1]!);
    expect(handles[0]).toBe('tool://dump/c1');
    expect(handles[1]).toMatch(/^tool:\/\/dump\/c1\/[0-9a-f]{16}$/u);
    expect(await service.body(handles[0]!, 's1')).toBe(big);
    expect(await service.body(handles[1]!, 's1')).toBe(other);
  });
});

function fakeState() {
  const data: Record<string, unknown> = {};
  return {
    get: (k: string) => data[k] as never,
    has: (k: string) => k in data,
    set: (k: string, v: unknown) => void (data[k] = v),
    delete: (k: string) => void delete data[k],
    keys: (p = '') => Object.keys(data).filter((k) => k.startsWith(p)),
    increment: (key: string, by = 1) => {
      data[key] = ((data[key] as number | undefined) ?? 0) + by;
      return data[key] as number;
    },
    snapshot: () => ({ ...data }) as never,
  };
}

describe('paging tools: limits checked on execution', () => {
  it('save_result refuses an empty or overlong task id and an overlong result, saving nothing', async () => {
    const { source } = corpus({ a: doc(1) });
    const service = new PagingService({ source });
    const { runner } = agentWith(service, [
      {
        toolCalls: [
          { toolName: 'save_result', input: { task_id: '', result: 'x' } },
          { toolName: 'save_result', input: { task_id: 't'.repeat(201), result: 'x' } },
          { toolName: 'save_result', input: { task_id: 'ok', result: 'r'.repeat(4001) } },
          { toolName: 'get_reports', input: { urls: [] } },
        ],
      },
      'done',
    ]);
    const result = await runner.run({ userId: 'u', message: 'save' });
    const results = result.session.events.flatMap((e) => (e.kind === 'tool-result' ? [e] : []));
    expect(results.map((r) => r.isError)).toEqual([true, true, true, true]);
    expect(results[0]!.output).toMatch(/task_id must be 1 to 200 characters; it has 0/);
    expect(results[1]!.output).toMatch(/it has 201/);
    expect(results[2]!.output).toMatch(/4001 characters, over the limit of 4000/);
    expect(results[3]!.output).toMatch(/at least one URI/);
    expect(Object.keys(result.session.state).filter((k) => k.startsWith('result:'))).toEqual([]);
  });
});
