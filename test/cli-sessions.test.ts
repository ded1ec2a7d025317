/**
 * `pagewise sessions list` and `show` say what a session is (issue 40, item 7): the list has a column for the times,
 * events, model calls, tokens, agents and first message of each session, read from the store; `show` prints the
 * state one key a line with long values cut, and `--raw` prints it whole.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../packages/sqlite/src/sqlite-store.js';
import type { Session } from '../packages/pagewise/src/session/types.js';
import { cli } from './support/cli.js';

const QUESTION = 'Which reports have a churn rate above 5%?';

describe('pagewise sessions list and show', () => {
  let db: string;
  let session: Session;

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-sessions-'));
    db = path.join(dir, 'pw.db');
    expect((await cli('corpus', 'generate', '--n', '8', '--out', path.join(dir, 'docs'), '--seed', '2')).code).toBe(0);
    const analysed = await cli('analyze', path.join(dir, 'docs'), QUESTION, '--db', db);
    expect(analysed.code, analysed.err).toBe(0);
    const store = new SqliteSessionStore({ path: db, readOnly: true });
    const [summary] = await store.listSessions({ appName: 'pagewise' });
    session = (await store.getSession(summary!))!;
    await store.close();
  }, 120_000);

  it('lists each session with its times, events, calls, tokens, agents and first message under a header', async () => {
    const listed = await cli('sessions', 'list', '--db', db);
    expect(listed.code, listed.err).toBe(0);
    const [header, row, ...rest] = listed.out.split('\n');
    expect(rest).toEqual([]);
    expect(header!.split(/\s{2,}/)).toEqual([
      'session',
      'user',
      'created (UTC)',
      'updated (UTC)',
      'events',
      'calls',
      'tokens',
      'agents',
      'first message',
    ]);
    const models = session.events.filter((event) => event.kind === 'model');
    const tokens = models.reduce(
      (sum, event) => sum + (event.usage?.promptTokens ?? 0) + (event.usage?.completionTokens ?? 0),
      0,
    );
    const agents = [...new Set(models.map((event) => event.author))];
    const cells = row!.split(/\s{2,}/);
    expect(cells).toEqual([
      session.sessionId,
      session.userId,
      new Date(session.createdAt).toISOString().slice(0, 19).replace('T', ' '),
      new Date(session.updatedAt).toISOString().slice(0, 19).replace('T', ' '),
      session.events.length.toLocaleString('en-US'),
      models.length.toLocaleString('en-US'),
      tokens.toLocaleString('en-US'),
      agents.join(','),
      QUESTION,
    ]);
    expect(tokens).toBeGreaterThan(0);

    const json = JSON.parse((await cli('sessions', 'list', '--db', db, '--json')).out) as Record<string, unknown>[];
    expect(json[0]).toMatchObject({ sessionId: session.sessionId, modelCalls: models.length, agents });
  });

  it('shows the state one key a line, long values cut and counted, and whole with --raw', async () => {
    const longest = Object.entries(session.state)
      .map(([key, value]) => [key, JSON.stringify(value)] as const)
      .sort((a, b) => b[1].length - a[1].length)[0]!;
    // The analysis keeps its passages in state: a value of several hundred characters.
    expect(longest[1].length).toBeGreaterThan(300);

    const shown = await cli('sessions', 'show', session.sessionId, '--db', db);
    expect(shown.code, shown.err).toBe(0);
    const lines = shown.out.split('\n');
    const keyLine = lines.find((line) => line.startsWith(`  ${longest[0]}: `))!;
    expect(keyLine).toContain(`… (${(longest[1].length - 160).toLocaleString('en-US')} more chars)`);
    expect(keyLine.length).toBeLessThan(longest[1].length);
    for (const key of Object.keys(session.state))
      expect(lines.some((line) => line.startsWith(`  ${key}: `))).toBe(true);
    expect(shown.out).not.toContain(longest[1]);

    const raw = await cli('sessions', 'show', session.sessionId, '--db', db, '--raw');
    expect(raw.code, raw.err).toBe(0);
    const start = raw.out.indexOf('state: ') + 'state: '.length;
    const end = raw.out.indexOf('\n   0  ');
    expect(JSON.parse(raw.out.slice(start, end))).toEqual(session.state);
  });
});
