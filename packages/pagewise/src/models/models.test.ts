import { describe, expect, it } from 'vitest';
import { ConfigurationError, MissingApiKeyError, PagewiseError } from '../errors.js';
import { OFFLINE_DISCLAIMER, createOfflineModel, type OfflinePolicy } from './offline.js';
import { contextWindowFor, resolveModel } from './resolve.js';
import { scriptedModel, ScriptedModelError } from './scripted.js';

const prompt = (text: string) => [{ role: 'user' as const, content: [{ type: 'text' as const, text }] }];

describe('resolveModel', () => {
  it('names the missing environment variable', () => {
    const err = (() => {
      try {
        resolveModel('openai:gpt-4.1-mini', { env: {} });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(MissingApiKeyError);
    expect(PagewiseError.isInstance(err)).toBe(true);
    expect((err as Error).message).toMatch(/OPENAI_API_KEY/);
    expect(() => resolveModel('anthropic:claude-haiku-4-5', { env: {} })).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => resolveModel('google:gemini-2.5-flash', { env: {} })).toThrow(/GOOGLE_GENERATIVE_AI_API_KEY/);
    expect(() => resolveModel('openai-compatible:llama3', { env: {} })).toThrow(/PAGEWISE_OPENAI_COMPATIBLE_BASE_URL/);
  });

  it('builds real provider models when keys are present', () => {
    const openai = resolveModel('openai:gpt-4.1-mini', { env: { OPENAI_API_KEY: 'sk-test' } });
    expect(openai.specificationVersion).toBe('v3');
    expect(openai.modelId).toBe('gpt-4.1-mini');
    const compatible = resolveModel('openai-compatible:qwen2.5', {
      env: { PAGEWISE_OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1' },
    });
    expect(compatible.modelId).toBe('qwen2.5');
  });

  it('rejects malformed specs and unknown providers with guidance', () => {
    expect(() => resolveModel('gpt-4')).toThrow(ConfigurationError);
    expect(() => resolveModel('mistral:large')).toThrow(/Known: openai/);
  });

  it('knows context windows', () => {
    expect(contextWindowFor('offline')).toBe(128_000);
    expect(contextWindowFor('anthropic:claude-sonnet-4-5')).toBe(200_000);
  });
});

describe('offline model', () => {
  it('says it is not an LLM and reads only its prompt', async () => {
    const model = createOfflineModel();
    const response = await model.doGenerate({ prompt: prompt('hello world') });
    const text = response.content.find((c) => c.type === 'text');
    expect(text?.type === 'text' && text.text.startsWith(OFFLINE_DISCLAIMER)).toBe(true);
    expect(text?.type === 'text' && text.text).toContain('hello world');
  });

  it('uses the first matching policy and refuses tools that were not offered', async () => {
    const policy: OfflinePolicy = {
      name: 'p',
      matches: (v) => v.lastUserText.includes('call'),
      decide: () => ({ toolCalls: [{ toolName: 'x', input: { a: 1 } }] }),
    };
    const model = createOfflineModel({ policies: [policy] });
    const offered = await model.doGenerate({
      prompt: prompt('call it'),
      tools: [{ type: 'function', name: 'x', inputSchema: {} }],
    });
    expect(offered.content[0]).toMatchObject({ type: 'tool-call', toolName: 'x', input: '{"a":1}' });
    const missing = await model.doGenerate({ prompt: prompt('call it') });
    expect(missing.content[0]).toMatchObject({ type: 'text' });
  });
});

describe('scripted model', () => {
  it('fails loudly on an unexpected call and on unused steps', async () => {
    const model = scriptedModel(['one', 'two']);
    await model.doGenerate({ prompt: prompt('a') });
    expect(() => model.assertComplete()).toThrow(/1 of 2/);
    await model.doGenerate({ prompt: prompt('b') });
    model.assertComplete();
    await expect(model.doGenerate({ prompt: prompt('c') })).rejects.toBeInstanceOf(ScriptedModelError);
    expect(model.calls).toHaveLength(3);
  });
});
