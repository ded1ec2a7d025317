import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyParts } from '../../../pagewise/src/tokens/ledger.js';
import { budgetCurveTable, runBudgetCurve, writeBudgetCurve } from './budget-curve.js';
import type { BenchScenario } from './scenario.js';
import { registerStandardBench } from './standard.js';
import { registerStrategy, unregisterStrategy } from './strategies.js';

registerStandardBench();

// A scenario without a model: each episode sends one 1,000-token request, which a budget below it refuses;
// the "small" strategy sends 400 tokens instead.
const scenario: BenchScenario = {
  name: 'test-curve',
  description: 'curve test',
  strategies: ['none', 'test-small'],
  prepare: async ({ tasks }) => Array.from({ length: tasks }, (_, i) => ({ id: `t${i}`, prompt: 'p' })),
  runEpisode: async (task, context) => {
    const tokens = context.strategy === 'test-small' ? 400 : 1000;
    const fits = context.budget === undefined || tokens <= context.budget;
    return {
      taskId: task.id,
      strategy: context.strategy,
      success: fits,
      answer: fits ? 'ok' : 'over budget',
      ledger: [
        {
          index: 0,
          kind: 'agent',
          agent: 'a',
          model: 'offline',
          invocationId: 'i',
          parts: { ...emptyParts(), history: tokens },
          promptTokens: tokens,
          completionTokens: 1,
          modelMs: 0,
          frameworkMs: 0,
          at: 0,
        },
      ],
      windowFailure: !fits,
      wallMs: 0,
    };
  },
};

describe('runBudgetCurve', () => {
  let dir: string;
  beforeAll(async () => {
    registerStrategy('test-small', () => ({}), { scenarios: ['test-curve'] });
    dir = await mkdtemp(path.join(os.tmpdir(), 'pagewise-curve-'));
  });
  afterAll(async () => {
    unregisterStrategy('test-small');
    await rm(dir, { recursive: true, force: true });
  });

  it("runs every strategy at fractions of none's peak and shows where each breaks", async () => {
    const curve = await runBudgetCurve({ scenario, tasks: 2, seed: 1, fractions: [0.25, 0.5, 1] });
    expect(curve.reference.peakPromptTokens).toBe(1000);
    const at = (s: string, b: number) => curve.points.find((p) => p.strategy === s && p.budget === b)?.successRate;
    expect([at('none', 250), at('none', 500), at('none', 1000)]).toEqual([0, 0, 1]);
    expect([at('test-small', 250), at('test-small', 500), at('test-small', 1000)]).toEqual([0, 1, 1]);
    expect(budgetCurveTable(curve)).toContain('| test-small | 0% | 100% | 100% |');
    const [json, svg] = await writeBudgetCurve(dir, 'curve', curve);
    expect(JSON.parse(await readFile(json as string, 'utf8')).points).toHaveLength(6);
    expect(await readFile(svg as string, 'utf8')).toMatch(/^<svg/u);
  });
});
