import { describe, expect, it } from 'vitest';
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
      calls.forEach((call, i) => {
        const parts = emptyParts();
        for (const s of serializeRequest(call.request)) parts[s.part] += countTokens(s.text);
        expect(call.entry.parts).toEqual(parts);
        expect(model.calls[i]!.prompt).toEqual(renderPrompt(call.request).prompt);
      });
      // The last invocation's requests carry the history of the earlier ones.
      expect(model.calls[8]!.prompt.length).toBeGreaterThan(model.calls[2]!.prompt.length);
      // A prompt handed to the model stays as it was sent.
      expect(model.calls[0]!.prompt).toEqual(renderPrompt(calls[0]!.request).prompt);
    });
  }
});
