import { describe, expect, it } from 'vitest';
import type { CompressionInput, CompressorBackend } from 'pagewise/compression';
import { DEFAULT_OBSERVATION_GUIDELINE, compressorPrompt } from 'pagewise/compression';
import { InMemoryCompressorCallStore } from 'pagewise/store-kit';
import { guidelineHash } from './hash.js';
import * as optimize from './index.js';
import { recordingBackend } from './recording.js';

const input: CompressionInput = {
  target: 'observation',
  guideline: DEFAULT_OBSERVATION_GUIDELINE,
  task: 'Find the order.',
  history: '[call get_order] {"order_id":"#W1"}',
  turns: [],
  previousSummary: '',
  observation: '{"order_id":"#W1","status":"pending"}',
  toolName: 'get_order',
  maxTokens: 40,
};
const context = { invocationId: 'i', agentName: 'a' };

describe('recordingBackend', () => {
  it('records input, guideline, rendered prompt and output, unscored, and passes the output on', async () => {
    const store = new InMemoryCompressorCallStore();
    const seen: string[] = [];
    const inner: CompressorBackend = { name: 'inner', compress: async () => '{"status":"pending"}' };
    const backend = recordingBackend(inner, {
      store,
      episodeId: 'e1',
      taskId: 't1',
      onRecord: (r) => seen.push(r.id),
    });
    expect(backend.name).toBe('inner');
    expect(await backend.compress(input, context)).toBe('{"status":"pending"}');
    const [record] = await store.list();
    expect(record).toMatchObject({
      episodeId: 'e1',
      taskId: 't1',
      target: 'observation',
      guideline: { id: 'observation-default', version: 1, hash: guidelineHash(DEFAULT_OBSERVATION_GUIDELINE) },
      backend: 'inner',
      input: { task: 'Find the order.', observation: input.observation, toolName: 'get_order', maxTokens: 40 },
      output: '{"status":"pending"}',
      success: null,
    });
    // Exactly what the LLM backend sends: the guideline with the tool output fenced.
    expect(record?.prompt).toBe(compressorPrompt(input));
    expect(record?.prompt).toContain(`>>>\n${input.observation}\n<<<END observation_`);
    expect(seen).toEqual([record?.id]);
  });

  it('records nothing for a call that fails', async () => {
    const store = new InMemoryCompressorCallStore();
    const backend = recordingBackend(
      { name: 'broken', compress: async () => Promise.reject(new Error('down')) },
      { store, episodeId: 'e', taskId: 't' },
    );
    await expect(backend.compress(input, context)).rejects.toThrow('down');
    expect(await store.list()).toEqual([]);
  });

  it('is still exported under its old name, recordingCompressor, for one release', () => {
    expect(typeof optimize.recordingBackend).toBe('function');
    expect(optimize.recordingCompressor).toBe(optimize.recordingBackend);
  });
});
