import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { generateText, simulateReadableStream, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { STEP_BLOCK_HEADER } from '../context/request.js';
import { scriptedModel } from '../models/scripted.js';
import { isStepBlock, STEP_BLOCK_MARK } from '../models/step-block.js';
import { countTokens } from '../tokens/tokenizer.js';
import type { CompressionInput, CompressorBackend } from './backend.js';
import { compressionMiddleware } from './middleware.js';
import { handleOf, unfenceQuoted } from './transcript.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function callStep(id: string, orderId: number): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'tool-call', toolCallId: id, toolName: 'get_order', input: JSON.stringify({ id: orderId }) }],
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage,
    warnings: [],
  };
}
const textStep = (text: string): LanguageModelV3GenerateResult => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: undefined },
  usage,
  warnings: [],
});

const rawOrder = (id: number): string =>
  `order ${id}: status pending; ${'line item with a long description and a price. '.repeat(30)}`;

const getOrder = tool({
  description: 'Returns an order.',
  inputSchema: z.object({ id: z.number() }),
  execute: async ({ id }) => rawOrder(id),
});

function recordingBackend(
  answer: (input: CompressionInput) => string,
): CompressorBackend & { inputs: CompressionInput[] } {
  const inputs: CompressionInput[] = [];
  return {
    name: 'recording',
    inputs,
    compress: async (input) => {
      inputs.push(input);
      return answer(input);
    },
  };
}

function toolOutputs(prompt: LanguageModelV3Prompt): string[] {
  return prompt.flatMap((message) =>
    message.role === 'tool'
      ? message.content.flatMap((p) => (p.type === 'tool-result' && p.output.type === 'text' ? [p.output.value] : []))
      : [],
  );
}

/** Every tool result follows the assistant message that made its call. */
function pairsIntact(prompt: LanguageModelV3Prompt): boolean {
  const open = new Set<string>();
  for (const message of prompt) {
    if (message.role === 'assistant')
      for (const part of message.content) if (part.type === 'tool-call') open.add(part.toolCallId);
    if (message.role === 'tool')
      for (const part of message.content)
        if (part.type === 'tool-result' && !open.delete(part.toolCallId)) return false;
  }
  return open.size === 0;
}

describe('compressionMiddleware in generateText', () => {
  it('compresses tool results above T_obs once, keeps the raw text behind the handle, and leaves small ones alone', async () => {
    const backend = recordingBackend((input) => `compressed ${input.observation.slice(0, 15)}`);
    const middleware = compressionMiddleware({
      compressor: backend,
      observation: { thresholdTokens: 200 },
      history: false,
    });
    const mock = new MockLanguageModelV3({ doGenerate: [callStep('c1', 1), callStep('c2', 2), textStep('done')] });
    const small = tool({
      description: 'Returns an order.',
      inputSchema: z.object({ id: z.number() }),
      execute: async ({ id }) => (id === 1 ? rawOrder(1) : 'order 2: delivered'),
    });
    const result = await generateText({
      model: wrapLanguageModel({ model: mock, middleware }),
      tools: { get_order: small, ...middleware.tools },
      prompt: 'Which orders are pending?',
      stopWhen: stepCountIs(5),
    });

    expect(result.text).toBe('done');
    expect(countTokens(rawOrder(1))).toBeGreaterThan(200);
    const [second, third] = [mock.doGenerateCalls[1]?.prompt ?? [], mock.doGenerateCalls[2]?.prompt ?? []];
    const compressed = toolOutputs(second)[0] ?? '';
    expect(unfenceQuoted(compressed)).toBe('compressed order 1: status');
    expect(toolOutputs(third)).toEqual([compressed, 'order 2: delivered']);
    // One compressor call, though the AI SDK sent the raw result twice.
    expect(backend.inputs).toHaveLength(1);
    expect(backend.inputs[0]?.task).toBe('Which orders are pending?');
    const handle = handleOf(compressed);
    expect(handle).toBe('tool://get_order/c1');
    expect(await middleware.restore(handle ?? '')).toBe(rawOrder(1));
  });

  it('leaves a result it compressed as it is when the conversation comes back with it (invariant 17)', async () => {
    const backend = recordingBackend((input) => `kept ${input.observation.slice(0, 300)}`);
    const middleware = compressionMiddleware({
      compressor: backend,
      observation: { thresholdTokens: 50 },
      history: false,
    });
    const mock = new MockLanguageModelV3({ doGenerate: [callStep('c1', 1), textStep('first'), textStep('second')] });
    const first = await generateText({
      model: wrapLanguageModel({ model: mock, middleware }),
      tools: { get_order: getOrder, ...middleware.tools },
      prompt: 'Is order 1 pending?',
      stopWhen: stepCountIs(5),
    });
    const compressed = toolOutputs(mock.doGenerateCalls[1]?.prompt ?? [])[0] ?? '';
    expect(countTokens(compressed)).toBeGreaterThan(50);
    // An application that stores what the model saw sends the compressed result back in the next request.
    const seen = first.response.messages.map((message) =>
      message.role !== 'tool'
        ? message
        : {
            ...message,
            content: message.content.map((part) =>
              part.type === 'tool-result' ? { ...part, output: { type: 'text' as const, value: compressed } } : part,
            ),
          },
    );
    await generateText({
      model: wrapLanguageModel({ model: mock, middleware }),
      tools: { get_order: getOrder, ...middleware.tools },
      messages: [{ role: 'user', content: 'Is order 1 pending?' }, ...seen, { role: 'user', content: 'And now?' }],
    });
    expect(toolOutputs(mock.doGenerateCalls[2]?.prompt ?? [])).toEqual([compressed]);
    expect(backend.inputs).toHaveLength(1);
    expect(await middleware.restore(handleOf(compressed) ?? '')).toBe(rawOrder(1));
  });

  it('issue 28.6: the model can follow a handle with the page_in it is given, and a call without page_in gets no handle', async () => {
    const backend = recordingBackend((input) => `compressed ${input.observation.slice(0, 15)}`);
    const middleware = compressionMiddleware({
      compressor: backend,
      observation: { thresholdTokens: 200 },
      history: false,
    });
    const pageInStep = (uri: string): LanguageModelV3GenerateResult => ({
      content: [{ type: 'tool-call', toolCallId: 'p1', toolName: 'page_in', input: JSON.stringify({ uris: [uri] }) }],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage,
      warnings: [],
    });
    const mock = new MockLanguageModelV3({
      doGenerate: [callStep('c1', 1), pageInStep('tool://get_order/c1'), textStep('done')],
    });
    await generateText({
      model: wrapLanguageModel({ model: mock, middleware }),
      tools: { get_order: getOrder, ...middleware.tools },
      prompt: 'Which orders are pending?',
      stopWhen: stepCountIs(5),
    });
    const second = mock.doGenerateCalls[1]?.prompt ?? [];
    expect(handleOf(toolOutputs(second)[0] ?? '')).toBe('tool://get_order/c1');
    // The page_in result reaches the model with the raw text, byte for byte (fenced, as it is long).
    const third = toolOutputs(mock.doGenerateCalls[2]?.prompt ?? []);
    const paged = third[1] ?? '';
    expect(unfenceQuoted(paged)).toBe(`tool://get_order/c1:\n${rawOrder(1)}`);
    // A handle nobody wrote is refused in words, not thrown.
    const unknown = await middleware.tools.page_in.execute?.(
      { uris: ['tool://nope/x'] },
      { toolCallId: 'x', messages: [] },
    );
    expect(String(unknown)).toContain('no such result');

    // The same result in a call that offers no page_in: compressed, but no pointer to a missing tool.
    const bare = compressionMiddleware({ compressor: backend, observation: { thresholdTokens: 200 }, history: false });
    const mock2 = new MockLanguageModelV3({ doGenerate: [callStep('c1', 1), textStep('done')] });
    await generateText({
      model: wrapLanguageModel({ model: mock2, middleware: bare }),
      tools: { get_order: getOrder },
      prompt: 'Which orders are pending?',
      stopWhen: stepCountIs(5),
    });
    const out = toolOutputs(mock2.doGenerateCalls[1]?.prompt ?? [])[0] ?? '';
    expect(unfenceQuoted(out)).toBe('compressed order 1: status');
    expect(out).not.toContain('page_in');
    expect(handleOf(out)).toBeUndefined();
    expect(out).toMatch(/Compressed from \d+ tokens; the full result is not available/u);
    // It is still kept: the application can restore it.
    expect(await bare.restore('tool://get_order/c1')).toBe(rawOrder(1));
  });

  it('caps a page_in result at maxPageInTokens and says so', async () => {
    const backend = recordingBackend((input) => `compressed ${input.observation.slice(0, 15)}`);
    const middleware = compressionMiddleware({
      compressor: backend,
      observation: { thresholdTokens: 200 },
      history: false,
      maxPageInTokens: 50,
    });
    const mock = new MockLanguageModelV3({ doGenerate: [callStep('c1', 1), textStep('done')] });
    await generateText({
      model: wrapLanguageModel({ model: mock, middleware }),
      tools: { get_order: getOrder, ...middleware.tools },
      prompt: 'Which orders are pending?',
      stopWhen: stepCountIs(5),
    });
    const out = String(
      await middleware.tools.page_in.execute?.({ uris: ['tool://get_order/c1'] }, { toolCallId: 'x', messages: [] }),
    );
    expect(out).toContain('over maxPageInTokens');
    const body = out.slice(out.indexOf('\n') + 1);
    expect(countTokens(body)).toBeLessThanOrEqual(50);
    expect(rawOrder(1).startsWith(body)).toBe(true);
    expect(() => compressionMiddleware({ maxPageInTokens: 0 })).toThrow(/maxPageInTokens/u);
  });

  it('summarizes a history above T_hist, keeps the task and the last turn, folds new turns into the summary', async () => {
    const backend = recordingBackend(
      (input) => `summary of ${input.turns.length} new turns after [${input.previousSummary}]`,
    );
    const middleware = compressionMiddleware({
      compressor: backend,
      observation: false,
      history: { thresholdTokens: 800, keepLastTurns: 1 },
    });
    const steps = [1, 2, 3, 4, 5, 6].map((n) => callStep(`c${n}`, n));
    const mock = new MockLanguageModelV3({ doGenerate: [...steps, textStep('done')] });
    await generateText({
      model: wrapLanguageModel({ model: mock, middleware }),
      system: 'You look up orders.',
      tools: { get_order: getOrder },
      prompt: 'Which orders are pending?',
      stopWhen: stepCountIs(10),
    });
    const calls: LanguageModelV3CallOptions[] = mock.doGenerateCalls;
    expect(calls).toHaveLength(7);
    for (const call of calls) {
      expect(pairsIntact(call.prompt)).toBe(true);
      expect(call.prompt[0]).toEqual({ role: 'system', content: 'You look up orders.' });
      expect(call.prompt[1]?.role === 'user' && call.prompt[1].content[0]).toMatchObject({
        type: 'text',
        text: 'Which orders are pending?',
      });
    }
    const last = calls[6]?.prompt ?? [];
    // system, task, the summary, then whole turns since it, ending with step 6 and its raw result.
    expect(last.slice(0, 3).map((m) => m.role)).toEqual(['system', 'user', 'user']);
    expect(
      last
        .slice(3)
        .map((m) => m.role)
        .join(' '),
    ).toMatch(/^(?:assistant tool ?)+$/u);
    expect(toolOutputs(last).at(-1)).toBe(rawOrder(6));
    expect(toolOutputs(last).length).toBeLessThan(6);
    expect(backend.inputs.length).toBeGreaterThanOrEqual(2);
    // Accumulate: later compressions get the previous summary and only the turns since.
    const later = backend.inputs.at(-1);
    expect(later?.previousSummary).toMatch(/^summary of \d new turns/u);
    expect(later?.turns.length).toBeLessThan(5);
    const summary = last[2]?.role === 'user' && last[2].content[0]?.type === 'text' ? last[2].content[0].text : '';
    expect(unfenceQuoted(summary)).toBe(
      `summary of ${later?.turns.length} new turns after [${later?.previousSummary}]`,
    );
  });

  it('leaves the step block out of the history it compresses, and last in the prompt', async () => {
    const backend = recordingBackend((input) => `summary of ${input.turns.length} turns`);
    const middleware = compressionMiddleware({
      compressor: backend,
      observation: false,
      history: { thresholdTokens: 800, keepLastTurns: 1 },
    });
    const block = `${STEP_BLOCK_HEADER}\n\nPlan: ${'orders still to check. '.repeat(200)}`;
    const steps = [1, 2, 3, 4].map((n) => callStep(`c${n}`, n));
    const mock = new MockLanguageModelV3({ doGenerate: [...steps, textStep('done')] });
    await generateText({
      model: wrapLanguageModel({ model: mock, middleware }),
      system: 'You look up orders.',
      tools: { get_order: getOrder },
      prompt: 'Which orders are pending?',
      stopWhen: stepCountIs(10),
      prepareStep: ({ messages }) => ({
        messages: [
          ...messages,
          { role: 'user', content: [{ type: 'text', text: block }], providerOptions: STEP_BLOCK_MARK },
        ],
      }),
    });
    expect(backend.inputs.length).toBeGreaterThanOrEqual(1);
    for (const input of backend.inputs) {
      expect(input.task).toBe('Which orders are pending?');
      expect(JSON.stringify(input.turns)).not.toContain('orders still to check');
    }
    for (const call of mock.doGenerateCalls) {
      const last = call.prompt.at(-1)!;
      expect(last.role === 'user' && last.content[0]?.type === 'text' && last.content[0].text).toBe(block);
      expect(call.prompt.filter(isStepBlock)).toHaveLength(1);
    }
  });

  it('records LLM compressor calls in its ledger', async () => {
    const compressor = scriptedModel(['order 1 pending']);
    const middleware = compressionMiddleware({ compressor, observation: { thresholdTokens: 100 }, history: false });
    const mock = new MockLanguageModelV3({ doGenerate: [callStep('c1', 1), textStep('done')] });
    await generateText({
      model: wrapLanguageModel({ model: mock, middleware }),
      tools: { get_order: getOrder },
      prompt: 'Is order 1 pending?',
      stopWhen: stepCountIs(3),
    });
    expect(middleware.ledger.entries.map((e) => [e.kind, e.agent])).toEqual([
      ['compressor', 'ai-sdk:observation-compressor'],
    ]);
    compressor.assertComplete();
  });
});

describe('compressionMiddleware in streamText', () => {
  it('compresses the tool results of a streamed tool loop too', async () => {
    const backend = recordingBackend(() => 'order 1: pending');
    const middleware = compressionMiddleware({
      compressor: backend,
      observation: { thresholdTokens: 100 },
      history: false,
    });
    const finish = (unified: 'tool-calls' | 'stop'): LanguageModelV3StreamPart => ({
      type: 'finish',
      finishReason: { unified, raw: undefined },
      usage,
    });
    const mock = new MockLanguageModelV3({
      doStream: [
        {
          stream: simulateReadableStream<LanguageModelV3StreamPart>({
            chunks: [
              { type: 'tool-call', toolCallId: 'c1', toolName: 'get_order', input: '{"id":1}' },
              finish('tool-calls'),
            ],
          }),
        },
        {
          stream: simulateReadableStream<LanguageModelV3StreamPart>({
            chunks: [
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'done' },
              { type: 'text-end', id: 't' },
              finish('stop'),
            ],
          }),
        },
      ],
    });
    const result = streamText({
      model: wrapLanguageModel({ model: mock, middleware }),
      tools: { get_order: getOrder },
      prompt: 'Is order 1 pending?',
      stopWhen: stepCountIs(3),
    });
    expect(await result.text).toBe('done');
    expect(unfenceQuoted(toolOutputs(mock.doStreamCalls[1]?.prompt ?? [])[0] ?? '')).toBe('order 1: pending');
  });
});
