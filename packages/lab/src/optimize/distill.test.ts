import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  InMemoryCompressorCallStore,
  type CompressorCallRecord,
} from '../../../pagewise/src/compression/call-store.js';
import { ChatExampleSchema, CompletionExampleSchema, distillSystemPrompt, exportDistillJsonl } from './distill.js';

function record(id: string, episodeId: string, over: Partial<CompressorCallRecord> = {}): CompressorCallRecord {
  return {
    id,
    episodeId,
    taskId: 't',
    target: 'observation',
    guideline: { id: 'observation-default', version: 1, hash: 'h' },
    backend: 'llm(openai:gpt-4.1-mini)',
    input: { task: 'task', history: '', previousSummary: '', observation: `obs ${id}`, maxTokens: 50 },
    prompt: `Refine this observation: obs ${id} "quoted"\nline two`,
    output: `kept ${id}`,
    at: 1,
    success: null,
    ...over,
  };
}

async function storeWithCalls(): Promise<InMemoryCompressorCallStore> {
  const store = new InMemoryCompressorCallStore();
  await store.add(record('a', 'ok'));
  await store.add(record('b', 'ok'));
  await store.add(record('a-again', 'ok2', { prompt: record('a', '').prompt, output: record('a', '').output }));
  await store.add(record('c', 'failed'));
  await store.add(record('d', 'unscored'));
  await store.add(record('h', 'ok', { target: 'history' }));
  await store.setEpisodeSuccess('ok', 1);
  await store.setEpisodeSuccess('ok2', 1);
  await store.setEpisodeSuccess('failed', 0);
  return store;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-distill-'));

describe('exportDistillJsonl', () => {
  it('writes the successful episodes’ calls of a target as chat examples, one JSON a line, duplicates once', async () => {
    const out = path.join(dir, 'nested', 'obs.jsonl');
    const result = await exportDistillJsonl({ store: await storeWithCalls(), target: 'observation', out });
    expect(result).toMatchObject({ written: 2, matched: 3, duplicates: 1 });
    const lines = readFileSync(out, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    const examples = lines.map((line) => ChatExampleSchema.parse(JSON.parse(line)));
    expect(examples[0]?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(examples[0]?.messages[0].content).toBe(distillSystemPrompt('observation'));
    expect(examples.map((e) => e.messages[2].content)).toEqual(['kept a', 'kept b']);
    expect(examples[0]?.messages[1].content).toContain('"quoted"\nline two');
  });

  it('writes prompt/completion pairs, and takes lower scores when asked', async () => {
    const out = path.join(dir, 'completion.jsonl');
    const result = await exportDistillJsonl({
      store: await storeWithCalls(),
      target: 'observation',
      out,
      format: 'completion',
      minSuccess: 0,
    });
    expect(result.written).toBe(3);
    const examples = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => CompletionExampleSchema.parse(JSON.parse(line)));
    expect(examples.map((e) => e.completion)).toEqual(['kept a', 'kept b', 'kept c']);
  });

  it('refuses a minimum score outside 0..1', async () => {
    await expect(
      exportDistillJsonl({
        store: new InMemoryCompressorCallStore(),
        target: 'history',
        out: path.join(dir, 'x.jsonl'),
        minSuccess: 2,
      }),
    ).rejects.toThrow(/--min-success/);
  });
});
