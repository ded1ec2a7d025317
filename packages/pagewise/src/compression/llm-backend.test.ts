import { describe, expect, it } from 'vitest';
import { MissingApiKeyError, ModelBehaviorError } from '../errors.js';
import { OfflineModel } from '../models/offline.js';
import { scriptedModel } from '../models/scripted.js';
import { Ledger } from '../tokens/ledger.js';
import type { CompressionInput } from './backend.js';
import { DEFAULT_OBSERVATION_GUIDELINE } from './default-guidelines.js';
import { llmBackend, rejectCompressorOutput } from './llm-backend.js';
import { resolveBackend } from './resolve-backend.js';

const input: CompressionInput = {
  target: 'observation',
  guideline: DEFAULT_OBSERVATION_GUIDELINE,
  task: 'Is order 7 pending?',
  history: '',
  turns: [],
  previousSummary: '',
  observation: '{"order":7,"status":"pending"}',
  maxTokens: 40,
};

describe('llmBackend', () => {
  it('records provider usage beside the local count and caps the completion', async () => {
    const model = scriptedModel([{ text: 'order 7: pending', usage: { inputTokens: 321, outputTokens: 5 } }]);
    const ledger = new Ledger();
    const text = await llmBackend({ model }).compress(input, { ledger, invocationId: 'inv', agentName: 'a' });
    expect(text).toBe('order 7: pending');
    expect(ledger.entries[0]).toMatchObject({
      kind: 'compressor',
      invocationId: 'inv',
      providerPromptTokens: 321,
      providerCompletionTokens: 5,
    });
    expect(model.calls[0]).toMatchObject({ maxOutputTokens: 2 * 40 + 256, temperature: 0 });
  });

  it('fails as model behaviour on an empty answer, after recording the call', async () => {
    const ledger = new Ledger();
    const error = await llmBackend({ model: scriptedModel(['   ']) })
      .compress(input, { ledger, invocationId: 'inv', agentName: 'a' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelBehaviorError);
    expect((error as ModelBehaviorError).message).toMatch(/extractive backend/u);
    expect(ledger.entries).toHaveLength(1);
  });

  it('resolves its model on first use, so a missing key fails the call, not the setup', async () => {
    const backend = llmBackend({ model: 'openai:gpt-4.1-mini', modelOptions: { env: {} } });
    expect(backend.name).toBe('llm(openai:gpt-4.1-mini)');
    await expect(backend.compress(input, { invocationId: 'i', agentName: 'a' })).rejects.toBeInstanceOf(
      MissingApiKeyError,
    );
  });
});

describe('resolveBackend', () => {
  it('maps extractive and the offline model to the extractive backend, other models to the LLM backend', () => {
    expect(resolveBackend().name).toBe('extractive');
    expect(resolveBackend('offline').name).toBe('extractive');
    expect(resolveBackend(new OfflineModel()).name).toBe('extractive');
    expect(resolveBackend(scriptedModel([])).name).toBe('llm(scripted:scripted)');
    const custom = { name: 'mine', compress: async () => 'x' };
    expect(resolveBackend(custom)).toBe(custom);
  });
});

describe('rejectCompressorOutput', () => {
  const long: CompressionInput = { ...input, observation: 'The order was placed on Monday. '.repeat(20) };

  it('reads a refusal or an apology at the start, in any case and with either apostrophe', () => {
    for (const output of [
      "I'm sorry, I can't help with that.",
      'I’M SORRY but no',
      'Sorry, no.',
      'I apologise for the confusion',
      'I can’t compress this',
      'i am unable to do that',
      'I’m unable to do that',
      'As an AI, I cannot',
      'As an AI.',
      // As a case-insensitive pattern reads them: ſ is an s, a space may come before the apostrophe.
      'ſorry, no',
      'Aſ an AI, no',
      "I 'm unable to help",
    ]) {
      expect(rejectCompressorOutput(output, long), output).toMatch(/refusal/u);
    }
  });

  it('keeps an output that only mentions those words, or starts with a longer word', () => {
    for (const output of [
      'Order placed Monday; sorry note from the user.',
      'As an AIM member',
      'As an AIſ model',
      'Sorrya',
      'I can do it',
    ]) {
      expect(rejectCompressorOutput(output, long), output).toBeUndefined();
    }
  });
});
