import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { isProviderModel } from './provider-models.js';
import { scriptedModel } from './scripted.js';

const openai = createOpenAI({ apiKey: 'k' });
const compatible = createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:9/v1' });

describe('isProviderModel', () => {
  it.each([
    ['openai(id), the Responses API', openai('gpt-4.1')],
    ['openai.chat', openai.chat('gpt-4.1')],
    ['openai.completion', openai.completion('gpt-3.5-turbo-instruct')],
    ['anthropic', createAnthropic({ apiKey: 'k' })('claude-sonnet-4-5')],
    ['google', createGoogleGenerativeAI({ apiKey: 'k' })('gemini-2.5-flash')],
    ['openai-compatible chat', compatible('llama')],
    ['openai-compatible completion', compatible.completionModel('llama')],
  ])('recognises %s as a provider model', async (_name, model) => {
    expect(await isProviderModel(model as LanguageModelV3)).toBe(true);
  });

  it('does not recognise models that may keep the prompt', async () => {
    const chat = openai.chat('gpt-4.1');
    const patched = openai.chat('gpt-4.1');
    patched.doGenerate = (o) => chat.doGenerate(o);
    const patchedArgs = openai.chat('gpt-4.1') as unknown as { getArgs: unknown };
    patchedArgs.getArgs = () => ({});
    const Chat = Object.getPrototypeOf(chat).constructor as new (id: string, config: unknown) => LanguageModelV3;
    class Recording extends Chat {}
    const sub = new Recording('gpt-4.1', (chat as unknown as { config: unknown }).config);
    const lookalike: LanguageModelV3 = {
      specificationVersion: 'v3',
      provider: 'openai.chat',
      modelId: 'gpt-4.1',
      supportedUrls: {},
      doGenerate: (o) => chat.doGenerate(o),
      doStream: (o) => chat.doStream(o),
    };
    const cases: [string, LanguageModelV3][] = [
      [
        'wrapLanguageModel',
        wrapLanguageModel({ model: chat, middleware: { specificationVersion: 'v3' } }) as LanguageModelV3,
      ],
      ['doGenerate replaced on the object', patched],
      ['getArgs replaced on the object', patchedArgs as unknown as LanguageModelV3],
      ['a subclass', sub],
      ['a plain object with the provider name', lookalike],
      ['MockLanguageModelV3', new MockLanguageModelV3()],
      ['scriptedModel', scriptedModel(['x'])],
    ];
    for (const [name, model] of cases) expect([name, await isProviderModel(model)]).toEqual([name, false]);
  });
});
