import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContextProcessor } from '../../../../pagewise/src/context/request.js';
import { retailDataMissing, retailDataAvailable, RETAIL_TOOL_NAMES } from '../../scenarios/retail/index.js';
import { runBench } from '../harness.js';
import { registerStrategy, unregisterStrategy } from '../strategies.js';
import { createRetailScenario, RETAIL_SCENARIO } from './retail.js';
import { registerStandardBench } from '../standard.js';

registerStandardBench();

const available = retailDataAvailable();
if (!available) console.log(`retail-tool-use bench tests skipped: ${retailDataMissing()}`);

/**
 * Hides one needed value: every result of get_order_details for the first order the agent fetched is
 * replaced, however often it is fetched again. Everything else stays in the prompt.
 */
const hideFirstOrder: ContextProcessor = {
  name: 'hide-first-order',
  process(request) {
    const inputs = new Map<string, unknown>();
    for (const item of request.items)
      if (item.type === 'assistant') for (const call of item.toolCalls) inputs.set(call.toolCallId, call.input);
    const orderOf = (id: string) => (inputs.get(id) as { order_id?: string } | undefined)?.order_id;
    const first = request.items.find((i) => i.type === 'tool-result' && i.toolName === RETAIL_TOOL_NAMES.getOrder);
    if (first?.type !== 'tool-result') return;
    const hidden = orderOf(first.toolCallId);
    request.items = request.items.map((item) =>
      item.type === 'tool-result' && item.toolName === RETAIL_TOOL_NAMES.getOrder && orderOf(item.toolCallId) === hidden
        ? { ...item, output: '[removed]' }
        : item,
    );
  },
};

describe.runIf(available)('retail-tool-use scenario', () => {
  const scenario = createRetailScenario();
  beforeAll(() =>
    registerStrategy('test-hide-first-order', () => ({ processors: [hideFirstOrder] }), {
      scenarios: [RETAIL_SCENARIO],
    }),
  );
  afterAll(() => unregisterStrategy('test-hide-first-order'));

  it('offers the generic strategies and takes no N', () => {
    expect(scenario.strategies.slice(0, 3)).toEqual(['none', 'fifo', 'clear-tool-results']);
    expect(scenario.defaultN).toBeUndefined();
  });

  it('succeeds with the full history and fails when one needed order is missing from the prompt', async () => {
    const report = await runBench({ scenario, strategies: ['none', 'test-hide-first-order'], tasks: 4, seed: 1 });
    const [none, hidden] = report.results;
    expect(none?.successRate).toBe(1);
    expect(hidden?.successRate).toBe(0);
    for (const episode of report.runs.episodes.filter((x) => x.strategy === 'test-hide-first-order')) {
      expect(episode.error).toBeUndefined(); // it answered, and said what was missing instead of guessing
      expect(episode.answer).toMatch(/Answer: unknown/);
    }
  });

  it('gives the same numbers for the same seed', async () => {
    const run = () => runBench({ scenario, strategies: ['none', 'clear-tool-results'], tasks: 2, seed: 7 });
    const strip = (report: Awaited<ReturnType<typeof run>>) =>
      report.results.map(({ overheadMsPerStep: _o, wallMs: _w, ...rest }) => rest);
    expect(strip(await run())).toEqual(strip(await run()));
  });

  it('records window failures when requests outgrow the window', async () => {
    const report = await runBench({ scenario, strategies: ['none'], tasks: 2, seed: 1, contextWindow: 3000 });
    expect(report.results[0]?.windowFailures).toBeGreaterThan(0);
    expect(report.results[0]?.successRate).toBeLessThan(1);
  });

  it('refuses a task that is not a retail task', async () => {
    await expect(
      scenario.runEpisode({ id: 'x', prompt: 'hi' }, { strategy: 'none', model: 'offline' }),
    ).rejects.toThrow(/not a retail-tool-use task/);
  });
});
