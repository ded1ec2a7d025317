/**
 * Issue 31 item 1, end to end: a tool result of 240,000 spaces, counted once per step by the real Runner.
 * With the quadratic merge one count took over a minute and blocked the event loop, so `maxWallTimeMs`
 * fired long after its deadline; counted in bounded work, the run ends with the wall-time limit after a
 * few steps. The test's own timeout is the hang guard; timing figures live in bench/hostile-tokens.ts.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, LimitExceededError, Runner, tool } from '../../packages/pagewise/src/index.js';
import { scriptedModel, type ScriptedResponse } from '../../packages/pagewise/src/testing.js';

describe('issue 31 item 1: a 240k-space tool result let maxWallTimeMs end the run only after 84 s', () => {
  it('ends the run with limits.maxWallTimeMs after a bounded number of steps', async () => {
    let calls = 0;
    const spaces = tool({
      name: 'spaces',
      description: 'returns a run of spaces',
      inputSchema: z.object({}),
      // Each result differs, so no count is a cache hit: every step pays the full count. The number comes
      // last: counting cuts a text after a run of digits, and the run of spaces after it would be a hit.
      execute: () => `${' '.repeat(240_000)}${(calls += 1)}`,
    });
    const step = (): ScriptedResponse => ({ toolCalls: [{ toolName: 'spaces', input: {} }] });
    const model = scriptedModel(Array.from({ length: 200 }, () => step));
    const err = await new Runner({
      agent: new Agent({ name: 'a', tools: [spaces] }),
      model,
      limits: { maxWallTimeMs: 3_000, maxSteps: 200 },
    })
      .run({ userId: 'u', message: 'go' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitExceededError);
    expect((err as LimitExceededError).setting).toBe('limits.maxWallTimeMs');
    // The tool ran at least once, and the limit, not the end of the script, stopped the run.
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThan(200);
  }, 60_000);
});
