/**
 * Never worse than plain (bench/cache-parity.ts on a few tasks): the retail agent with no paging or
 * compression sends, on the pagewise Runner, requests that a provider's prompt cache serves as well as
 * those of a plain AI SDK `generateText` loop, under the same cache model at every price table. Measures
 * tokens and dollars, not time.
 */
import { describe, expect, it } from 'vitest';
import type { InstructionProvider } from 'pagewise';
import { promptSegments } from 'pagewise/cost';
import {
  generateRetailTasks,
  loadRetailData,
  RETAIL_INSTRUCTION,
  retailDataAvailable,
  retailDataMissing,
} from '@pagewise/lab/scenarios/retail';
import {
  PARITY_PRICES,
  parityRow,
  runParityEpisodes,
  withinParity,
  withoutSchemaKey,
  type CapturedRequest,
  type ParityEpisode,
  type RunnerSideOptions,
} from '../bench/cache-parity.js';

const available = retailDataAvailable();
if (!available) console.log(`cache parity tests skipped: ${retailDataMissing()}`);

const TASKS = 4;
const SEED = 1;

/** Each request as its provider's cache reads it: segment texts with their breakpoints. */
const layout = (request: CapturedRequest) =>
  promptSegments(request.prompt, request.tools).map((s) => `${s.breakpoint ?? '-'} ${s.text}`);

describe.runIf(available)('the plain retail agent on the runner and on a plain AI SDK loop', async () => {
  const data = available ? await loadRetailData() : undefined;
  const tasks = data ? generateRetailTasks(data, { count: TASKS, seed: SEED }) : [];
  const providers = [...new Set(PARITY_PRICES.map((p) => p.provider))];
  const run = async (provider: string, runnerSide: RunnerSideOptions = {}) => {
    const table = PARITY_PRICES.find((p) => p.provider === provider)!;
    return runParityEpisodes(data!, tasks, provider, table.modelId, runnerSide);
  };
  const plain = new Map<string, ParityEpisode[]>();
  for (const provider of providers) plain.set(provider, await run(provider));
  const rows = PARITY_PRICES.map((table) => parityRow(plain.get(table.provider)!, table.spec));

  it('makes the same decisions on both sides, and every answer is right', () => {
    for (const episodes of plain.values()) {
      for (const task of tasks) {
        const [runner, aiSdk] = ['runner', 'ai-sdk'].map((side) =>
          episodes.find((e) => e.side === side && e.taskId === task.id),
        );
        expect(runner?.success, runner?.text).toBe(true);
        expect(aiSdk?.success, aiSdk?.text).toBe(true);
        expect(runner!.requests.length).toBe(aiSdk!.requests.length);
        expect(runner!.text).toBe(aiSdk!.text);
      }
    }
  });

  it('sends the same requests as the AI SDK loop, but for the `$schema` key the AI SDK puts in tool schemas', () => {
    for (const [provider, episodes] of plain) {
      const runner = episodes.filter((e) => e.side === 'runner');
      const aiSdk = withoutSchemaKey(episodes.filter((e) => e.side === 'ai-sdk'));
      runner.forEach((episode, index) =>
        episode.requests.forEach((request, call) =>
          expect([provider, episode.taskId, call, layout(request)]).toEqual([
            provider,
            episode.taskId,
            call,
            layout(aiSdk[index]!.requests[call]!),
          ]),
        ),
      );
    }
  });

  it('as sent, reads from the cache within 5 points of the AI SDK loop at every price table', () => {
    for (const row of rows) {
      expect(row.runner.calls).toBeGreaterThan(TASKS);
      expect(row.aiSdk.cacheHitRate).toBeGreaterThan(0.5);
      expect(row.asSent.hitRateDeltaPoints, row.spec).toBeGreaterThanOrEqual(-5);
    }
  });

  it('with the same tool definitions, is within 5 points and 5% of the AI SDK loop at every price table', () => {
    for (const row of rows) expect([row.spec, withinParity(row.sameTools)]).toEqual([row.spec, true]);
  });

  it('falls outside the bound when its system message changes at every call, and not when that line is per step', async () => {
    let calls = 0;
    const inSystem: InstructionProvider = () => `${RETAIL_INSTRUCTION}\nModel calls so far: ${calls++}`;
    const perStep: InstructionProvider = () => [
      { part: 'instruction', text: RETAIL_INSTRUCTION },
      { part: 'instruction', text: `Model calls so far: ${calls++}`, perStep: true },
    ];
    for (const provider of providers) {
      const changing = await run(provider, { instruction: inSystem });
      const stepBlock = await run(provider, { instruction: perStep });
      for (const table of PARITY_PRICES.filter((p) => p.provider === provider)) {
        const worse = parityRow(changing, table.spec).sameTools;
        expect([table.spec, withinParity(worse)]).toEqual([table.spec, false]);
        expect(worse.hitRateDeltaPoints, table.spec).toBeLessThan(-5);
        expect([table.spec, withinParity(parityRow(stepBlock, table.spec).sameTools)]).toEqual([table.spec, true]);
      }
    }
  });
});
