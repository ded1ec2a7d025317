import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../errors.js';
import { SqliteCompressorCallStore } from '../../../sqlite/src/sqlite-compressor-calls.js';
import { InMemoryCompressorCallStore, type CompressorCallRecord, type CompressorCallStore } from './call-store.js';

function record(over: Partial<CompressorCallRecord> = {}): CompressorCallRecord {
  return {
    id: `c-${Math.random().toString(36).slice(2)}`,
    episodeId: 'e1',
    taskId: 't1',
    target: 'observation',
    guideline: { id: 'observation-default', version: 1, hash: 'abc' },
    backend: 'extractive',
    input: {
      task: 'task',
      history: '',
      previousSummary: '',
      observation: '{"a":1}',
      toolName: 'get_order',
      maxTokens: 100,
    },
    prompt: 'Compress {"a":1}',
    output: '{"a":1}',
    at: 1,
    success: null,
    ...over,
  };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-calls-'));
const stores: [string, () => CompressorCallStore][] = [
  ['in memory', () => new InMemoryCompressorCallStore()],
  [
    'SQLite',
    () => new SqliteCompressorCallStore({ path: path.join(dir, `${Math.random().toString(36).slice(2)}.db`) }),
  ],
];

describe.each(stores)('CompressorCallStore (%s)', (_name, make) => {
  it('keeps calls unscored until their episode is scored, then filters by score', async () => {
    const store = make();
    await store.add(record({ id: 'a', at: 1 }));
    await store.add(record({ id: 'b', at: 2 }));
    await store.add(record({ id: 'c', episodeId: 'e2', at: 3, target: 'history' }));
    expect(await store.list({ minSuccess: 0 })).toEqual([]);
    expect(await store.setEpisodeSuccess('e1', 1)).toBe(2);
    expect(await store.setEpisodeSuccess('e2', 0)).toBe(1);
    expect((await store.list({ minSuccess: 1 })).map((r) => r.id)).toEqual(['a', 'b']);
    expect((await store.list({ target: 'history' })).map((r) => r.id)).toEqual(['c']);
    expect((await store.list({ guidelineId: 'observation-default', guidelineVersion: 2 })).length).toBe(0);
    expect(await store.list({ episodeId: 'e1' })).toEqual([
      { ...record({ id: 'a', at: 1 }), success: 1 },
      { ...record({ id: 'b', at: 2 }), success: 1 },
    ]);
    await store.close();
  });

  it('refuses a score outside 0..1', async () => {
    const store = make();
    await expect(store.setEpisodeSuccess('e1', 2)).rejects.toThrow(/from 0 to 1/);
    await store.close();
  });
});

describe('SqliteCompressorCallStore', () => {
  it('refuses a body it cannot read, naming the call', async () => {
    const store = new SqliteCompressorCallStore({ path: path.join(dir, 'corrupt.db') });
    await store.add(record({ id: 'x' }));
    store.db.prepare('UPDATE compressor_calls SET body = \'{"schema":1}\'').run();
    await expect(store.list()).rejects.toThrow(StorageError);
    await expect(store.list()).rejects.toThrow(/Compressor call x has an unreadable body/);
    await store.close();
  });
});
