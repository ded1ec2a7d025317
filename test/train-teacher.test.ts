/**
 * Teacher labels for the compressor's trainer (bench/compression-eval/teacher.ts): the observation calls an
 * LLM compressor made in successful episodes, read from a real call database, become labelled items.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteCompressorCallStore } from '@pagewise/sqlite';
import type { CompressorCallRecord } from 'pagewise/store-kit';
import { readTeacher, teacherItems, teacherKeeps, teacherNotes, valuesOf } from '../bench/compression-eval/teacher.js';
import { hashedSplit } from '../bench/compression-eval/suite.js';
import { teacherArgument, unitSamples } from '../bench/train-compressor.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-teacher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ORDER = [
  'Order #W2378156 for Yusuf Rossi.',
  'Status: pending since 2024-05-02.',
  'Item: mechanical keyboard, price 1,204.50, variant 9665100170.',
  'The warehouse ships on weekdays between nine and five.',
  'Gift wrapping was not requested.',
].join('\n');
const TEACHER = '#W2378156 pending; keyboard 1204.50 (variant 9665100170). Gift wrapping: not requested.';

function record(id: string, overrides: Partial<CompressorCallRecord> = {}): CompressorCallRecord {
  return {
    id,
    episodeId: `episode-${id}`,
    taskId: 'task',
    target: 'observation',
    guideline: { id: 'observation-default', version: 1, hash: 'h' },
    backend: 'llm(openai:gpt-4.1-mini)',
    input: { task: 'Is order #W2378156 pending?', history: '', previousSummary: '', observation: ORDER, maxTokens: 40 },
    prompt: 'rendered prompt',
    output: TEACHER,
    at: 1,
    success: 1,
    ...overrides,
  };
}

describe('teacher labels', () => {
  it('reads values as whole normalized tokens and keeps a unit only with all of its values', () => {
    expect(valuesOf('price 1,204.50, variant 9665100170.')).toEqual(['1204.50', '9665100170']);
    expect(valuesOf('#W2378156 on 2024-05-02')).toEqual(['#W2378156', '2024-05-02']);
    expect(teacherKeeps('Item: mechanical keyboard, price 1,204.50, variant 9665100170.', TEACHER)).toBe(true);
    // The date was dropped by the teacher, so the status line was not kept whole.
    expect(teacherKeeps('Status: pending since 2024-05-02.', TEACHER)).toBe(false);
    // -258 is not -2580.0: values match as whole tokens, not as substrings.
    expect(teacherKeeps('refund -2580.0', 'refund -258')).toBe(false);
    // No value: most content words must be there.
    expect(teacherKeeps('Gift wrapping was not requested.', TEACHER)).toBe(true);
    expect(teacherKeeps('The warehouse ships on weekdays between nine and five.', TEACHER)).toBe(false);
  });

  it('takes only successful LLM observation calls, once each, and grades on the values the teacher kept', async () => {
    const db = path.join(dir, 'calls.db');
    const store = new SqliteCompressorCallStore({ path: db });
    await store.add(record('kept'));
    await store.add(record('duplicate', { episodeId: 'episode-other' }));
    await store.add(record('failed', { success: 0, output: 'x' }));
    await store.add(record('unscored', { success: null, output: 'y' }));
    await store.add(record('extractive', { backend: 'extractive', output: 'z' }));
    await store.add(record('history', { target: 'history', output: 'w' }));
    await store.add(record('no-values', { output: 'The order looks fine.' }));
    await store.close();
    const items = await teacherItems(db);
    expect(items.map((i) => i.id)).toEqual(['kept']);
    const [item] = items;
    expect(item?.domain).toBe('teacher');
    expect(item?.query).toBe('Is order #W2378156 pending?');
    expect(item?.evidenceCount).toBe(3);
    expect(item?.kept(TEACHER)).toBe(3);
    expect(item?.kept('#W2378156 pending')).toBe(1);

    // The trainer labels the units of the call as the teacher kept them.
    const samples = unitSamples(items);
    expect(samples.filter((s) => s.y === 1).length).toBeGreaterThanOrEqual(2);
    expect(samples.some((s) => s.y === 0)).toBe(true);
  });

  it('refuses a missing database and a --teacher without a file, creating nothing', async () => {
    const missing = path.join(dir, 'nope', 'calls.db');
    await expect(teacherItems(missing)).rejects.toThrow(/no call database/u);
    expect(() => teacherArgument(['--teacher'])).toThrow(/--teacher takes/u);
    expect(() => teacherArgument(['--teacher', '--no-write'])).toThrow(/--teacher takes/u);
    expect(teacherArgument(['--no-write', '--teacher', 'calls.db'])).toBe('calls.db');
    expect(teacherArgument([])).toBeUndefined();
  });
});

describe('teacher notes', () => {
  it('says what joins the fit and that nothing measures the agreement when no call is in the test split', async () => {
    const db = path.join(dir, 'tune-only.db');
    const store = new SqliteCompressorCallStore({ path: db });
    // The first ids whose hash puts them in the tuning split, plus one extractive call left out.
    const tuneIds = Array.from({ length: 40 }, (_, index) => `call-${index}`)
      .filter((id) => hashedSplit(id) === 'tune')
      .slice(0, 2);
    for (const id of tuneIds) await store.add(record(id, { output: `${TEACHER} (${id})` }));
    await store.add(record('extractive', { backend: 'extractive' }));
    await store.close();
    const notes = teacherNotes(db, await readTeacher(db));
    expect(notes[0]).toBe(
      `Teacher: 2 call(s) join the fit, 0 measure the teacher agreement. ${db} holds 3 observation call(s) of ` +
        'successful episodes; left out: 1 by a backend that is not an LLM (extractive calls teach nothing).',
    );
    expect(notes[1]).toMatch(
      /no usable call falls in the test split, so the teacher-agreement recall is not measured/u,
    );
  });
});
