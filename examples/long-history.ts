/**
 * A session with a long history (20,000 events), one invocation of 20 tool steps, run twice: as a runner
 * does by default for a model object of its own kind (a new prompt array handed to the model at every step) and with
 * `reusePrompt: true` (one array for every step, changed in place; the default for models the runner
 * makes from a `provider:model` spec and for AI SDK provider objects such as `openai('gpt-4.1')`). The model here keeps nothing of the prompts it is handed, as
 * the AI SDK's providers do; that is what makes the option safe. No API key, no network.
 * Run: npx tsx examples/long-history.ts
 */
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { z } from 'zod';
import { Agent, InMemorySessionStore, Runner, tool, type SessionEvent } from 'pagewise';

const EVENTS = 20_000;
const STEPS = 20;

/**
 * Per invocation, calls `record` STEPS times, then answers. Keeps none of the prompts it is handed: it
 * reads each one's length, and notes when each call starts and ends, so the time the framework takes
 * between two calls (a step, as the caller waits for it) can be measured from outside.
 */
function recorder(): LanguageModelV3 & { promptLengths: number[]; gaps: number[] } {
  let call = 0;
  let lastEnd: number | undefined;
  const promptLengths: number[] = [];
  const gaps: number[] = [];
  const usage = {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
  return {
    specificationVersion: 'v3',
    provider: 'example',
    modelId: 'recorder',
    supportedUrls: {},
    promptLengths,
    gaps,
    async doGenerate(options: LanguageModelV3CallOptions) {
      const start = performance.now();
      const step = call++ % (STEPS + 1);
      if (step > 0 && lastEnd !== undefined) gaps.push(start - lastEnd);
      promptLengths.push(options.prompt.length);
      const done = step === STEPS;
      lastEnd = performance.now();
      return {
        content: done
          ? [{ type: 'text' as const, text: 'All recorded.' }]
          : [
              {
                type: 'tool-call' as const,
                toolCallId: `c${call}`,
                toolName: 'record',
                input: JSON.stringify({ id: `n${call}` }),
              },
            ],
        finishReason: { unified: done ? ('stop' as const) : ('tool-calls' as const), raw: undefined },
        usage,
        warnings: [],
      };
    },
    async doStream(): Promise<never> {
      throw new Error('This example does not stream.');
    },
  };
}

const record = tool({
  name: 'record',
  description: 'Records an id.',
  inputSchema: z.object({ id: z.string() }),
  execute: ({ id }) => ({ id, status: 'recorded' }),
});

/** A history of EVENTS events: earlier `record` calls and their results. */
function earlierEvents(): SessionEvent[] {
  const events: SessionEvent[] = [];
  for (let pair = 0; events.length < EVENTS; pair++) {
    const base = { invocationId: 'earlier', author: 'assistant', timestamp: Date.now() };
    const toolCallId = `earlier-${pair}`;
    events.push({
      ...base,
      kind: 'model',
      id: `m${pair}`,
      text: '',
      toolCalls: [{ toolCallId, toolName: 'record', input: { id: `e${pair}` } }],
    });
    events.push({
      ...base,
      kind: 'tool-result',
      id: `t${pair}`,
      toolCallId,
      toolName: 'record',
      output: JSON.stringify({ id: `e${pair}`, status: 'recorded' }),
      isError: false,
    });
  }
  return events;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median ms between model calls over three invocations on a 20,000-event session, after one untimed. */
async function stepTime(reusePrompt: boolean): Promise<{ ms: number; lengths: number[] }> {
  const store = new InMemorySessionStore();
  const session = await store.createSession({ appName: 'example', userId: 'me', sessionId: 'long' });
  await store.appendEvents(session, earlierEvents());
  const model = recorder();
  const runner = new Runner({
    agent: new Agent({ name: 'assistant', instruction: 'You record ids.', tools: [record] }),
    model,
    store,
    appName: 'example',
    contextWindow: 0, // a 20,000-event history exceeds any real window; this example times the steps
    reusePrompt,
  });
  await runner.run({ userId: 'me', sessionId: 'long', message: 'Warm up.' });
  model.gaps.length = 0;
  model.promptLengths.length = 0;
  for (let round = 0; round < 3; round++) {
    const result = await runner.run({ userId: 'me', sessionId: 'long', message: 'Record twenty new ids.' });
    if (result.text !== 'All recorded.') throw new Error(`unexpected answer: ${result.text}`);
  }
  return { ms: median(model.gaps), lengths: model.promptLengths };
}

const copied = await stepTime(false);
const reused = await stepTime(true);
console.log(
  `history: ${EVENTS.toLocaleString('en')} events; prompts of ${copied.lengths[0]} to ${copied.lengths.at(-1)} messages`,
);
console.log(`default:      ${copied.ms.toFixed(3)} ms per step (median)`);
console.log(`reusePrompt:  ${reused.ms.toFixed(3)} ms per step (median)`);
console.log(`same prompt lengths sent: ${JSON.stringify(copied.lengths) === JSON.stringify(reused.lengths)}`);
