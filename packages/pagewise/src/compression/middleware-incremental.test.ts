import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { describe, expect, it, vi } from 'vitest';
import { STEP_BLOCK_MARK, isStepBlock } from '../models/step-block.js';
import { PagingService } from '../paging/service.js';
import type * as Tokenizer from '../tokens/tokenizer.js';
import { compressionMiddleware } from './middleware.js';

// The real tokenizer, with its calls counted: the middleware's work per call is measured by what it counts.
const counted = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../tokens/tokenizer.js', async (importOriginal) => {
  const real = await importOriginal<typeof Tokenizer>();
  return {
    ...real,
    countTokens: (...args: Parameters<typeof real.countTokens>) => {
      counted.calls += 1;
      return real.countTokens(...args);
    },
  };
});

const largeResult = (order: number): string =>
  `order ${order}: status pending; ${'line item with a long description and a price. '.repeat(40)}`;

/**
 * A tool loop's prompt after `pairs` calls, built anew (new objects, new strings) as the AI SDK builds it at
 * every step; every tenth result is large enough to be compressed.
 */
function loopPrompt(pairs: number, stepBlock = false): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [
    { role: 'system', content: 'You record orders.' },
    { role: 'user', content: [{ type: 'text', text: 'Record every order.' }] },
  ];
  for (let pair = 0; pair < pairs; pair++) {
    prompt.push({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: `c${pair}`, toolName: 'get_order', input: { id: pair } }],
    });
    const value = pair % 10 === 9 ? largeResult(pair) : `order ${pair}: ${'delivered '.repeat(10)}`;
    prompt.push({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: `c${pair}`, toolName: 'get_order', output: { type: 'text', value } },
      ],
    });
  }
  // The step block of a paged agent: the instruction's per-step part, different at every call, after the history.
  if (stepBlock)
    prompt.push({
      role: 'user',
      content: [{ type: 'text', text: `Reading plan: ${pairs} orders recorded.` }],
      providerOptions: STEP_BLOCK_MARK,
    });
  return prompt;
}

const paramsOf = (prompt: LanguageModelV3Prompt): LanguageModelV3CallOptions => ({
  prompt,
  tools: [{ type: 'function', name: 'page_in', inputSchema: { type: 'object' } }],
});

/** A paging service whose page store counts its reads and writes (the real in-memory store underneath). */
function countingService(): { service: PagingService; storeCalls: () => number } {
  const service = new PagingService();
  let calls = 0;
  const store = service.pageStore as unknown as Record<string, unknown>;
  for (const name of ['get', 'info', 'list', 'put']) {
    const real = store[name] as (...args: unknown[]) => unknown;
    store[name] = (...args: unknown[]) => {
      calls += 1;
      return real.apply(service.pageStore, args);
    };
  }
  return { service, storeCalls: () => calls };
}

/**
 * The calls of a tool loop over a history of `pairs` pairs: the tokenizer calls of a later step whose new
 * result is small, and the page store calls of one whose new results include a large one, with the
 * prompts the middleware sent at two successive steps.
 */
async function laterCalls(pairs: number, stepBlock = false) {
  const { service, storeCalls } = countingService();
  const middleware = compressionMiddleware({ service });
  const transform = async (prompt: LanguageModelV3Prompt) =>
    (await middleware.transformParams!({ type: 'generate', params: paramsOf(prompt), model: undefined as never }))
      .prompt;
  await transform(loopPrompt(pairs, stepBlock));
  // The step after the first folds the summary the first wrote into its counts, once.
  const first = await transform(loopPrompt(pairs + 1, stepBlock));
  const tokensBefore = counted.calls;
  const second = await transform(loopPrompt(pairs + 2, stepBlock));
  const tokenizerCalls = counted.calls - tokensBefore;
  const storeBefore = storeCalls();
  await transform(loopPrompt(pairs + 10, stepBlock));
  return { tokenizerCalls, storeCalls: storeCalls() - storeBefore, first, second };
}

describe('compressionMiddleware works per call on what is new', () => {
  it('counts tokens and reads the page store for the new result only, however long the history', async () => {
    // 40 pairs stay under T_hist; 400 are over it, so the first call folds the history into a summary.
    const short = await laterCalls(40);
    const long = await laterCalls(400);
    expect(short.tokenizerCalls).toBeGreaterThan(0);
    expect(long.tokenizerCalls).toBe(short.tokenizerCalls);
    expect(short.tokenizerCalls).toBeLessThan(10);
    expect(short.storeCalls).toBeGreaterThan(0);
    expect(long.storeCalls).toBe(short.storeCalls);
  });

  it('shows a result compressed at an earlier call as the same output object, byte for byte', async () => {
    const { first, second } = await laterCalls(40);
    const outputs = (prompt: LanguageModelV3Prompt) =>
      prompt.flatMap((m) => (m.role === 'tool' ? m.content.flatMap((p) => (p.type === 'tool-result' ? [p] : [])) : []));
    const before = outputs(first);
    const after = outputs(second);
    expect(after).toHaveLength(before.length + 1);
    const compressed = before.filter((p) => p.output.type === 'text' && p.output.value.includes('tool://'));
    expect(compressed.length).toBe(4);
    for (const part of compressed) {
      const again = after.find((p) => p.toolCallId === part.toolCallId);
      expect(again?.output).toBe(part.output);
    }
    expect(after.slice(0, before.length)).toEqual(before);
  });

  it('does the same behind a step block that changes at every call, and keeps the block last', async () => {
    const short = await laterCalls(40, true);
    const long = await laterCalls(400, true);
    expect(long.tokenizerCalls).toBe(short.tokenizerCalls);
    expect(short.tokenizerCalls).toBeLessThan(10);
    for (const prompt of [short.second, long.second]) {
      expect(isStepBlock(prompt.at(-1)!)).toBe(true);
      expect(prompt.filter((message) => isStepBlock(message))).toHaveLength(1);
    }
  });
});
