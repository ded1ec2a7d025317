import { describe, expect, it } from 'vitest';
import { StorageError } from '../errors.js';
import { encodeEvent, decodeEvent } from './event-codec.js';
import { SESSION_SCHEMA_VERSION } from './store.js';
import { firstSharedWrites, newSession, sessionFromRow, sessionSummaryFromRow } from './stored-session.js';
import type { SessionEvent } from './types.js';

const key = { appName: 'app', userId: 'u1', sessionId: 's1' };
const row = { state: '{"topic":"tax"}', version: 1, created_at: '1000', updated_at: 2000, schema_version: 3 };
const event: SessionEvent = {
  id: 'e1',
  invocationId: 'i1',
  author: 'user',
  kind: 'user',
  timestamp: 2000,
  text: 'Hi.',
};

describe('newSession', () => {
  it('splits the initial state into the session state and the shared keys, dropping temp: keys and deletions', () => {
    const created = newSession({
      appName: 'app',
      userId: 'u1',
      sessionId: 'given',
      state: { topic: 'tax', gone: null, 'app:region': 'eu', 'user:lang': 'en', 'temp:scratch': 1 },
    });
    expect(created.key).toEqual({ appName: 'app', userId: 'u1', sessionId: 'given' });
    expect(created.state).toEqual({ topic: 'tax' });
    expect(created.shared).toEqual([
      ['user:lang', 'en'],
      ['app:region', 'eu'],
    ]);
    expect(Math.abs(created.now - Date.now())).toBeLessThan(60_000);
  });

  it('gives every session without an id a different random one', () => {
    const ids = new Set(Array.from({ length: 20 }, () => newSession({ appName: 'a', userId: 'u' }).key.sessionId));
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});

describe('firstSharedWrites', () => {
  it('writes each key at the version after the stored one, never reusing a tombstone’s version', () => {
    const stored = new Map([['user:lang', 4]]);
    expect(
      firstSharedWrites(
        [
          ['user:lang', 'en'],
          ['app:region', null],
        ],
        (stateKey) => stored.get(stateKey) ?? 0,
      ),
    ).toEqual([
      ['user:lang', { value: 'en', version: 5 }],
      ['app:region', { value: null, version: 1 }],
    ]);
  });
});

describe('sessionFromRow', () => {
  it('merges the shared values into the state, keeps the version of a deleted key, and reads numbers from text', () => {
    const session = sessionFromRow(key, row, {
      shared: () => [
        { key: 'user:lang', value: '"en"', version: 2 },
        { key: 'app:gone', value: null, version: 3 },
      ],
      events: () => [decodeEvent(encodeEvent(event))],
    });
    expect(session).toEqual({
      ...key,
      state: { topic: 'tax', 'user:lang': 'en' },
      events: [event],
      version: 1,
      sharedVersions: { 'user:lang': 2, 'app:gone': 3 },
      createdAt: 1000,
      updatedAt: 2000,
    });
  });

  it('refuses a schema version it cannot read before reading anything else, naming the session and the fix', () => {
    let read = false;
    const parts = {
      shared: () => ((read = true), []),
      events: () => ((read = true), []),
    };
    const newer = { ...row, schema_version: SESSION_SCHEMA_VERSION + 1 };
    expect(() => sessionFromRow(key, newer, parts)).toThrow(StorageError);
    expect(() => sessionFromRow(key, newer, parts)).toThrow(
      /Session s1 was written with schema version \d+.*Upgrade pagewise/,
    );
    expect(read).toBe(false);
  });

  it('reports a damaged state, shared value or event as a StorageError naming the session', () => {
    const fine = { shared: () => [], events: () => [] };
    const cases = [
      () => sessionFromRow(key, { ...row, state: '{not json' }, fine),
      () => sessionFromRow(key, row, { ...fine, shared: () => [{ key: 'user:x', value: '{', version: 1 }] }),
      () => sessionFromRow(key, row, { ...fine, events: () => [decodeEvent('{"kind":"nonsense"}')] }),
    ];
    for (const read of cases) expect(read).toThrow(/Session s1 holds a record that does not parse/);
  });

  it('passes a StorageError of a part through as it is', () => {
    const failure = new StorageError('the disk is gone');
    const parts = {
      shared: () => [],
      events: (): SessionEvent[] => {
        throw failure;
      },
    };
    expect(() => sessionFromRow(key, row, parts)).toThrow(failure);
  });
});

describe('sessionSummaryFromRow', () => {
  it('reads counts and timestamps given as text (pg bigint) as numbers', () => {
    expect(
      sessionSummaryFromRow({
        app_name: 'app',
        user_id: 'u1',
        session_id: 's1',
        version: 2,
        event_count: '2',
        created_at: '1000',
        updated_at: 3000,
      }),
    ).toEqual({ ...key, version: 2, eventCount: 2, createdAt: 1000, updatedAt: 3000 });
  });
});
