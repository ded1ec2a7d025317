import { describe, expect, it } from 'vitest';
import type { BenchScenario, EpisodeContext, ScenarioTask } from '../bench/scenario.js';
import { setupStrategy } from '../bench/strategies.js';
import type { ObservationContext, ToolObservation } from '../../../pagewise/src/context/observation.js';
import { fieldNecessity, withoutField } from './ablation.js';

describe('withoutField', () => {
  it('removes the fields a rule names wherever they stand, and nothing else', () => {
    const order = {
      order_id: '#W1',
      address: { city: 'Lund', zip: '22100' },
      items: [
        { name: 'Lamp', price: 10.5, options: { color: 'red' } },
        { name: 'Desk', price: 99 },
      ],
    };
    expect(withoutField(order, 'items.price')).toEqual({
      order_id: '#W1',
      address: { city: 'Lund', zip: '22100' },
      items: [{ name: 'Lamp', options: { color: 'red' } }, { name: 'Desk' }],
    });
    expect(withoutField(order, 'address')).not.toHaveProperty('address');
    // `name` of an item and `name` of a person are the same rule.
    expect(withoutField({ name: { first: 'A' }, items: [{ name: 'Lamp', id: 1 }] }, 'name')).toEqual({
      items: [{ id: 1 }],
    });
    // Entries of a map keyed by ids are generalized to `*`.
    const variants = { variants: { '1001': { available: true, price: 1 }, '1002': { available: false, price: 2 } } };
    expect(withoutField(variants, 'variants.*.price')).toEqual({
      variants: { '1001': { available: true }, '1002': { available: false } },
    });
  });
  it('keeps a field named __proto__ as a field, and removes it when the rule names it', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": 1, "keep": 2}, "a": 3}') as unknown;
    const out = withoutField(parsed, 'polluted') as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out).toStrictEqual(JSON.parse('{"__proto__": {"keep": 2}, "a": 3}'));
    expect(withoutField(parsed, '__proto__')).toStrictEqual({ a: 3 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/**
 * A scenario whose "agent" sees two tool results through the strategy's observation processors and
 * succeeds when the result still shows what its task needs (`needs`: a field name that must appear).
 */
function fakeScenario(outputs: readonly string[]): BenchScenario {
  return {
    name: 'fake-ablation',
    description: 'test',
    strategies: [],
    prepare: () => Promise.resolve([]),
    async runEpisode(task: ScenarioTask, context: EpisodeContext) {
      const setup = await setupStrategy(context.strategy, {
        scenario: 'fake-ablation',
        model: context.model,
        instruction: '',
        tools: [],
        services: {},
        task: { id: task.id, prompt: task.prompt },
      });
      let seen = '';
      for (const [index, output] of outputs.entries()) {
        let obs: ToolObservation = { toolCallId: `c${index}`, toolName: 'get', input: {}, output, isError: false };
        for (const processor of setup.observationProcessors ?? [])
          obs = await processor.process(obs, {} as ObservationContext);
        seen += obs.output;
      }
      const needs = task.needs as string[];
      const success = needs.every((field) => seen.includes(`"${field}"`));
      return {
        taskId: task.id,
        strategy: context.strategy,
        success,
        answer: '',
        ledger: [],
        windowFailure: false,
        wallMs: 0,
      };
    },
  };
}

describe('fieldNecessity', () => {
  it('finds the fields success needs, coarse to fine, and those no task needs', async () => {
    const outputs = [
      JSON.stringify({
        order_id: '#W1',
        status: 'delivered',
        address: { city: 'Lund' },
        items: [{ name: 'Lamp', price: 1 }],
      }),
      JSON.stringify({ user_id: 'u1', email: 'a@b.c' }),
    ];
    const tasks: ScenarioTask[] = [
      { id: 't1', prompt: 'one', needs: ['price', 'status'] },
      { id: 't2', prompt: 'two', needs: ['user_id'] },
      // Fails even with everything in view: not ablated.
      { id: 't3', prompt: 'three', needs: ['never'] },
    ];
    const result = await fieldNecessity({ scenario: fakeScenario(outputs), tasks });
    expect(result.solved).toEqual(['t1', 't2']);
    const needed = Object.fromEntries(result.needed.map((n) => [n.rule, n.brokeTasks]));
    expect(needed).toEqual({ 'items.price': ['t1'], status: ['t1'], user_id: ['t2'] });
    expect(result.unneeded.map((u) => u.rule).sort()).toEqual(['address', 'email', 'items.name', 'order_id']);
    // `items` was needed as a whole, so its fields were tried one by one; `address.city` never was.
    expect(result.unneeded.map((u) => u.rule)).not.toContain('address.city');
    expect(result.episodes).toBe(3 + 2 * (6 + 2));
  });
});
