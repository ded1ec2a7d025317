/**
 * A scripted LanguageModelV3 (the AI SDK's model contract), used by pagewise, the AI SDK and Mastra:
 * it follows the benchmark's script and reports every call to the outside clock.
 */
import { decide, STEPS, type OutsideClock } from './common.js';

/** A LanguageModelV3 that follows the script and reports to the clock. */
export function scriptedV3(clock: OutsideClock, steps = STEPS) {
  let call = 0;
  let ids = 0;
  const usage = {
    inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: undefined, reasoning: undefined },
  };
  const respond = () => {
    const decision = decide(call++, steps);
    const content = decision.tool
      ? [
          {
            type: 'tool-call' as const,
            toolCallId: `c${++ids}`,
            toolName: 'record',
            input: JSON.stringify(decision.tool),
          },
        ]
      : [{ type: 'text' as const, text: decision.text! }];
    return {
      content,
      finishReason: { unified: decision.tool ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
      usage,
      warnings: [],
    };
  };
  return {
    specificationVersion: 'v3' as const,
    provider: 'scripted',
    modelId: 'scripted',
    supportedUrls: {},
    reset() {
      call = 0;
    },
    async doGenerate() {
      clock.enter();
      try {
        return respond();
      } finally {
        clock.exit();
      }
    },
    async doStream() {
      clock.enter();
      try {
        const response = respond();
        const parts: unknown[] = [{ type: 'stream-start', warnings: [] }];
        for (const part of response.content) {
          if (part.type === 'text') {
            parts.push(
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: part.text },
              { type: 'text-end', id: 't' },
            );
          } else parts.push(part);
        }
        parts.push({ type: 'finish', finishReason: response.finishReason, usage: response.usage });
        return { stream: new ReadableStream({ start: (ctl) => (parts.forEach((p) => ctl.enqueue(p)), ctl.close()) }) };
      } finally {
        clock.exit();
      }
    },
  };
}
