import type { LanguageModelV3, LanguageModelV3FunctionTool, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ContextProcessor } from '../context/request.js';
import { scriptedModel } from '../models/scripted.js';
import { InMemorySessionStore } from '../session/memory-store.js';
import { promptCacheRulesFor, type PromptCacheRules } from '../tokens/cache-rules.js';
import { PromptCache, type PromptCacheUsage } from '../tokens/prompt-cache.js';
import { Agent } from './agent.js';
import { Runner } from './runner.js';
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
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: inner.supportedUrls,
    doGenerate: (options) => {
      sent.push({
        prompt: options.prompt.slice(),
        tools: (options.tools ?? []).filter((t): t is LanguageModelV3FunctionTool => t.type === 'function'),
      });
      return inner.doGenerate(options);
    },
    doStream: (options) => inner.doStream(options),
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

async function run(
  rules: PromptCacheRules,
  options: { reusePrompt: boolean; processors: boolean },
): Promise<{ modelled: (PromptCacheUsage | undefined)[]; replayed: PromptCacheUsage[] }> {
  const store = new InMemorySessionStore();
  const modelled: (PromptCacheUsage | undefined)[] = [];
  const replay = new PromptCache(rules);
  const replayed: PromptCacheUsage[] = [];
  const { model, sent } = recording(scriptedModel([0, 1, 2].flatMap(script)));
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
    const result = await runner.run({ userId: 'u', sessionId: 's', message: `Round ${round}.` });
    modelled.push(
      ...result.ledger.entries.filter((entry) => entry.kind === 'agent').map((entry) => entry.cache?.modelled),
    );
  }
  let at = 0;
  for (const call of sent) replayed.push(replay.observePrompt('s', call.prompt, call.tools, (at += 1)));
  return { modelled, replayed };
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
