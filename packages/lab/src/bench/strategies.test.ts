import { describe, expect, it } from 'vitest';
import type { ContextItem, ContextRequest, ProcessorContext } from '../../../pagewise/src/context/request.js';
import { PagewiseError } from '../../../pagewise/src/errors.js';
import {
  defaultBenchStrategies,
  getStrategy,
  listStrategies,
  registerStrategy,
  setupStrategy,
  STRATEGY_ORDER,
  unregisterStrategy,
  type StrategyContext,
} from './strategies.js';
import { registerStandardBench } from './standard.js';

registerStandardBench();

const context: StrategyContext = {
  scenario: 'retail-tool-use',
  model: 'offline',
  instruction: 'You help.',
  tools: [],
  services: {},
  task: { id: 't', prompt: 'p' },
};

/** A history of `steps` tool calls, each with its result, after the task message. */
function history(steps: number): ContextItem[] {
  const items: ContextItem[] = [{ type: 'user', text: 'the task' }];
  for (let step = 0; step < steps; step++) {
    items.push({
      type: 'assistant',
      text: '',
      toolCalls: [{ toolCallId: `c${step}`, toolName: 'lookup', input: { i: step } }],
    });
    items.push({
      type: 'tool-result',
      toolCallId: `c${step}`,
      toolName: 'lookup',
      output: `result ${step}`,
      isError: false,
    });
  }
  return items;
}

async function applyStrategy(name: string, items: ContextItem[]): Promise<ContextItem[]> {
  const setup = await setupStrategy(name, context);
  const request: ContextRequest = { instruction: [], items, tools: [] };
  const ctx = {
    task: 'the task',
    services: new Map(),
    signal: new AbortController().signal,
  } as unknown as ProcessorContext;
  for (const processor of setup.processors ?? []) await processor.process(request, ctx);
  return request.items;
}

describe('generic strategies', () => {
  it('are registered in display order', () => {
    const names = listStrategies().map((s) => s.name);
    expect(names.slice(0, 3)).toEqual(['none', 'fifo', 'clear-tool-results']);
    expect(STRATEGY_ORDER[0]).toBe('none');
  });

  it('none leaves the history as it is', async () => {
    expect(await applyStrategy('none', history(8))).toEqual(history(8));
  });

  it('fifo keeps the task and the last 5 turns', async () => {
    const items = await applyStrategy('fifo', history(8));
    expect(items[0]).toEqual({ type: 'user', text: 'the task' });
    const results = items
      .filter((i) => i.type === 'tool-result')
      .map((i) => (i.type === 'tool-result' ? i.output : ''));
    expect(results).toEqual(['result 3', 'result 4', 'result 5', 'result 6', 'result 7']);
  });

  it('clear-tool-results keeps the last 3 results verbatim and every call', async () => {
    const items = await applyStrategy('clear-tool-results', history(5));
    const outputs = items
      .filter((i) => i.type === 'tool-result')
      .map((i) => (i.type === 'tool-result' ? i.output : ''));
    expect(outputs.slice(2)).toEqual(['result 2', 'result 3', 'result 4']);
    expect(outputs.slice(0, 2).every((o) => o.includes('cleared'))).toBe(true);
    expect(items.filter((i) => i.type === 'assistant')).toHaveLength(5);
  });
});

describe('the strategy registry', () => {
  it('lists the known strategies when a name is unknown', () => {
    try {
      getStrategy('nope');
      expect.unreachable();
    } catch (error) {
      expect(PagewiseError.isInstance(error) && error.code).toBe('unknown-strategy');
      expect((error as Error).message).toContain('none, fifo, clear-tool-results');
    }
  });

  it('says how to register a standard strategy that is missing', () => {
    // Taken out for the test, then put back.
    const saved = listStrategies().find((s) => s.name === 'paging+acon');
    unregisterStrategy('paging+acon');
    try {
      expect(() => getStrategy('paging+acon')).toThrow(/standard strategy.*registerStandardBench/);
    } finally {
      if (saved)
        registerStrategy(saved.name, saved.factory, {
          description: saved.description,
          ...(saved.scenarios ? { scenarios: saved.scenarios } : {}),
        });
    }
  });

  it('registers a strategy for some scenarios only, and refuses duplicates', async () => {
    registerStrategy('test-only-qa', () => ({ services: { marker: 1 } }), {
      scenarios: ['multi-objective-qa'],
      description: 'test',
    });
    try {
      expect(listStrategies('multi-objective-qa').map((s) => s.name)).toContain('test-only-qa');
      expect(listStrategies('retail-tool-use').map((s) => s.name)).not.toContain('test-only-qa');
      expect(() => getStrategy('test-only-qa', 'retail-tool-use')).toThrow(
        /does not apply to scenario "retail-tool-use"/,
      );
      expect(await setupStrategy('test-only-qa', { ...context, scenario: 'multi-objective-qa' })).toEqual({
        services: { marker: 1 },
      });
      expect(() => registerStrategy('test-only-qa', () => ({}))).toThrow(/already registered/);
      registerStrategy('test-only-qa', () => ({}), { replace: true });
      expect(getStrategy('test-only-qa').scenarios).toBeUndefined();
    } finally {
      unregisterStrategy('test-only-qa');
    }
  });

  it('leaves a labelled variant out of the default set, though it is listed and can be named', () => {
    registerStrategy('test-variant', () => ({}), { variant: true, description: 'test' });
    try {
      expect(listStrategies().map((s) => s.name)).toContain('test-variant');
      expect(getStrategy('test-variant').variant).toBe(true);
      expect(getStrategy('none').variant).toBe(false);
      expect(defaultBenchStrategies(['none', 'test-variant', 'unregistered'])).toEqual(['none', 'unregistered']);
    } finally {
      unregisterStrategy('test-variant');
    }
  });

  it('refuses names that would not survive a comma-separated flag', () => {
    expect(() => registerStrategy('Bad Name', () => ({}))).toThrow(/lowercase/);
  });
});
