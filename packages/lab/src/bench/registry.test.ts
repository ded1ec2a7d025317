import { describe, expect, it, vi } from 'vitest';
import { PagewiseError } from '../../../pagewise/src/errors.js';
import { getScenario, listScenarios, registerScenario, unregisterScenario } from './registry.js';
import type { BenchScenario } from './scenario.js';
import { registerStandardBench } from './standard.js';

registerStandardBench();

const stub = (name: string): BenchScenario => ({
  name,
  description: `stub ${name}`,
  strategies: ['none'],
  prepare: async () => [],
  runEpisode: async () => {
    throw new Error('not run in this test');
  },
});

/** Runs `fn` with the report-analysis slot empty, restoring whatever was registered there. */
function withEmptySlot(fn: () => void): void {
  const saved = listScenarios().find((s) => s.name === 'report-analysis')?.available
    ? getScenario('report-analysis')
    : undefined;
  unregisterScenario('report-analysis');
  try {
    fn();
  } finally {
    unregisterScenario('report-analysis');
    if (saved) registerScenario(saved);
  }
}

describe('the scenario registry', () => {
  it('has the three standard scenarios in display order', () => {
    const listed = listScenarios();
    expect(listed.map((s) => s.name).slice(0, 3)).toEqual(['report-analysis', 'retail-tool-use', 'multi-objective-qa']);
    expect(getScenario('retail-tool-use').name).toBe('retail-tool-use');
    expect(getScenario('multi-objective-qa').defaultN).toBe(4);
  });

  it('treats a standard scenario taken out of the registry as unknown, listing the others', () =>
    withEmptySlot(() => {
      expect(listScenarios().find((s) => s.name === 'report-analysis')).toBeUndefined();
      expect(() => getScenario('report-analysis')).toThrow(/Unknown scenario.*retail-tool-use, multi-objective-qa/);
    }));

  it('registers nothing when the bench modules are imported, only when registerStandardBench is called', async () => {
    vi.resetModules();
    const fresh = await import('./index.js');
    expect(fresh.listScenarios()).toEqual([]);
    expect(fresh.listStrategies()).toEqual([]);
    expect(() => fresh.getScenario('retail-tool-use')).toThrow(/registerStandardBench/);
    fresh.registerStandardBench();
    fresh.registerStandardBench();
    expect(fresh.listScenarios().map((s) => s.name)).toEqual([
      'report-analysis',
      'retail-tool-use',
      'multi-objective-qa',
    ]);
    expect(fresh.listStrategies().map((s) => s.name)).toContain('acon');
  });

  it('lists the available scenarios when a name is unknown', () => {
    try {
      getScenario('nope');
      expect.unreachable();
    } catch (error) {
      expect(PagewiseError.isInstance(error) && error.code).toBe('unknown-scenario');
      expect((error as Error).message).toContain('retail-tool-use');
    }
  });

  it('registers a scenario under a free name and refuses a second registration', () =>
    withEmptySlot(() => {
      registerScenario(stub('report-analysis'));
      expect(getScenario('report-analysis').description).toBe('stub report-analysis');
      expect(listScenarios().find((s) => s.name === 'report-analysis')?.available).toBe(true);
      expect(() => registerScenario(stub('report-analysis'))).toThrow(/already registered/);
    }));
});
