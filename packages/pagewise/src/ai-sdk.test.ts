import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { compressionMiddleware, DEFAULT_OBSERVATION_GUIDELINE } from './ai-sdk.js';

describe('pagewise/ai-sdk', () => {
  it('exports a middleware that wraps any LanguageModelV3 and leaves a small prompt as it is', async () => {
    const mock = new MockLanguageModelV3({
      doGenerate: {
        content: [{ type: 'text', text: 'hi' }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
        warnings: [],
      },
    });
    const middleware = compressionMiddleware({ observation: { guideline: DEFAULT_OBSERVATION_GUIDELINE } });
    const result = await generateText({ model: wrapLanguageModel({ model: mock, middleware }), prompt: 'Hello.' });
    expect(result.text).toBe('hi');
    expect(mock.doGenerateCalls[0]?.prompt).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hello.' }] }]);
    expect(middleware.ledger.entries).toHaveLength(0);
  });
});
