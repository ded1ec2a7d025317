import { describe, expect, it } from 'vitest';
import {
  measureRequest,
  type ContextItem,
  type ContextRequest,
  type ProcessorContext,
} from '../../../pagewise/src/context/request.js';
import { Ledger } from '../../../pagewise/src/tokens/ledger.js';
import { CLEARED_RESULT, clearToBudget, fifoToBudget } from './budget-fit.js';

const TASK = 'Find the totals of every order.';

function request(steps: number): ContextRequest {
  const items: ContextItem[] = [{ type: 'user', text: TASK }];
  for (let step = 0; step < steps; step += 1) {
    items.push({
      type: 'assistant',
      text: '',
      toolCalls: [{ toolCallId: `c${step}`, toolName: 'get', input: { i: step } }],
    });
    items.push({
      type: 'tool-result',
      toolCallId: `c${step}`,
      toolName: 'get',
      output: `record ${step}: ${'value '.repeat(100)}`,
      isError: false,
    });
  }
  return { instruction: [{ part: 'instruction', text: 'You answer from records.' }], items, tools: [] };
}

const ctx = {
  task: TASK,
  invocationId: 'i',
  agentName: 'a',
  services: new Map(),
  signal: new AbortController().signal,
  ledger: new Ledger(),
} as unknown as ProcessorContext;

describe('fifoToBudget', () => {
  it('keeps the task and as many recent turns as fit, and leaves a request that fits alone', () => {
    const built = request(10);
    const total = measureRequest(built).total;
    const untouched = request(10);
    fifoToBudget(total).process(untouched, ctx);
    expect(untouched.items).toHaveLength(21);
    fifoToBudget(Math.floor(total / 2)).process(built, ctx);
    expect(measureRequest(built).total).toBeLessThanOrEqual(Math.floor(total / 2));
    expect(built.items[0]).toEqual({ type: 'user', text: TASK });
    expect(built.items.at(-1)).toMatchObject({ type: 'tool-result', toolCallId: 'c9' });
    // As many as fit: one more turn would not.
    expect(built.items.length).toBeGreaterThan(5);
  });
});

describe('clearToBudget', () => {
  it('clears the oldest results until the request fits, never the latest', () => {
    const built = request(10);
    const budget = Math.floor(measureRequest(built).total / 3);
    clearToBudget(budget).process(built, ctx);
    expect(measureRequest(built).total).toBeLessThanOrEqual(budget);
    const results = built.items.filter((i) => i.type === 'tool-result');
    expect(results[0]).toMatchObject({ output: CLEARED_RESULT });
    expect(results.at(-1)).toMatchObject({ toolCallId: 'c9', output: expect.stringContaining('record 9') });
    // The calls stay, so the model knows what it did.
    expect(built.items.filter((i) => i.type === 'assistant')).toHaveLength(10);
  });
});
