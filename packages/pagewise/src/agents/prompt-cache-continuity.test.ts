import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { ContextProcessor } from '../context/request.js';
import { scriptedModel } from '../models/scripted.js';
import { InMemorySessionStore } from '../session/memory-store.js';
import { promptCacheRulesFor, type PromptCacheRules } from '../tokens/cache-rules.js';
import { PromptCache, type PromptCacheUsage } from '../tokens/prompt-cache.js';
import { Agent } from './agent.js';
import { Runner } from './runner.js';
import type { RunResult } from './run-types.js';
import { tool } from './tool.js';

// The runner lets the prompt-cache model skip comparing the messages its kept history vouches for. The
// figures must be those of the model comparing every message: each call's prompt, as the model received
// it, is fed again to a fresh model, message by message.

/** A model that records a copy of each prompt and tool list it is sent (a reused prompt changes later). */
function recording(inner: LanguageModelV3): {
  model: LanguageModelV3;
  sent: { prompt: LanguageModelV3Prompt; tools: LanguageModelV3FunctionTool[] }[];
} {
  const sent: { prompt: LanguageModelV3Prompt; tools: LanguageModelV3FunctionTool[] }[] = [];
  const keep = (options: LanguageModelV3CallOptions) =>
    sent.push({
      prompt: options.prompt.slice(),
      tools: (options.tools ?? []).filter((t): t is LanguageModelV3FunctionTool => t.type === 'function'),
    });
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: inner.supportedUrls,
    doGenerate: (options) => {
      keep(options);
      return inner.doGenerate(options);
    },
    doStream: (options) => {
      keep(options);
      return inner.doStream(options);
    },
  };
  return { model, sent };
}

/** Replaces the output of the `every`-th tool result from the start at each step: an edit mid-history. */
function editing(every: number): ContextProcessor {
  let step = 0;
  return {
    name: 'edit-mid-history',
    touches: ['items'],
    process(request) {
      step += 1;
      if (step % 3 !== 0) return;
      let seen = 0;
      request.items = request.items.map((item) =>
        item.type === 'tool-result' && (seen += 1) % every === 0
          ? { ...item, output: `${item.output} (edited ${step})` }
          : item,
      );
    },
  };
}

const lookup = tool({
  name: 'lookup',
  description: 'Looks a value up.',
  inputSchema: z.object({ q: z.string() }),
  execute: ({ q }) => `value of ${q}: ${'detail '.repeat(40)}`,
});

/** Steps of one or two tool calls (two: their results run into one tool message), then an answer. */
const script = (round: number) => [
  ...Array.from({ length: 8 }, (_, index) => ({
    toolCalls: [
      { toolName: 'lookup', input: { q: `r${round}-${index}` } },
      ...(index % 3 === 1 ? [{ toolName: 'lookup', input: { q: `r${round}-${index}b` } }] : []),
    ],
  })),
  `done ${round}`,
];

/** A model that answers `ms` after it is called, as a provider does, noting how many prompts had been modelled by then. */
function slow(
  inner: LanguageModelV3,
  ms: number,
  modelledCount: () => number,
): { model: LanguageModelV3; atCall: number[]; atAnswer: number[] } {
  const atCall: number[] = [];
  const atAnswer: number[] = [];
  const wait = () => new Promise((resolve) => setTimeout(resolve, ms));
  const model: LanguageModelV3 = {
    ...inner,
    specificationVersion: 'v3',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: inner.supportedUrls,
    doGenerate: async (options) => {
      atCall.push(modelledCount());
      const result = await inner.doGenerate(options);
      await wait();
      atAnswer.push(modelledCount());
      return result;
    },
    doStream: async (options) => {
      atCall.push(modelledCount());
      const result = await inner.doStream(options);
      await wait();
      atAnswer.push(modelledCount());
      return result;
    },
  };
  return { model, atCall, atAnswer };
}

async function run(
  rules: PromptCacheRules,
  options: { reusePrompt: boolean; processors: boolean; answerAfterMs?: number; stream?: boolean },
): Promise<{
  modelled: (PromptCacheUsage | undefined)[];
  replayed: PromptCacheUsage[];
  atCall: number[];
  atAnswer: number[];
}> {
  const store = new InMemorySessionStore();
  const modelled: (PromptCacheUsage | undefined)[] = [];
  const replay = new PromptCache(rules);
  const replayed: PromptCacheUsage[] = [];
  const recorded = recording(scriptedModel([0, 1, 2].flatMap(script)));
  const { sent } = recorded;
  // Counted before the replay below starts: the runner's own calls of the model.
  const observed = vi.spyOn(PromptCache.prototype, 'observePrompt');
  const slowed =
    options.answerAfterMs !== undefined
      ? slow(recorded.model, options.answerAfterMs, () => observed.mock.calls.length)
      : undefined;
  const model = slowed?.model ?? recorded.model;
  const agent = new Agent({
    name: 'a',
    instruction: `You look things up. ${'Use the tool for every value. '.repeat(60)}`,
    tools: [lookup],
    ...(options.processors ? { processors: [editing(2)] } : {}),
  });
  // One runner: its kept history carries over from one invocation of the session to the next.
  const runner = new Runner({
    agent,
    model,
    store,
    appName: 'app',
    promptCache: rules,
    reusePrompt: options.reusePrompt,
    cacheHints: { breakpoints: false },
  });
  for (const round of [0, 1, 2]) {
    const input = { userId: 'u', sessionId: 's', message: `Round ${round}.` };
    let result: RunResult | undefined;
    if (options.stream) {
      for await (const part of runner.stream(input)) if (part.type === 'finish') result = part.result;
    } else result = await runner.run(input);
    if (!result) throw new Error('the run ended without a result');
    modelled.push(
      ...result.ledger.entries.filter((entry) => entry.kind === 'agent').map((entry) => entry.cache?.modelled),
    );
  }
  observed.mockRestore();
  let at = 0;
  for (const call of sent) replayed.push(replay.observePrompt('s', call.prompt, call.tools, (at += 1)));
  return { modelled, replayed, atCall: slowed?.atCall ?? [], atAnswer: slowed?.atAnswer ?? [] };
}

describe('the prompt-cache model in the runner, with the kept history vouching for its messages', () => {
  const cases = [
    promptCacheRulesFor('openai', 'gpt-4.1')!,
    promptCacheRulesFor('google', 'gemini-2.5-flash')!,
    promptCacheRulesFor('anthropic', 'claude-sonnet-4-5')!,
  ].flatMap((rules) =>
    [false, true].flatMap((reusePrompt) =>
      [false, true].map((processors) => [rules.name, reusePrompt, processors, rules] as const),
    ),
  );
  it.each(cases)(
    'gives the figures of comparing every message: %s, reused prompt %s, mid-history edits %s',
    async (_, reusePrompt, processors, rules) => {
      const { modelled, replayed } = await run(rules, { reusePrompt, processors });
      expect(modelled.length).toBe(replayed.length);
      expect(modelled.length).toBeGreaterThan(20);
      // Both clocks keep every entry alive (the run takes well under five minutes): the figures are the same.
      expect(modelled).toEqual(replayed);
      // The edits change the history well before its end.
      if (processors) expect(replayed.some((usage) => usage.firstChangedToken < usage.promptTokens - 200)).toBe(true);
    },
  );
});

describe('the prompt-cache model in the runner, modelled while the model works', () => {
  const openai = promptCacheRulesFor('openai', 'gpt-4.1')!;
  const anthropic = promptCacheRulesFor('anthropic', 'claude-sonnet-4-5')!;
  it.each([
    ['generate', openai.name, false, openai],
    ['stream', openai.name, true, openai],
    ['generate', anthropic.name, false, anthropic],
  ] as const)(
    'models each request while a slow model works (%s, %s), with the figures of a model that answers at once',
    async (_, __, stream, rules) => {
      const slowRun = await run(rules, { reusePrompt: true, processors: true, answerAfterMs: 2, stream });
      const atOnce = await run(rules, { reusePrompt: true, processors: true });
      expect(slowRun.atAnswer.length).toBe(slowRun.modelled.length);
      // The n-th request is modelled after the call has started and before its answer: during the call.
      expect(slowRun.atCall).toEqual(slowRun.atCall.map((_, index) => index));
      expect(slowRun.atAnswer).toEqual(slowRun.atAnswer.map((_, index) => index + 1));
      expect(slowRun.modelled).toEqual(slowRun.replayed);
      expect(slowRun.modelled.map((usage) => usage && { ...usage, at: 0 })).toEqual(
        atOnce.modelled.map((usage) => usage && { ...usage, at: 0 }),
      );
    },
  );
});
