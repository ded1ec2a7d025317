/**
 * `npm run train:compressor -- --teacher <calls.db>` as a user runs it, in a child process: a database that adds
 * nothing to the fit (only extractive calls, or every usable call in the test split) stops the run before any
 * training with the reason and exit code 1, instead of training as if the teacher had been added.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteCompressorCallStore } from '@pagewise/sqlite';
import type { CompressorCallRecord } from 'pagewise/store-kit';
import { hashedSplit } from '../bench/compression-eval/suite.js';

const root = path.resolve(import.meta.dirname, '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-teacher-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// No suite data: a run that went past the teacher check would train on nothing but the teacher.
const emptyData = path.join(dir, 'no-data');
mkdirSync(emptyData);

const OBSERVATION =
  'Order #W2378156 for Yusuf Rossi.\nStatus: pending since 2024-05-02.\nGift wrapping was not requested.';

function record(id: string, backend: string): CompressorCallRecord {
  return {
    id,
    episodeId: `episode-${id}`,
    taskId: 'task',
    target: 'observation',
    guideline: { id: 'observation-default', version: 1, hash: 'h' },
    backend,
    input: {
      task: 'Is order #W2378156 pending?',
      history: '',
      previousSummary: '',
      observation: OBSERVATION,
      maxTokens: 40,
    },
    prompt: 'rendered prompt',
    output: `#W2378156 pending since 2024-05-02 (${id})`,
    at: 1,
    success: 1,
  };
}

async function database(name: string, records: CompressorCallRecord[]): Promise<string> {
  const file = path.join(dir, name);
  const store = new SqliteCompressorCallStore({ path: file });
  for (const entry of records) await store.add(entry);
  await store.close();
  return file;
}

async function train(teacher: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = path.join(root, 'bench/train-compressor.ts');
  const argv = ['--conditions=@pagewise/source', '--import', 'tsx', script, '--no-write', '--no-ablation'];
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [...argv, '--teacher', teacher], {
      cwd: root,
      env: { ...process.env, PAGEWISE_SHARED_DATA: emptyData },
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Ids whose hash puts them in `split`, as the trainer splits teacher calls. */
function idsIn(split: 'tune' | 'test', count: number): string[] {
  const ids: string[] = [];
  for (let index = 0; ids.length < count; index += 1)
    if (hashedSplit(`call-${index}`) === split) ids.push(`call-${index}`);
  return ids;
}

describe('train:compressor --teacher that adds nothing', () => {
  it('only extractive calls: says so, names the fix, exits 1 without training', async () => {
    const db = await database('extractive.db', [record('a', 'extractive'), record('b', 'extractive')]);
    const run = await train(db);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--teacher: nothing to add.');
    expect(run.stderr).toContain(
      'holds 2 observation call(s) of successful episodes; left out: 2 by a backend that is not an LLM',
    );
    expect(run.stderr).toMatch(/pagewise optimize --compressor <provider:model> --db <file>/u);
    expect(run.stdout).not.toContain('Training the extractive compressor');
  }, 150_000);

  it('every usable call in the test split: says none joins the fit, exits 1 without training', async () => {
    const db = await database(
      'test-split.db',
      idsIn('test', 2).map((id) => record(id, 'llm(openai:gpt-4.1-mini)')),
    );
    const run = await train(db);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--teacher: nothing to add to the fit.');
    expect(run.stderr).toContain('All 2 usable call(s) fall in the test split');
    expect(run.stdout).not.toContain('Training the extractive compressor');
  }, 150_000);
});
