import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import type { CompressionInput, CompressorBackend } from './backend.js';
import { compressionMiddleware } from './middleware.js';
import { handleOf, unfenceQuoted } from './transcript.js';

/** A backend that records what it is asked to compress and answers with the head of it. */
function recordingBackend(): CompressorBackend & { inputs: CompressionInput[] } {
  const inputs: CompressionInput[] = [];
  return {
    name: 'recording',
    inputs,
    compress: async (input) => {
      inputs.push(input);
      return `kept ${input.observation.slice(0, 40)}`;
    },
  };
}

const largeText = (label: string): string =>
  `${label}: ${'a line item with a long description and a price. '.repeat(40)}`;

/**
 * A conversation as the AI SDK keeps it, one object per message and the same output object from step to
 * step, sent as the AI SDK sends it: new message and part objects at every call around those values.
 */
class Conversation {
  readonly messages: LanguageModelV3Message[] = [
    { role: 'system', content: 'You look orders up.' },
    { role: 'user', content: [{ type: 'text', text: 'Find the pending orders.' }] },
  ];

  /** Appends a call of `get_order` and its result. */
  step(callId: string, output: LanguageModelV3ToolResultOutput): this {
    this.messages.push(
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: callId, toolName: 'get_order', input: {} }] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: callId, toolName: 'get_order', output }],
      },
    );
    return this;
  }

  /** The prompt of a call: the messages rebuilt, as each step of the AI SDK rebuilds them. */
  prompt(): LanguageModelV3Prompt {
    return this.messages.map((message) =>
      message.role === 'system'
        ? { ...message }
        : ({ ...message, content: message.content.map((part) => ({ ...part })) } as LanguageModelV3Message),
    );
  }
}

const paramsOf = (prompt: LanguageModelV3Prompt): LanguageModelV3CallOptions => ({
  prompt,
  tools: [{ type: 'function', name: 'page_in', inputSchema: { type: 'object' } }],
});

function middlewareWith(backend: CompressorBackend) {
  const middleware = compressionMiddleware({
    compressor: backend,
    observation: { thresholdTokens: 50 },
    history: false,
  });
  const transform = async (prompt: LanguageModelV3Prompt) =>
    (await middleware.transformParams!({ type: 'generate', params: paramsOf(prompt), model: undefined as never }))
      .prompt;
  return { middleware, transform };
}

/** The output each tool result of a prompt is shown as, by call id. */
function shownOutputs(prompt: LanguageModelV3Prompt): Map<string, LanguageModelV3ToolResultOutput> {
  const outputs = new Map<string, LanguageModelV3ToolResultOutput>();
  for (const message of prompt)
    if (message.role === 'tool')
      for (const part of message.content) if (part.type === 'tool-result') outputs.set(part.toolCallId, part.output);
  return outputs;
}

/** The result of call `id` in `message`, if it holds it. */
function resultIn(
  message: LanguageModelV3Message,
  id: string,
): { output: LanguageModelV3ToolResultOutput } | undefined {
  if (message.role !== 'tool') return undefined;
  for (const part of message.content) if (part.type === 'tool-result' && part.toolCallId === id) return part;
  return undefined;
}

const textOf = (output: LanguageModelV3ToolResultOutput | undefined): string =>
  output?.type === 'text' || output?.type === 'error-text' ? output.value : '';

describe('compressionMiddleware reuses what it showed only for messages that did not change', () => {
  it('reads an earlier result again when the conversation comes back with it edited', async () => {
    const backend = recordingBackend();
    const { middleware, transform } = middlewareWith(backend);
    const conversation = new Conversation();
    for (const id of ['c1', 'c2', 'c3']) {
      conversation.step(id, { type: 'text', value: largeText(`order ${id}`) });
      await transform(conversation.prompt());
    }
    const before = shownOutputs(await transform(conversation.prompt()));
    const compressedCalls = backend.inputs.length;

    // The result of c2 comes back as another text (an application that re-ran the tool), in a new message.
    const at = conversation.messages.findIndex((message) => resultIn(message, 'c2') !== undefined);
    const edited = largeText('order c2, refunded');
    conversation.messages[at] = {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c2', toolName: 'get_order', output: { type: 'text', value: edited } },
      ],
    };
    const after = shownOutputs(await transform(conversation.prompt()));

    expect(backend.inputs.map((input) => input.observation).slice(compressedCalls)).toEqual([edited]);
    expect(unfenceQuoted(textOf(after.get('c2')))).toBe(`kept ${edited.slice(0, 40)}`);
    expect(await middleware.restore(handleOf(textOf(after.get('c2'))) ?? '')).toBe(edited);
    // The results before and after the edit are shown as before, as the same objects.
    expect(after.get('c1')).toBe(before.get('c1'));
    expect(after.get('c3')).toBe(before.get('c3'));
  });

  it('reads a result again when its output object was changed in place', async () => {
    const backend = recordingBackend();
    const { transform } = middlewareWith(backend);
    const conversation = new Conversation();
    const output = { type: 'text' as const, value: largeText('order c1') };
    conversation.step('c1', output).step('c2', { type: 'text', value: 'order c2: delivered' });
    const before = shownOutputs(await transform(conversation.prompt()));
    await transform(conversation.prompt());
    expect(backend.inputs).toHaveLength(1);

    output.value = largeText('order c1, cancelled');
    const after = shownOutputs(await transform(conversation.prompt()));

    expect(backend.inputs.map((input) => input.observation)).toEqual([largeText('order c1'), output.value]);
    expect(after.get('c1')).not.toEqual(before.get('c1'));
    expect(unfenceQuoted(textOf(after.get('c1')))).toBe(`kept ${output.value.slice(0, 40)}`);
  });

  it('shows a prompt that leaves the last one after a shared start with its own results, not the last call’s', async () => {
    const backend = recordingBackend();
    const { transform } = middlewareWith(backend);
    const c1: LanguageModelV3ToolResultOutput = { type: 'text', value: largeText('order c1') };
    const first = new Conversation().step('c1', c1).step('c2', { type: 'text', value: largeText('order c2') });
    const shownFirst = shownOutputs(await transform(first.prompt()));
    // Another continuation of the same start (a regenerated step): c1 as before, then c3 where c2 was.
    const other = new Conversation().step('c1', c1).step('c3', { type: 'text', value: 'order c3: delivered' });
    const shownOther = shownOutputs(await transform(other.prompt()));

    expect([...shownOther.keys()]).toEqual(['c1', 'c3']);
    expect(shownOther.get('c1')).toBe(shownFirst.get('c1'));
    expect(shownOther.get('c3')).toEqual({ type: 'text', value: 'order c3: delivered' });
    // Shorter, then the first again: each shows what it holds.
    const shorter = shownOutputs(await transform(other.prompt().slice(0, 4)));
    expect([...shorter.keys()]).toEqual(['c1']);
    const again = shownOutputs(await transform(first.prompt()));
    expect(again.get('c2')).toBe(shownFirst.get('c2'));
    expect(backend.inputs.map((input) => input.observation)).toEqual([largeText('order c1'), largeText('order c2')]);
  });

  it('gives the compressor the edited task when the user message it came from was edited', async () => {
    const backend = recordingBackend();
    const { transform } = middlewareWith(backend);
    const conversation = new Conversation().step('c1', { type: 'text', value: 'order c1: delivered' });
    await transform(conversation.prompt());
    conversation.messages[1] = { role: 'user', content: [{ type: 'text', text: 'Find the refunded orders.' }] };
    conversation.step('c2', { type: 'text', value: largeText('order c2') });
    await transform(conversation.prompt());
    conversation.step('c3', { type: 'text', value: largeText('order c3') });
    await transform(conversation.prompt());

    expect(backend.inputs.map((input) => input.task)).toEqual([
      'Find the refunded orders.',
      'Find the refunded orders.',
    ]);
  });

  it('keeps a history summary over an edit after it, and summarizes again when a message it covers was edited', async () => {
    const run = async (edit: (messages: LanguageModelV3Message[]) => void) => {
      const backend = recordingBackend();
      const middleware = compressionMiddleware({
        compressor: backend,
        observation: false,
        history: { thresholdTokens: 200 },
      });
      const transform = (prompt: LanguageModelV3Prompt) =>
        middleware.transformParams!({ type: 'generate', params: paramsOf(prompt), model: undefined as never });
      const conversation = new Conversation();
      for (const id of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'])
        conversation.step(id, { type: 'text', value: `order ${id}: ${'delivered to the depot on time. '.repeat(8)}` });
      await transform(conversation.prompt());
      const summaries = backend.inputs.filter((input) => input.target === 'history').length;
      edit(conversation.messages);
      const shown = (await transform(conversation.prompt())).prompt;
      const again = backend.inputs.filter((input) => input.target === 'history').slice(summaries);
      return { summaries, again, shown: JSON.stringify(shown) };
    };
    // The last result, after the summarized turns: the summary stands as it was.
    const after = await run((messages) => {
      messages[messages.length - 1] = {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c6',
            toolName: 'get_order',
            output: { type: 'text', value: 'order c6: lost' },
          },
        ],
      };
    });
    expect(after.summaries).toBe(1);
    expect(after.again).toEqual([]);
    expect(after.shown).toContain('order c6: lost');
    // The first call the summary covers, asked with other arguments: the summary no longer stands for it.
    const inside = await run((messages) => {
      messages[2] = {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'get_order', input: { order: 'W-edited' } }],
      };
    });
    expect(inside.summaries).toBe(1);
    expect(inside.again).toHaveLength(1);
    expect(JSON.stringify(inside.again[0]!.turns)).toContain('W-edited');
  });

  it('finds the task again when the user message it came from is gone from the prompt', async () => {
    const backend = recordingBackend();
    const { transform } = middlewareWith(backend);
    const conversation = new Conversation().step('c1', { type: 'text', value: 'order c1: delivered' });
    const start = conversation.messages.length;
    conversation.messages.push({ role: 'user', content: [{ type: 'text', text: 'And the cancelled ones?' }] });
    conversation.step('c2', { type: 'text', value: largeText('order c2') });
    await transform(conversation.prompt());
    // The follow-up turn taken back: the conversation goes on from the first turn instead.
    conversation.messages.splice(start);
    conversation.step('c3', { type: 'text', value: largeText('order c3') });
    await transform(conversation.prompt());

    expect(backend.inputs.map((input) => input.task)).toEqual(['And the cancelled ones?', 'Find the pending orders.']);
  });

  it('shows each compressed or fenced result as the same output object at every step', async () => {
    const backend = recordingBackend();
    const { transform } = middlewareWith(backend);
    const conversation = new Conversation();
    const seen = new Map<string, LanguageModelV3ToolResultOutput>();
    let checked = 0;
    for (let step = 0; step < 6; step++) {
      // A large result (compressed), an error holding a fence marker (fenced as it is), a small one (as it is).
      const output: LanguageModelV3ToolResultOutput =
        step % 3 === 0
          ? { type: 'text', value: largeText(`order ${step}`) }
          : step % 3 === 1
            ? { type: 'error-text', value: `lookup failed\n<<<END 123456789>>>\nstep ${step}` }
            : { type: 'text', value: `order ${step}: delivered` };
      conversation.step(`c${step}`, output);
      for (const [id, shown] of shownOutputs(await transform(conversation.prompt()))) {
        const raw = conversation.messages.map((message) => resultIn(message, id)).find(Boolean);
        if (shown === raw?.output) continue;
        const first = seen.get(id);
        if (first === undefined) seen.set(id, shown);
        else {
          expect(shown).toBe(first);
          checked += 1;
        }
      }
    }
    expect([...seen.keys()].sort()).toEqual(['c0', 'c1', 'c3', 'c4']);
    expect(checked).toBeGreaterThan(8);
    expect(textOf(seen.get('c1'))).toContain('lookup failed');
  });
});
