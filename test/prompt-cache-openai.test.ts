/**
 * The prompt-cache model against a scripted OpenAI-compatible server that implements OpenAI's published
 * caching rule on the bodies it receives (test/support/openai-prefix-cache.ts): requests go through the
 * real `@ai-sdk/openai-compatible` provider, and the cached tokens the AI SDK reports (`cacheRead`) must
 * equal the model's read tokens call for call, as must the prompt token counts. A serialization that
 * counted another prefix than the body's (another order, other JSON, a dropped part) fails here.
 */
import type { LanguageModelV3FunctionTool, LanguageModelV3Message } from '@ai-sdk/provider';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Ledger, Runner, tool } from '../packages/pagewise/src/index.js';
import { promptCacheRulesFor } from '../packages/pagewise/src/tokens/cache-rules.js';
import { PromptCache } from '../packages/pagewise/src/tokens/prompt-cache.js';
import { promptSegments } from '../packages/pagewise/src/tokens/prompt-segments.js';
import { MODEL_ENV } from '../packages/pagewise/src/models/resolve.js';
import { seededRandom } from '../packages/pagewise/src/util/random.js';
import { startFakeOpenAI, type FakeOpenAI } from './security/openai-server.js';
import { ServerPrefixCache, cachingAnswer } from './support/openai-prefix-cache.js';

const OPENAI = promptCacheRulesFor('openai', 'gpt-4.1')!;

let server: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
});

const WORDS = [
  'order',
  'refund',
  'the',
  'customer',
  'shipped',
  'on',
  'Tuesday',
  'item',
  '42',
  'warehouse',
  '{"a": 1}',
  'é',
];

function prose(random: () => number, words: number): string {
  const out: string[] = [];
  for (let index = 0; index < words; index += 1) {
    out.push(WORDS[Math.floor(random() * WORDS.length)]!);
    if (random() < 0.08) out.push('\n');
  }
  return out.join(' ');
}

const TOOLS: LanguageModelV3FunctionTool[] = [
  {
    type: 'function',
    name: 'lookup',
    description: 'Looks an order up by id.',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string' }, full: { type: 'boolean' } },
      required: ['id'],
    },
  },
];

describe('the OpenAI prompt-cache model against a server that applies the published rule', () => {
  it('agrees with the cached tokens the AI SDK reports, call for call, as prefixes change at random places', async () => {
    const provider = createOpenAICompatible({ name: 'local', baseURL: server.baseURL });
    const model = provider.chatModel('test-model');
    const random = seededRandom(11);
    let agreed = 0;
    let cachedCalls = 0;
    for (let session = 0; session < 4; session += 1) {
      const serverCache = new ServerPrefixCache();
      const cache = new PromptCache(OPENAI);
      // The same requests through the message-level path the runner takes: it must agree with the segments.
      const byMessage = new PromptCache(OPENAI);
      let system = prose(random, 900 + Math.floor(random() * 600));
      const history: LanguageModelV3Message[] = [
        { role: 'user', content: [{ type: 'text', text: prose(random, 40) }] },
      ];
      for (let step = 0; step < 8; step += 1) {
        const roll = random();
        if (roll < 0.25) {
          // A change inside the system text, at a random position.
          const at = Math.floor(random() * system.length);
          system = `${system.slice(0, at)} changed${step} ${system.slice(at)}`;
        } else if (roll < 0.35 && history.length > 2) {
          // A rewrite of an earlier turn, as a compressor would make.
          history[1] = { role: 'assistant', content: [{ type: 'text', text: prose(random, 30) }] };
        }
        const prompt: LanguageModelV3Message[] = [{ role: 'system', content: system }, ...history];
        const now = Date.now();
        const modelled = cache.observe(`s${session}`, promptSegments(prompt, TOOLS), now);
        expect(byMessage.observePrompt(`s${session}`, prompt, TOOLS, now)).toEqual(modelled);
        server.enqueue(cachingAnswer(serverCache, { text: 'ok' }));
        const result = await model.doGenerate({ prompt, tools: TOOLS });
        expect(result.usage.inputTokens.total).toBe(modelled.promptTokens);
        expect(result.usage.inputTokens.cacheRead).toBe(modelled.readTokens);
        agreed += 1;
        if (modelled.readTokens > 0) cachedCalls += 1;
        const callId = `call_${session}_${step}`;
        history.push(
          {
            role: 'assistant',
            content: [
              { type: 'text', text: prose(random, 12) },
              {
                type: 'tool-call',
                toolCallId: callId,
                toolName: 'lookup',
                input: { id: `o${step}`, full: step % 2 === 0 },
              },
            ],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: callId,
                toolName: 'lookup',
                output: { type: 'text', value: prose(random, 80 + Math.floor(random() * 200)) },
              },
            ],
          },
        );
        if (random() < 0.3)
          history.push({
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: `${callId}b`,
                toolName: 'lookup',
                output: { type: 'json', value: { status: 'shipped', step } },
              },
            ],
          });
      }
    }
    expect(agreed).toBe(32);
    // The sessions exercised both hits and misses.
    expect(cachedCalls).toBeGreaterThan(8);
    expect(cachedCalls).toBeLessThan(32);
  });

  it('records the modelled and the reported figures side by side in the ledger of a run, and they agree', async () => {
    const random = seededRandom(5);
    const manual = prose(random, 1500);
    const serverCache = new ServerPrefixCache();
    const lookup = tool({
      name: 'lookup',
      description: 'Looks an order up.',
      inputSchema: z.object({ id: z.string() }),
      execute: ({ id }) => `order ${id}: ${prose(random, 150)}`,
    });
    const ledger = new Ledger();
    let step = 0;
    const runner = new Runner({
      // The step counter in the instruction changes the prefix at every call past the static manual.
      agent: new Agent({ name: 'a', instruction: () => `${manual}\n\nStep ${(step += 1)}.`, tools: [lookup] }),
      model: 'openai-compatible:test-model',
      modelOptions: { env: { [MODEL_ENV.compatibleBaseUrl]: server.baseURL } },
      promptCache: OPENAI,
      ledger,
    });
    for (let call = 0; call < 4; call += 1)
      server.enqueue(cachingAnswer(serverCache, { toolCalls: [{ name: 'lookup', arguments: { id: `o${call}` } }] }));
    server.enqueue(cachingAnswer(serverCache, { text: 'done' }));
    const result = await runner.run({ userId: 'u', sessionId: 's', message: 'Check the orders.' });
    expect(result.text).toBe('done');
    const entries = ledger.entries.filter((entry) => entry.kind === 'agent');
    expect(entries).toHaveLength(5);
    for (const entry of entries) {
      expect(entry.cache?.reported?.readTokens).toBe(entry.cache?.modelled.readTokens);
      expect(entry.providerPromptTokens).toBe(entry.cache?.modelled.promptTokens);
    }
    expect(entries.slice(1).every((entry) => entry.cache!.modelled.readTokens >= 1024)).toBe(true);
    const summary = ledger.summary();
    expect(summary.cacheHitRate).toBeGreaterThan(0);
    expect(summary.cacheReadTokens).toBe(entries.reduce((sum, entry) => sum + entry.cache!.modelled.readTokens, 0));
  });
});
