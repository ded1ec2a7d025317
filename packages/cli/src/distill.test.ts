import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ChatExampleSchema,
  CompletionExampleSchema,
  SqliteCompressorCallStore,
  type CompressorCallRecord,
} from '../../lab/src/optimize/index.js';
import { DISTILL_HELP, distillCommand } from './distill.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-distill-'));
const db = path.join(dir, 'calls.db');

function record(
  id: string,
  episodeId: string,
  guideline = { id: 'history-default', version: 1, hash: 'h' },
): CompressorCallRecord {
  return {
    id,
    episodeId,
    taskId: 't',
    target: 'history',
    guideline,
    backend: 'extractive',
    input: { task: 'task', history: `steps ${id}`, previousSummary: '', observation: '', maxTokens: 50 },
    prompt: `Summarize steps ${id}`,
    output: `summary ${id}`,
    at: 1,
    success: null,
  };
}

async function run(argv: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const code = await distillCommand(argv, (s) => out.push(s));
  return { code, out: out.join('\n') };
}

describe('pagewise distill', () => {
  it('prints its help and says what is missing', async () => {
    expect(await run(['--help'])).toMatchObject({ code: 0, out: DISTILL_HELP });
    await expect(run([])).rejects.toThrow(/Give a subcommand: pagewise distill export/);
    await expect(run(['export', '--target', 'history'])).rejects.toThrow(/--out <file.jsonl>/);
    await expect(run(['export', '--target', 'history', '--out', 'x', '--format', 'csv'])).rejects.toThrow(
      /--format must be chat or completion/,
    );
    await expect(run(['export', '--target', 'history', '--out', 'x', '--min-success', 'high'])).rejects.toThrow(
      /--min-success must be a number/,
    );
    await expect(run(['export', '--target', 'history', '--out', 'x', '--guideline', 'a@b'])).rejects.toThrow(
      /--guideline must be an id or id@version/,
    );
  });

  it('exports the successful episodes’ calls from the database, chat or prompt/completion, filtered by guideline', async () => {
    const store = new SqliteCompressorCallStore({ path: db });
    await store.add(record('a', 'ok'));
    await store.add(record('b', 'ok', { id: 'history-default-co1', version: 3, hash: 'h2' }));
    await store.add(record('c', 'failed'));
    await store.setEpisodeSuccess('ok', 1);
    await store.setEpisodeSuccess('failed', 0);
    await store.close();

    const chat = path.join(dir, 'chat.jsonl');
    expect((await run(['export', '--target', 'history', '--out', chat, '--db', db])).out).toMatch(
      /^2 chat examples written to .*chat\.jsonl \(2 history calls matched\)/,
    );
    const lines = readFileSync(chat, 'utf8').trim().split('\n');
    expect(lines.map((l) => ChatExampleSchema.parse(JSON.parse(l)).messages[2].content)).toEqual([
      'summary a',
      'summary b',
    ]);

    const completion = path.join(dir, 'completion.jsonl');
    await run([
      'export',
      '--target',
      'history',
      '--out',
      completion,
      '--db',
      db,
      '--format',
      'completion',
      '--guideline',
      'history-default-co1@3',
    ]);
    expect(
      readFileSync(completion, 'utf8')
        .trim()
        .split('\n')
        .map((l) => CompletionExampleSchema.parse(JSON.parse(l))),
    ).toEqual([{ prompt: 'Summarize steps b', completion: 'summary b' }]);

    const none = await run(['export', '--target', 'observation', '--out', path.join(dir, 'none.jsonl'), '--db', db]);
    expect(none.out).toMatch(/^0 chat examples[\s\S]*No examples: record calls with `pagewise optimize`/);
  });
});
