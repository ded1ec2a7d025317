import { describe, expect, it } from 'vitest';
import { PagewiseError } from '../errors.js';
import { getScenario, listScenarios, registerScenario, unregisterScenario } from './registry.js';
import type { BenchScenario } from './scenario.js';

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
  it('has retail-tool-use and multi-objective-qa, and a slot for report-analysis', () => {
    const listed = listScenarios();
    expect(listed.map((s) => s.name).slice(0, 3)).toEqual(['report-analysis', 'retail-tool-use', 'multi-objective-qa']);
    expect(getScenario('retail-tool-use').name).toBe('retail-tool-use');
    expect(getScenario('multi-objective-qa').defaultN).toBe(4);
  });

  it('explains that an unfilled slot is not available yet', () =>
    withEmptySlot(() => {
      expect(listScenarios().find((s) => s.name === 'report-analysis')).toEqual({
        name: 'report-analysis',
        description: expect.any(String),
        available: false,
      });
      expect(() => getScenario('report-analysis')).toThrow(
        /not available yet.*registerScenario.*retail-tool-use, multi-objective-qa/,
      );
    }));

  it('lists the available scenarios when a name is unknown', () => {
    try {
      getScenario('nope');
      expect.unreachable();
    } catch (error) {
      expect(PagewiseError.isInstance(error) && error.code).toBe('unknown-scenario');
      expect((error as Error).message).toContain('retail-tool-use');
    }
  });

  it('fills a slot with registerScenario and refuses a second registration', () =>
    withEmptySlot(() => {
      registerScenario(stub('report-analysis'));
      expect(getScenario('report-analysis').description).toBe('stub report-analysis');
      expect(listScenarios().find((s) => s.name === 'report-analysis')?.available).toBe(true);
      expect(() => registerScenario(stub('report-analysis'))).toThrow(/already registered/);
    }));
});
