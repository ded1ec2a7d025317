import { describe, expect, it } from 'vitest';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { z } from 'zod';
import { clearToolResults } from '../context/processors.js';
import { renderPrompt, serializeRequest, type ContextProcessor } from '../context/request.js';
import { scriptedModel } from '../models/scripted.js';
import { InMemorySessionStore } from '../session/memory-store.js';
import { emptyParts } from '../tokens/ledger.js';
import { countTokens } from '../tokens/tokenizer.js';
import { Agent } from './agent.js';
import type { ModelCallRecord } from './call-log.js';
import { Runner } from './runner.js';
import { tool } from './tool.js';

const lookup = tool({
  name: 'lookup',
  description: 'Looks a record up.',
  inputSchema: z.object({ id: z.string() }),
  execute: ({ id }) => `record ${id}: ${'status delivered; '.repeat(3)}`,
});

const steps = (prefix: string) => [
  { text: `Looking ${prefix}.`, toolCalls: [{ toolName: 'lookup', input: { id: `${prefix}1` } }] },
  {
    toolCalls: [
      { toolName: 'lookup', input: { id: `${prefix}2` } },
      { toolName: 'lookup', input: { id: `${prefix}3` } },
    ],
  },
  `done ${prefix}`,
];

describe('Runner: the history kept between steps and invocations', () => {
  for (const [name, processors] of [
    ['no processor', []],
    ['a processor that changes items', [clearToolResults({ keepLast: 1 })]],
  ] as [string, ContextProcessor[]][]) {
    it(`sends and counts every step as a full render and recount of its request would (${name})`, async () => {
      const model = scriptedModel([...steps('a'), ...steps('b'), ...steps('c')]);
      const calls: ModelCallRecord[] = [];
      const runner = new Runner({
        agent: new Agent({ name: 'a', instruction: 'You look records up.', tools: [lookup], processors }),
        model,
        store: new InMemorySessionStore(),
        callLog: { recordCall: (c) => void calls.push(c) },
      });
      for (const message of ['first', 'second', 'third']) await runner.run({ userId: 'u', sessionId: 's', message });
      model.assertComplete();
      expect(calls).toHaveLength(9);
      calls.forEach((call, index) => {
        const parts = emptyParts();
        for (const segment of serializeRequest(call.request)) parts[segment.part] += countTokens(segment.text);
        expect(call.entry.parts).toEqual(parts);
        expect(model.calls[index]!.prompt).toEqual(renderPrompt(call.request).prompt);
      });
      // The last invocation's requests carry the history of the earlier ones.
      expect(model.calls[8]!.prompt.length).toBeGreaterThan(model.calls[2]!.prompt.length);
      // A prompt handed to the model stays as it was sent.
      expect(model.calls[0]!.prompt).toEqual(renderPrompt(calls[0]!.request).prompt);
    });
  }
});

describe('Runner: reusePrompt', () => {
  /** Runs three invocations and returns, per model call, the prompt array handed over and a copy of it as sent. */
  async function run(reusePrompt: boolean, processors: ContextProcessor[]) {
    const scripted = scriptedModel([...steps('a'), ...steps('b'), ...steps('c')]);
    const arrays: unknown[] = [];
    const sent: unknown[] = [];
    const model: LanguageModelV3 = {
      specificationVersion: 'v3',
      provider: scripted.provider,
      modelId: scripted.modelId,
      supportedUrls: {},
      doGenerate: (options) => {
        arrays.push(options.prompt);
        sent.push(structuredClone(options.prompt));
        return scripted.doGenerate(options);
      },
      doStream: (options) => scripted.doStream(options),
    };
    const runner = new Runner({
      agent: new Agent({ name: 'a', instruction: 'You look records up.', tools: [lookup], processors }),
      model,
      store: new InMemorySessionStore(),
      reusePrompt,
    });
    for (const message of ['first', 'second', 'third']) await runner.run({ userId: 'u', sessionId: 's', message });
    scripted.assertComplete();
    return { arrays, sent };
  }

  it('sends the same prompts as without it, handing over one array when the processors keep the history', async () => {
    const copied = await run(false, []);
    const reused = await run(true, []);
    expect(reused.sent).toEqual(copied.sent);
    expect(new Set(copied.arrays).size).toBe(copied.arrays.length);
    expect(new Set(reused.arrays).size).toBe(1);
  });

  it('still hands over a new array at each step whose processors changed the history', async () => {
    const processors = [clearToolResults({ keepLast: 1 })];
    const copied = await run(false, processors);
    const reused = await run(true, processors);
    expect(reused.sent).toEqual(copied.sent);
    // Steps where clearing changed an item get their own array, which stays as it was sent.
    const own = reused.arrays.filter((a, i) => reused.arrays.indexOf(a) === i && reused.arrays.lastIndexOf(a) === i);
    expect(own.length).toBeGreaterThan(0);
    reused.arrays.forEach((array, index) => {
      if (own.includes(array)) expect(array).toEqual(reused.sent[index]);
    });
  });

  it('refuses a value other than true, false or "auto"', () => {
    const agent = new Agent({ name: 'a', instruction: 'x' });
    expect(() => new Runner({ agent, reusePrompt: 'yes' as unknown as boolean })).toThrow(
      expect.objectContaining({ code: 'invalid-option', message: expect.stringContaining('reusePrompt') }),
    );
  });
});
