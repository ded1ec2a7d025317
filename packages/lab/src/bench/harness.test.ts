import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APICallError } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { tool } from '../../../pagewise/src/agents/tool.js';
import { clearToolResults } from '../../../pagewise/src/context/processors.js';
import { PagewiseError } from '../../../pagewise/src/errors.js';
import { OfflineModel, type OfflinePolicy } from '../../../pagewise/src/models/offline.js';
import {
  captureModelCalls,
  inProcessExecutor,
  runAgentEpisode,
  runBench,
  type BenchReport,
  type CapturedCall,
  type EpisodeExecutor,
} from './harness.js';
import type { BenchScenario, EpisodeOutcome, ScenarioTask } from './scenario.js';
import { registerStrategy, unregisterStrategy } from './strategies.js';
import { registerStandardBench } from './standard.js';

registerStandardBench();

// A small scenario with no data: each task asks for the secrets of n keys; the `lookup` tool returns a
// secret in a long result; the policy answers from the results it can see, and says "missing" after two
// look-ups of a key whose result is not in its prompt.
const SCENARIO = 'test-lookup';
const secret = (seed: number, key: string) =>
  String((seed * 7919 + [...key].reduce((a, c) => a * 31 + c.charCodeAt(0), 0)) % 100_000);

const lookup = (seed: number) =>
  tool({
    name: 'lookup',
    description: 'Returns the record of a key.',
    inputSchema: z.object({ key: z.string() }),
    execute: ({ key }) =>
      `Record ${key}. The secret of ${key} is ${secret(seed, key)}. ${'Unrelated filler text. '.repeat(40)}`,
  });

const policy: OfflinePolicy = {
  name: 'test-lookup',
  matches: (view) => view.system.includes('Task kind: test-lookup'),
  decide(view) {
    const keys = /Secrets of: (.+)$/m.exec(view.firstUserText)?.[1]?.split(' ') ?? [];
    const seen = new Map<string, string>();
    const calls = new Map<string, number>();
    for (const turn of view.turns) {
      if (turn.role === 'tool')
        for (const result of turn.results)
          for (const match of result.output.matchAll(/The secret of (\w+) is (\d+)/g))
            seen.set(match[1] ?? '', match[2] ?? '');
      if (turn.role === 'assistant')
        for (const call of turn.toolCalls)
          calls.set(JSON.stringify(call.input), (calls.get(JSON.stringify(call.input)) ?? 0) + 1);
    }
    for (const key of keys) {
      if (seen.has(key)) continue;
      if ((calls.get(JSON.stringify({ key })) ?? 0) >= 2) return { text: 'Answer: missing' };
      return { toolCalls: [{ toolName: 'lookup', input: { key } }] };
    }
    return { text: `Answer: ${keys.map((k) => seen.get(k)).join(' ')}` };
  },
};

const lookupScenario: BenchScenario = {
  name: SCENARIO,
  description: 'test scenario',
  defaultN: 2,
  strategies: ['none', 'test-drop-results'],
  prepare: async ({ n: keyCount = 2, tasks, seed }) =>
    Array.from({ length: tasks }, (_, taskIndex) => {
      const keys = Array.from({ length: keyCount }, (_, i) => `k${taskIndex}x${i}`);
      return { id: `t${taskIndex}-n${keyCount}`, prompt: `Secrets of: ${keys.join(' ')}`, keys, seed };
    }),
  async runEpisode(task, context) {
    const { keys, seed } = task as ScenarioTask & { keys: string[]; seed: number };
    const run = await runAgentEpisode({
      scenario: SCENARIO,
      context,
      task,
      agentName: 'looker',
      instruction: 'Task kind: test-lookup\nLook up each key, then answer.',
      tools: [lookup(seed)],
      offlinePolicy: policy,
      maxSteps: 20,
    });
    const expected = `Answer: ${keys.map((k) => secret(seed, k)).join(' ')}`;
    return {
      taskId: task.id,
      strategy: context.strategy,
      success: run.error === undefined && run.text === expected,
      answer: run.text,
      ledger: run.ledger,
      windowFailure: run.windowFailure,
      ...(run.error !== undefined ? { error: run.error } : {}),
      wallMs: run.wallMs,
    };
  },
};

beforeAll(() => {
  // Clears every tool result, so no secret is ever in the prompt.
  registerStrategy('test-drop-results', () => ({ processors: [clearToolResults({ keepLast: 0 })] }), {
    scenarios: [SCENARIO],
  });
});
afterAll(() => {
  unregisterStrategy('test-drop-results');
});

/** The results without timings, which are the only figures allowed to differ between two runs. */
function deterministicPart(report: BenchReport) {
  return {
    results: report.results.map(({ overheadMsPerStep: _o, wallMs: _w, ...rest }) => rest),
    episodes: report.runs.episodes.map((episode) => ({
      ...episode,
      wallMs: 0,
      ledger: episode.ledger.map(({ modelMs: _m, frameworkMs: _f, at: _a, invocationId: _i, ...rest }) => rest),
    })),
  };
}

describe('runBench', () => {
  it('runs every task under every strategy and N, reporting progress', async () => {
    const progress: number[] = [];
    const report = await runBench({
      scenario: lookupScenario,
      n: [3, 1],
      tasks: 2,
      seed: 5,
      onProgress: (p) => progress.push(p.done),
    });
    expect(progress).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(report.runs.params).toEqual({
      strategies: ['none', 'test-drop-results'],
      n: [1, 3],
      tasks: 2,
      seed: 5,
      contextWindow: null,
      budget: null,
    });
    expect(report.results.map((r) => [r.strategy, r.n, r.runs])).toEqual([
      ['none', 1, 2],
      ['none', 3, 2],
      ['test-drop-results', 1, 2],
      ['test-drop-results', 3, 2],
    ]);
    // More keys, more results in the prompt.
    expect(report.results[1]!.peakPromptTokens).toBeGreaterThan(report.results[0]!.peakPromptTokens);
    expect(report.runs.model).toBe('offline');
    expect(report.results.every((r) => r.costUsd === 0)).toBe(true);
  });

  it('succeeds with the full history and fails when the needed value is missing from the prompt', async () => {
    const report = await runBench({ scenario: lookupScenario, tasks: 3, seed: 1 });
    const [none, dropped] = report.results;
    expect(none?.successRate).toBe(1);
    expect(dropped?.successRate).toBe(0);
    const failed = report.runs.episodes.filter((e) => e.strategy === 'test-drop-results');
    expect(failed.every((e) => e.answer === 'Answer: missing' && e.error === undefined)).toBe(true);
    // Two look-ups of the first key, then the answer: the policy tried before it gave up.
    expect(dropped!.modelCalls).toBe(3);
  });

  it('gives the same numbers for the same seed, and other numbers for another seed', async () => {
    const first = await runBench({ scenario: lookupScenario, tasks: 2, seed: 3 });
    const again = await runBench({ scenario: lookupScenario, tasks: 2, seed: 3 });
    const otherSeed = await runBench({ scenario: lookupScenario, tasks: 2, seed: 4 });
    expect(deterministicPart(again)).toEqual(deterministicPart(first));
    expect(deterministicPart(otherSeed)).not.toEqual(deterministicPart(first));
  });

  it('keeps the order of episodes when several run at once', async () => {
    const one = await runBench({ scenario: lookupScenario, tasks: 3, seed: 2 });
    const three = await runBench({ scenario: lookupScenario, tasks: 3, seed: 2, concurrency: 3 });
    expect(deterministicPart(three)).toEqual(deterministicPart(one));
  });

  it('counts requests over the context window as window failures', async () => {
    const report = await runBench({
      scenario: lookupScenario,
      strategies: ['none'],
      tasks: 2,
      seed: 1,
      contextWindow: 20,
    });
    const [row] = report.results;
    expect(row).toMatchObject({ successRate: 0, windowFailures: 2, errors: 2 });
    expect(report.runs.episodes[0]?.error).toMatch(/context window/);
    expect(report.runs.params.contextWindow).toBe(20);
  });

  it('keeps the calls made before an episode failed', async () => {
    // Enough for the first request, not for the second, which carries a long tool result.
    const report = await runBench({
      scenario: lookupScenario,
      strategies: ['none'],
      tasks: 1,
      seed: 1,
      contextWindow: 200,
    });
    const [episode] = report.runs.episodes;
    expect(episode?.windowFailure).toBe(true);
    expect(episode?.ledger.length).toBe(1);
    expect(report.results[0]!.peakPromptTokens).toBeGreaterThan(0);
  });

  it('refuses unknown strategies, an N the scenario does not take, and bad counts', async () => {
    await expect(runBench({ scenario: lookupScenario, strategies: ['nope'], tasks: 1, seed: 1 })).rejects.toThrow(
      /Unknown strategy "nope".*Known strategies: none/,
    );
    await expect(runBench({ scenario: lookupScenario, strategies: ['fifo'], tasks: 1, seed: 1 })).rejects.toThrow(
      /cannot run strategy "fifo".*none, test-drop-results/,
    );
    const noN: BenchScenario = { ...lookupScenario, defaultN: undefined };
    await expect(runBench({ scenario: noN, n: 3, tasks: 1, seed: 1 })).rejects.toThrow(/no size parameter N/);
    await expect(runBench({ scenario: lookupScenario, tasks: 0, seed: 1 })).rejects.toThrow(
      /tasks must be a positive integer/,
    );
    await expect(runBench({ scenario: lookupScenario, n: [0], tasks: 1, seed: 1 })).rejects.toThrow(/positive integer/);
  });

  it('fails before the first episode when a hosted model has no key', async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    let prepared = false;
    try {
      await expect(
        runBench({
          scenario: { ...lookupScenario, prepare: async () => ((prepared = true), []) },
          model: 'openai:gpt-4.1-mini',
          tasks: 1,
          seed: 1,
        }),
      ).rejects.toThrow(/OPENAI_API_KEY/);
      expect(prepared).toBe(false);
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });

  it('runs the episodes on the executor given, and saves them in job order whatever order they finish in', async () => {
    const seen: number[] = [];
    const progress: number[] = [];
    // Runs the jobs last to first, as workers of a queue may.
    const reversed: EpisodeExecutor = async (batch) => {
      expect(batch.concurrency).toBe(1);
      const outcomes: EpisodeOutcome[] = new Array(batch.jobs.length);
      for (const job of [...batch.jobs].reverse()) {
        seen.push(job.index);
        outcomes[job.index] = await batch.scenario.runEpisode(job.task, { strategy: job.strategy, model: batch.model });
        batch.onEpisode(job, outcomes[job.index]!);
      }
      return outcomes;
    };
    const report = await runBench({
      scenario: lookupScenario,
      n: [1, 2],
      tasks: 2,
      seed: 4,
      executor: reversed,
      onProgress: (p) => progress.push(p.done),
    });
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1, 0]);
    expect(progress).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(deterministicPart(report)).toEqual(
      deterministicPart(await runBench({ scenario: lookupScenario, n: [1, 2], tasks: 2, seed: 4 })),
    );
  });

  it('refuses an executor that loses an episode', async () => {
    const lossy: EpisodeExecutor = async (batch) => (await inProcessExecutor(batch)).slice(1);
    await expect(runBench({ scenario: lookupScenario, tasks: 2, seed: 1, executor: lossy })).rejects.toThrow(
      /returned no outcome for episode 3 \(test-drop-results, task t1-n2\)/,
    );
  });

  it('stops on abort with an aborted error', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await runBench({ scenario: lookupScenario, tasks: 1, seed: 1, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect(PagewiseError.isInstance(error) && error.code).toBe('aborted');
  });
});

describe('runAgentEpisode', () => {
  it("applies the strategy's instruction, tools and services on top of the scenario's", async () => {
    const seen: unknown[] = [];
    const noop = tool({
      name: 'noop',
      description: 'Does nothing at all, for a test of extra tools.',
      inputSchema: z.object({}),
      execute: () => 'ok',
    });
    registerStrategy(
      'test-extras',
      (ctx) => {
        seen.push(ctx.services, ctx.task.id, ctx.instruction);
        return {
          instruction: (base) => `${base}\n${'Paged report text. '.repeat(30)}`,
          tools: [noop],
          services: { fromStrategy: 2 },
        };
      },
      { scenarios: [SCENARIO] },
    );
    try {
      const base = {
        scenario: SCENARIO,
        task: { id: 'x', prompt: 'Secrets of: a' },
        agentName: 'looker',
        instruction: 'Task kind: test-lookup',
        tools: [lookup(1)],
        offlinePolicy: policy,
        maxSteps: 5,
        services: { fromScenario: 1 },
      };
      const plain = await runAgentEpisode({ ...base, context: { strategy: 'none', model: 'offline' } });
      const extras = await runAgentEpisode({ ...base, context: { strategy: 'test-extras', model: 'offline' } });
      expect(seen).toEqual([{ fromScenario: 1 }, 'x', 'Task kind: test-lookup']);
      expect(extras.text).toBe(plain.text);
      expect(extras.ledger[0]!.parts.instruction).toBeGreaterThan(plain.ledger[0]!.parts.instruction + 100);
      expect(extras.ledger[0]!.parts.tools).toBeGreaterThan(plain.ledger[0]!.parts.tools);
    } finally {
      unregisterStrategy('test-extras');
    }
  });
});

describe('runAgentEpisode on a failing provider', () => {
  it("says an outage is the system's fault and a refused key the configuration's, so optimize can tell them from a lost fact", async () => {
    const failing = (status: number) =>
      new MockLanguageModelV3({
        doGenerate: async () => {
          throw new APICallError({
            message: `HTTP ${status}`,
            url: 'http://127.0.0.1:1/v1/chat/completions',
            requestBodyValues: {},
            statusCode: status,
            isRetryable: false,
          });
        },
      });
    const base = {
      scenario: SCENARIO,
      task: { id: 'x', prompt: 'Secrets of: a' },
      agentName: 'looker',
      instruction: 'Task kind: test-lookup',
      tools: [lookup(1)],
      offlinePolicy: policy,
      maxSteps: 5,
    };
    const outage = await runAgentEpisode({ ...base, context: { strategy: 'none', model: failing(503) } });
    expect(outage.error).toBeDefined();
    expect(outage.errorFault).toBe('system');
    const refused = await runAgentEpisode({ ...base, context: { strategy: 'none', model: failing(401) } });
    expect(refused.errorFault).toBe('configuration');
    const fine = await runAgentEpisode({ ...base, context: { strategy: 'none', model: 'offline' } });
    expect(fine.errorFault).toBeUndefined();
  });
});

describe('strategies and gold', () => {
  it('a strategy factory sees the task without its gold fields, and cannot reach them', async () => {
    const seen: unknown[] = [];
    registerStrategy(
      'test-gold-probe',
      (ctx) => {
        seen.push(ctx.task);
        return {};
      },
      { scenarios: [SCENARIO] },
    );
    try {
      const task = { id: 'g', prompt: 'Secrets of: a', gold: 'the secret', goldAnswer: '42', questions: [1] };
      await runAgentEpisode({
        scenario: SCENARIO,
        context: { strategy: 'test-gold-probe', model: 'offline' },
        task,
        agentName: 'looker',
        instruction: 'Task kind: test-lookup',
        tools: [lookup(1)],
        offlinePolicy: policy,
        maxSteps: 5,
      });
      const got = seen[0] as Record<string, unknown>;
      expect(Object.keys(got).sort()).toEqual(['id', 'prompt']);
      expect(JSON.stringify(got)).not.toContain('the secret');
      expect(Object.isFrozen(got)).toBe(true);
      expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
      expect(got).not.toBe(task);
    } finally {
      unregisterStrategy('test-gold-probe');
    }
  });

  it('a request over the budget fails the episode like one over the window', async () => {
    const base = {
      scenario: SCENARIO,
      task: { id: 'b', prompt: 'Secrets of: a b c' },
      agentName: 'looker',
      instruction: 'Task kind: test-lookup',
      tools: [lookup(1)],
      offlinePolicy: policy,
      maxSteps: 10,
    };
    const free = await runAgentEpisode({ ...base, context: { strategy: 'none', model: 'offline' } });
    const peak = Math.max(...free.ledger.map((e) => e.promptTokens));
    const tight = await runAgentEpisode({ ...base, context: { strategy: 'none', model: 'offline', budget: peak - 1 } });
    expect(free.error).toBeUndefined();
    expect(tight.windowFailure).toBe(true);
    const enough = await runAgentEpisode({ ...base, context: { strategy: 'none', model: 'offline', budget: peak } });
    expect(enough.error).toBeUndefined();
  });
});

describe('captureModelCalls', () => {
  const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hello there' }] }];

  it('reports a generate call with its prompt and answer', async () => {
    const calls: CapturedCall[] = [];
    const model = captureModelCalls(new OfflineModel(), (c) => calls.push(c));
    await model.doGenerate({ prompt });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.params.prompt).toEqual(prompt);
    expect(calls[0]?.text).toContain('hello there');
    expect(calls[0]?.toolCalls).toEqual([]);
  });

  it('reports a streamed call once its stream has been read', async () => {
    const calls: CapturedCall[] = [];
    const model = captureModelCalls(new OfflineModel(), (c) => calls.push(c));
    const { stream } = await model.doStream({ prompt });
    expect(calls).toHaveLength(0);
    const reader = stream.getReader();
    while (!(await reader.read()).done);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.text).toContain('hello there');
  });
});
