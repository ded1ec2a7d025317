/**
 * `pagewise replay` on the inputs users gave it (issue 40, item 6): a tool call whose arguments are not valid
 * JSON is replayed with a warning that names the file, line, field and call; a pagewise SQLite session
 * database (the --db of analyze) is read read-only, each session a trace.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';

const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A Chat Completions record whose second tool call was cut mid-arguments, as a model sometimes writes them. */
function chatRecord(id: string, secondArguments: string): string {
  const order = JSON.stringify({ order_id: '#W4817420', status: 'delivered', total: 54.5, items: ['Yoga Mat'] });
  return JSON.stringify({
    id,
    messages: [
      { role: 'user', content: 'Return the yoga mat of my last order, please.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_order', arguments: '{"n": 1}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: order },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_2', type: 'function', function: { name: 'return_items', arguments: secondArguments } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_2', content: 'return requested' },
      { role: 'assistant', content: 'Done: the return of order #W4817420 is requested.' },
    ],
  });
}

describe('pagewise replay: tool arguments that are not JSON', () => {
  it('replays the trace and warns, naming the line, the field and the call', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-replay-args-'));
    const file = path.join(dir, 'chats.jsonl');
    writeFileSync(
      file,
      `${chatRecord('fine', '{"order_id": "#W4817420"}')}\n${chatRecord('cut', '{"order_id": "#W48174')}\n`,
    );
    const run = await cli('replay', file, '--strategies', 'none,truncation');
    expect(run.code, run.err).toBe(0);
    expect(run.err).toMatch(/Warning: 1 tool call\(s\) have arguments that are not valid JSON/);
    expect(run.err).toContain(
      'chats.jsonl:2: messages[3].tool_calls[0].function.arguments (call call_2 of return_items)',
    );
    expect(run.err).toMatch(/not valid JSON \(.+\); the call is replayed with its arguments as text/);
    expect(run.err).toContain('Replaying 2 trace(s)');
    expect(run.out).toContain('truncation');
  });

  it('prints no warning when every call parses', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-replay-args-'));
    const file = path.join(dir, 'chats.jsonl');
    writeFileSync(file, `${chatRecord('a', '{"order_id": "#W4817420"}')}\n${chatRecord('b', '')}\n`);
    const run = await cli('replay', file, '--strategies', 'none');
    expect(run.code, run.err).toBe(0);
    expect(run.err).not.toMatch(/Warning/);
  });
});

describe('pagewise replay: a pagewise SQLite session database', () => {
  it('replays the sessions analyze stored, without changing the file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-replay-db-'));
    const docs = path.join(dir, 'docs');
    const db = path.join(dir, 'sessions.db');
    expect((await cli('corpus', 'generate', '--n', '6', '--out', docs, '--seed', '4')).code).toBe(0);
    const analysed = await cli('analyze', docs, 'Which reports have a churn rate above 5%?', '--db', db);
    expect(analysed.code, analysed.err).toBe(0);
    expect(analysed.out).toMatch(/session [0-9a-f-]{36}/);
    const before = digest(db);

    const run = await cli('replay', db, '--strategies', 'none,truncation', '--json');
    expect(run.code, run.err).toBe(0);
    expect(run.err).toContain('Replaying 1 trace(s)');
    const report = JSON.parse(run.out) as { traces: number; strategies: { name: string; peakTokens: number }[] };
    expect(report.traces).toBe(1);
    expect(report.strategies.find((s) => s.name === 'none')!.peakTokens).toBeGreaterThan(0);
    expect(digest(db)).toBe(before);

    const listed = await cli('replay', db, '--strategies', 'none', '--app', 'pagewise', '--json');
    expect(listed.code, listed.err).toBe(0);
    expect((JSON.parse(listed.out) as { traces: number }).traces).toBe(1);

    const otherApp = await cli('replay', db, '--app', 'nope');
    expect(otherApp.code).toBe(2);
    expect(otherApp.err).toMatch(/no session of app "nope" \(its apps: pagewise\)/);

    const wrongFormat = await cli('replay', db, '--format', 'openai-chat');
    expect(wrongFormat.code).toBe(2);
    expect(wrongFormat.err).toMatch(/a SQLite database holds pagewise sessions, not openai-chat/);
  });

  it('refuses a SQLite file pagewise did not write, saying so, and leaves it as it was', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-replay-db-'));
    const file = path.join(dir, 'other.sqlite');
    const foreign = new Database(file);
    foreign.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hello')");
    foreign.close();
    const before = digest(file);
    const run = await cli('replay', file);
    expect(run.code).not.toBe(0);
    expect(run.err).toMatch(/SQLite database that pagewise did not write/);
    expect(run.err).not.toMatch(/nor JSONL/);
    expect(digest(file)).toBe(before);
  });
});
