/**
 * The SessionStore contract suite: every store implementation runs these same tests.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VersionConflictError, PagewiseError } from '../../packages/pagewise/src/errors.js';
import { refreshSession } from '../../packages/pagewise/src/session/append.js';
import { SharedStateConflictError, type SessionStore } from '../../packages/pagewise/src/session/store.js';
import type { Session, SessionEvent } from '../../packages/pagewise/src/session/types.js';

let counter = 0;
function userEvent(text: string, delta?: Record<string, unknown>, reads?: Record<string, number>): SessionEvent {
  counter += 1;
  return {
    kind: 'user',
    id: `e-${counter}-${randomUUID()}`,
    invocationId: 'inv-1',
    author: 'user',
    timestamp: Date.now(),
    text,
    ...(delta ? { delta: delta as never } : {}),
    ...(reads ? { reads } : {}),
  };
}

/** What a tool does: read a shared counter, add one, and say which version it read. */
function incrementEvent(session: Session, key: string): SessionEvent {
  const current = (session.state[key] as number | undefined) ?? 0;
  return userEvent(`inc ${key}`, { [key]: current + 1 }, { [key]: session.sharedVersions?.[key] ?? 0 });
}

/** Runs the contract against a store made by `make`; `reopen` (optional) reopens the same data. */
export function sessionStoreContract(
  name: string,
  make: () => Promise<SessionStore>,
  options: { reopen?: (old: SessionStore) => Promise<SessionStore> } = {},
): void {
  describe(`SessionStore contract: ${name}`, () => {
    let store: SessionStore;
    const app = `app-${randomUUID().slice(0, 8)}`;
    beforeAll(async () => {
      store = await make();
    });
    afterAll(async () => {
      await store.close();
    });

    it('creates, gets, lists and deletes sessions', async () => {
      const sessionA = await store.createSession({ appName: app, userId: 'u1', state: { topic: 'x' } });
      const sessionB = await store.createSession({ appName: app, userId: 'u2', sessionId: 'fixed-id' });
      expect(sessionA.sessionId).toMatch(/.+/);
      expect(sessionB.sessionId).toBe('fixed-id');
      expect(sessionA.version).toBe(0);
      const got = await store.getSession(sessionA);
      expect(got?.state.topic).toBe('x');
      expect((await store.listSessions({ appName: app })).map((s) => s.sessionId).sort()).toEqual(
        [sessionA.sessionId, 'fixed-id'].sort(),
      );
      expect((await store.listSessions({ appName: app, userId: 'u2' })).map((s) => s.sessionId)).toEqual(['fixed-id']);
      await expect(store.createSession({ appName: app, userId: 'u2', sessionId: 'fixed-id' })).rejects.toThrow(
        /already exists/,
      );
      expect(await store.deleteSession(sessionB)).toBe(true);
      expect(await store.deleteSession(sessionB)).toBe(false);
      expect(await store.getSession(sessionB)).toBeUndefined();
    });

    it('appends events with deltas atomically and increments the version', async () => {
      const session = await store.createSession({ appName: app, userId: 'u3' });
      await store.appendEvent(session, userEvent('hello', { count: 1, note: 'a' }));
      await store.appendEvent(session, userEvent('again', { count: 2, note: null }));
      expect(session.version).toBe(2);
      expect(session.state).toEqual({ count: 2 });
      const loaded = await store.getSession(session);
      expect(loaded?.version).toBe(2);
      expect(loaded?.events.map((e) => (e.kind === 'user' ? e.text : ''))).toEqual(['hello', 'again']);
      expect(loaded?.events[1]?.delta).toEqual({ count: 2, note: null });
      expect(loaded?.state).toEqual({ count: 2 });
      const summary = (await store.listSessions({ appName: app, userId: 'u3' }))[0];
      expect(summary?.eventCount).toBe(2);
      expect(summary?.version).toBe(2);
    });

    it('never persists temp: keys but keeps them in the in-memory view', async () => {
      const session = await store.createSession({ appName: app, userId: 'u4', state: { 'temp:seed': 1 } });
      expect(session.state['temp:seed']).toBeUndefined();
      await store.appendEvent(session, userEvent('x', { 'temp:report:a': 'BODY', kept: true }));
      expect(session.state['temp:report:a']).toBe('BODY');
      const loaded = await store.getSession(session);
      expect(loaded?.state['temp:report:a']).toBeUndefined();
      expect(loaded?.state.kept).toBe(true);
      expect(JSON.stringify(loaded?.events)).not.toContain('temp:');
    });

    it("shares user: state across a user's sessions and app: state across the app", async () => {
      const sessionA = await store.createSession({ appName: app, userId: 'u5' });
      const sessionB = await store.createSession({ appName: app, userId: 'u5' });
      const sessionC = await store.createSession({ appName: app, userId: 'u6' });
      await store.appendEvent(sessionA, userEvent('x', { 'user:lang': 'fr', 'app:motd': 'hi', own: 1 }));
      const lb = await store.getSession(sessionB);
      const lc = await store.getSession(sessionC);
      expect(lb?.state['user:lang']).toBe('fr');
      expect(lb?.state['app:motd']).toBe('hi');
      expect(lb?.state.own).toBeUndefined();
      expect(lc?.state['user:lang']).toBeUndefined();
      expect(lc?.state['app:motd']).toBe('hi');
    });

    it('refuses an append on a stale version with a typed, retryable conflict and changes nothing', async () => {
      const session = await store.createSession({ appName: app, userId: 'u7' });
      const copy = (await store.getSession(session))!;
      await store.appendEvent(session, userEvent('first', { k: 1 }));
      const err = await store.appendEvent(copy, userEvent('stale', { k: 2 })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VersionConflictError);
      expect(PagewiseError.isInstance(err) && err.retryable).toBe(true);
      const loaded = await store.getSession(session);
      expect(loaded?.events).toHaveLength(1);
      expect(loaded?.state.k).toBe(1);
      expect(copy.version).toBe(0);
    });

    it('refuses an append to a deleted session', async () => {
      const session = await store.createSession({ appName: app, userId: 'u8' });
      await store.deleteSession(session);
      await expect(store.appendEvent(session, userEvent('x'))).rejects.toBeInstanceOf(VersionConflictError);
    });

    it('round-trips every event kind', async () => {
      const session = await store.createSession({ appName: app, userId: 'u9' });
      const base = { invocationId: 'i', timestamp: 1, author: 'agent' };
      const events: SessionEvent[] = [
        {
          ...base,
          id: randomUUID(),
          kind: 'model',
          text: 't',
          toolCalls: [{ toolCallId: 'c1', toolName: 'x', input: { a: [1, 'b'] } }],
          usage: { promptTokens: 3, completionTokens: 2 },
        },
        {
          ...base,
          id: randomUUID(),
          kind: 'tool-result',
          toolCallId: 'c1',
          toolName: 'x',
          output: 'ok',
          isError: false,
          delta: { r: { n: 1 } },
        },
        {
          ...base,
          id: randomUUID(),
          kind: 'tool-result',
          toolCallId: 'c2',
          toolName: 'x',
          output: '[pagewise] Compressed from 900 tokens; the full result is not available to you in this call.',
          isError: false,
          compression: { guideline: 'observation-default@1', backend: 'extractive', originalTokens: 900 },
        },
        { ...base, id: randomUUID(), kind: 'transfer', from: 'a', to: 'b' },
        { ...base, id: randomUUID(), kind: 'escalate', reason: 'done' },
        { ...base, id: randomUUID(), kind: 'compaction', fromEventId: 'a', toEventId: 'b', summary: 's' },
      ];
      for (const event of events) await store.appendEvent(session, event);
      const loaded = await store.getSession(session);
      expect(loaded?.events).toEqual(events);
    });

    it('appends a batch atomically, in order, and bumps the version by its length', async () => {
      const session = await store.createSession({ appName: `${app}-batch`, userId: 'b1' });
      const batch = [userEvent('one', { a: 1 }), userEvent('two', { a: 2, b: true }), userEvent('three', { b: null })];
      const out = await store.appendEvents(session, batch);
      expect(out.map((e) => e.id)).toEqual(batch.map((e) => e.id));
      expect(session.version).toBe(3);
      expect(session.events).toHaveLength(3);
      expect(session.state).toEqual({ a: 2 });
      const loaded = await store.getSession(session);
      expect(loaded?.version).toBe(3);
      expect(loaded?.events.map((e) => e.id)).toEqual(batch.map((e) => e.id));
      expect(loaded?.state).toEqual({ a: 2 });
    });

    it('reports shared-key versions: bumped by every write, kept after a delete, absent when never written', async () => {
      const sessionA = await store.createSession({ appName: app, userId: 'v1', state: { 'user:seed': 'x' } });
      expect(sessionA.sharedVersions?.['user:seed']).toBe(1);
      expect(sessionA.sharedVersions?.['user:never']).toBeUndefined();
      await store.appendEvent(sessionA, userEvent('w', { 'user:k': 1, 'app:v1-k': 'a' }));
      await store.appendEvent(sessionA, userEvent('w', { 'user:k': 2 }));
      expect(sessionA.sharedVersions).toMatchObject({ 'user:k': 2, 'app:v1-k': 1 });
      await store.appendEvent(sessionA, userEvent('d', { 'user:k': null }));
      expect(sessionA.state['user:k']).toBeUndefined();
      expect(sessionA.sharedVersions?.['user:k']).toBe(3);
      const other = await store.createSession({ appName: app, userId: 'v1' });
      expect(other.state['user:k']).toBeUndefined();
      expect(other.sharedVersions).toMatchObject({ 'user:k': 3, 'user:seed': 1, 'app:v1-k': 1 });
    });

    it('refuses an append whose read of a user: key is stale, changing nothing (no lost increment)', async () => {
      const sessionA = await store.createSession({ appName: app, userId: 'c1' });
      const sessionB = await store.createSession({ appName: app, userId: 'c1' });
      await store.appendEvent(sessionA, incrementEvent(sessionA, 'user:count'));
      const bStale = (await store.getSession(sessionB))!;
      const bOther = (await store.getSession(sessionB))!;
      // Two sessions of one user both read user:count = 1 ...
      await store.appendEvent(sessionA, incrementEvent(sessionA, 'user:count'));
      // ... the second writer's increment was computed from a version that has moved.
      const err = await store.appendEvent(bStale, incrementEvent(bStale, 'user:count')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SharedStateConflictError);
      expect(err).toBeInstanceOf(VersionConflictError);
      expect(PagewiseError.isInstance(err) && err.retryable).toBe(true);
      expect((err as SharedStateConflictError).key).toBe('user:count');
      expect((err as Error).message).toMatch(/user:count.*Reload/);
      expect(bStale.version).toBe(0);
      expect(bStale.events).toHaveLength(0);
      const loaded = await store.getSession(sessionB);
      expect(loaded?.events).toHaveLength(0);
      expect(loaded?.state['user:count']).toBe(2);
      // Reloaded and recomputed, it goes through and counts.
      refreshSession(bOther, loaded!);
      await store.appendEvent(bOther, incrementEvent(bOther, 'user:count'));
      expect((await store.getSession(sessionA))?.state['user:count']).toBe(3);
    });

    it('checks app: keys across users, and reads of absent keys', async () => {
      const key = `app:${randomUUID().slice(0, 8)}`;
      const sessionA = await store.createSession({ appName: app, userId: 'x1' });
      const sessionB = await store.createSession({ appName: app, userId: 'x2' });
      expect(sessionA.sharedVersions?.[key]).toBeUndefined();
      // sessionB read the key while absent (version 0); sessionA creates it meanwhile.
      const bRead = incrementEvent(sessionB, key);
      await store.appendEvent(sessionA, incrementEvent(sessionA, key));
      await expect(store.appendEvent(sessionB, bRead)).rejects.toBeInstanceOf(SharedStateConflictError);
      refreshSession(sessionB, (await store.getSession(sessionB))!);
      await store.appendEvent(sessionB, incrementEvent(sessionB, key));
      expect((await store.getSession(sessionA))?.state[key]).toBe(2);
    });

    it('never reuses a version when a key is deleted and written again', async () => {
      const sessionA = await store.createSession({ appName: app, userId: 'aba' });
      const sessionB = await store.createSession({ appName: app, userId: 'aba' });
      await store.appendEvent(sessionA, userEvent('w', { 'user:flag': 'on' }));
      const bView = (await store.getSession(sessionB))!;
      const read = userEvent('r', { own: 1 }, { 'user:flag': bView.sharedVersions!['user:flag']! });
      await store.appendEvent(sessionA, userEvent('del', { 'user:flag': null }));
      await store.appendEvent(sessionA, userEvent('again', { 'user:flag': 'on' }));
      await expect(store.appendEvent(bView, read)).rejects.toBeInstanceOf(SharedStateConflictError);
    });

    it('judges a read inside a batch after the writes of the events before it', async () => {
      const session = await store.createSession({ appName: app, userId: 'bt' });
      const version = session.sharedVersions?.['user:n'] ?? 0;
      // The second event read the value the first one wrote: version `version` + 1.
      await store.appendEvents(session, [
        userEvent('w', { 'user:n': 1 }, { 'user:n': version }),
        userEvent('w', { 'user:n': 2 }, { 'user:n': version + 1 }),
      ]);
      expect(session.state['user:n']).toBe(2);
      const before = (await store.getSession(session))!;
      // Here the second event read the value from before the batch: the whole batch is refused.
      const err = await store
        .appendEvents(before, [
          userEvent('w', { 'user:n': 3 }, { 'user:n': version + 2 }),
          userEvent('w', { 'user:n': 3 }, { 'user:n': version + 2 }),
        ])
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SharedStateConflictError);
      const loaded = await store.getSession(session);
      expect(loaded?.version).toBe(2);
      expect(loaded?.state['user:n']).toBe(2);
      expect(loaded?.sharedVersions?.['user:n']).toBe(version + 2);
    });

    it('refuses reads of keys that are not user: or app:', async () => {
      const session = await store.createSession({ appName: app, userId: 'rk' });
      await expect(store.appendEvent(session, userEvent('x', {}, { own: 0 }))).rejects.toThrow(
        /only user: and app: keys/,
      );
      expect((await store.getSession(session))?.version).toBe(0);
    });

    it('round-trips the reads of an event', async () => {
      const session = await store.createSession({ appName: app, userId: 'rr' });
      const event = userEvent('x', { 'user:z': 1 }, { 'user:z': 0 });
      await store.appendEvent(session, event);
      expect((await store.getSession(session))?.events[0]).toEqual(event);
    });

    it('loses no increment when writers of one user race with reload-and-retry', async () => {
      const sessions = await Promise.all([1, 2, 3].map(() => store.createSession({ appName: app, userId: 'race' })));
      const perWriter = 8;
      const conflicts: number[] = [];
      await Promise.all(
        sessions.map(async (session) => {
          let seen = 0;
          for (let written = 0; written < perWriter;) {
            try {
              await store.appendEvent(session, incrementEvent(session, 'user:hits'));
              written += 1;
            } catch (error) {
              if (!(error instanceof VersionConflictError)) throw error;
              seen += 1;
              refreshSession(session, (await store.getSession(session))!);
            }
          }
          conflicts.push(seen);
        }),
      );
      const loaded = await store.getSession(sessions[0]!);
      expect(loaded?.state['user:hits']).toBe(3 * perWriter);
      expect(loaded?.sharedVersions?.['user:hits']).toBe(3 * perWriter);
      for (const session of sessions) expect((await store.getSession(session))?.events).toHaveLength(perWriter);
    });

    it('applies increments to the stored value, so stale views of many sessions all count without conflict', async () => {
      const sessionA = await store.createSession({ appName: app, userId: 'inc' });
      const sessionB = await store.createSession({ appName: app, userId: 'inc' });
      const inc = (key: string, by: number): SessionEvent => ({ ...userEvent(`+${by}`), increments: { [key]: by } });
      await store.appendEvent(sessionA, inc('user:n', 2));
      // sessionB never reloaded: its view says user:n is absent, yet its increment adds to what is stored.
      await store.appendEvent(sessionB, inc('user:n', 3));
      expect(sessionB.state['user:n']).toBe(5);
      expect(sessionB.sharedVersions?.['user:n']).toBe(2);
      await store.appendEvent(sessionA, inc('user:n', -1));
      expect(sessionA.state['user:n']).toBe(4);
      expect((await store.getSession(sessionB))?.state['user:n']).toBe(4);
      // An increment is a write: a reader of the old value is refused.
      await expect(
        store.appendEvent(sessionB, userEvent('rmw', { 'user:n': 6 }, { 'user:n': 2 })),
      ).rejects.toBeInstanceOf(SharedStateConflictError);
    });

    it('increments session and temp: keys too, keeping temp: ones in memory only', async () => {
      const session = await store.createSession({ appName: app, userId: 'inc2', state: { n: 1 } });
      const event: SessionEvent = { ...userEvent('x'), increments: { n: 10, 'temp:t': 1, 'app:inc2-total': 1 } };
      const [persisted] = await store.appendEvents(session, [
        event,
        { ...userEvent('y'), increments: { 'temp:t': 1 } },
      ]);
      expect(session.state).toMatchObject({ n: 11, 'temp:t': 2, 'app:inc2-total': 1 });
      expect(persisted?.increments).toEqual({ n: 10, 'app:inc2-total': 1 });
      const loaded = await store.getSession(session);
      expect(loaded?.state).toMatchObject({ n: 11, 'app:inc2-total': 1 });
      expect(loaded?.state['temp:t']).toBeUndefined();
      expect(loaded?.events[0]?.increments).toEqual({ n: 10, 'app:inc2-total': 1 });
      expect(loaded?.events[1]?.increments).toBeUndefined();
    });

    it('refuses to increment a value that is not a number, changing nothing', async () => {
      const session = await store.createSession({ appName: app, userId: 'inc3', state: { 'user:name': 'ada' } });
      await expect(
        store.appendEvent(session, { ...userEvent('x', { other: 1 }), increments: { 'user:name': 1 } }),
      ).rejects.toThrow(/Cannot increment state key "user:name".*not a number/);
      const loaded = await store.getSession(session);
      expect(loaded?.version).toBe(0);
      expect(loaded?.state).toMatchObject({ 'user:name': 'ada' });
      expect(loaded?.state.other).toBeUndefined();
    });

    it('refuses a batch holding an event whose text fields are not strings, storing none of it', async () => {
      const session = await store.createSession({ appName: app, userId: 'shape' });
      const base = { invocationId: 'i', author: 'a', timestamp: 1 };
      const good = userEvent('first');
      const bad = {
        ...base,
        kind: 'tool-result',
        id: randomUUID(),
        toolCallId: 'c1',
        toolName: 'lookup',
        output: { status: 'delivered' },
        isError: false,
      } as unknown as SessionEvent;
      await expect(store.appendEvents(session, [good, bad])).rejects.toThrow(
        /tool-result\): output must be a string, got object.*JSON\.stringify/,
      );
      const unknown = { ...base, kind: 'note', id: randomUUID(), text: 'x' } as unknown as SessionEvent;
      await expect(store.appendEvents(session, [unknown])).rejects.toThrow(/unknown kind "note"/);
      const loaded = await store.getSession(session);
      expect(loaded?.version).toBe(0);
      expect(loaded?.events).toEqual([]);
      expect(session.version).toBe(0);
    });

    it('keeps state keys that name Object members (__proto__, constructor, toString) as plain keys', async () => {
      const initial = JSON.parse('{"__proto__": {"polluted": 1}, "a": 2}') as Record<string, never>;
      const session = await store.createSession({ appName: app, userId: 'proto', state: initial });
      const delta = JSON.parse('{"__proto__": {"polluted": 2}, "constructor": 3, "temp:__proto__": 4}') as Record<
        string,
        unknown
      >;
      const event: SessionEvent = { ...userEvent('x', delta), increments: { toString: 5, constructor: 1 } };
      const [persisted] = await store.appendEvents(session, [event, { ...userEvent('y'), increments: { valueOf: 6 } }]);
      const expected = JSON.parse(
        '{"__proto__": {"polluted": 2}, "a": 2, "constructor": 4, "toString": 5, "valueOf": 6}',
      );
      // Own fields only, app: keys of the other tests left out.
      const own = (record: object) =>
        Object.fromEntries(
          Object.keys(record)
            .filter((k) => !k.startsWith('app:'))
            .map((k) => [k, (record as Record<string, unknown>)[k]]),
        );
      expect(Object.getPrototypeOf(session.state)).toBe(Object.prototype);
      expect(own(session.state)).toStrictEqual({ ...expected, 'temp:__proto__': 4 });
      expect(Object.keys(persisted?.delta ?? {}).sort()).toEqual(['__proto__', 'constructor']);
      const loaded = await store.getSession(session);
      expect(Object.getPrototypeOf(loaded?.state)).toBe(Object.prototype);
      expect(own(loaded!.state)).toStrictEqual(expected);
      expect(Object.keys(loaded?.events[0]?.delta ?? {}).sort()).toEqual(['__proto__', 'constructor']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('loses no increment when writers of one user race with increments', async () => {
      const sessions = await Promise.all(
        [1, 2, 3].map(() => store.createSession({ appName: app, userId: 'race-inc' })),
      );
      await Promise.all(
        sessions.map(async (session) => {
          for (let written = 0; written < 8; written++)
            await store.appendEvent(session, {
              ...userEvent('+1'),
              increments: { 'user:hits': 1, [`app:race-inc`]: 1 },
            });
        }),
      );
      const loaded = await store.getSession(sessions[0]!);
      expect(loaded?.state['user:hits']).toBe(24);
      expect(loaded?.state['app:race-inc']).toBe(24);
    });

    it('keeps temp: keys when a session is refreshed after a conflict', async () => {
      const session = await store.createSession({ appName: `${app}-refresh`, userId: 'rf' });
      await store.appendEvent(session, userEvent('mine', { 'temp:page': 'body', own: 1 }));
      const copy = (await store.getSession(session))!;
      await store.appendEvent(copy, userEvent('elsewhere', { shared: 'theirs' }));
      // A refused append leaves the caller's session as it was.
      await expect(store.appendEvent(session, userEvent('late', { own: 2, 'temp:x': 1 }))).rejects.toBeInstanceOf(
        VersionConflictError,
      );
      expect(session.state).toEqual({ 'temp:page': 'body', own: 1 });
      expect(session.version).toBe(1);
      refreshSession(session, (await store.getSession(session))!);
      expect(session.state).toEqual({ own: 1, shared: 'theirs', 'temp:page': 'body' });
      expect(session.version).toBe(2);
      await store.appendEvent(session, userEvent('late', { own: 2 }));
      expect((await store.getSession(session))?.state).toEqual({ own: 2, shared: 'theirs' });
    });

    if (options.reopen) {
      it('keeps sessions, events and shared state across a reopen', async () => {
        const session = await store.createSession({ appName: app, userId: 'u10' });
        await store.appendEvent(session, userEvent('persisted', { 'user:x': 5, y: 'z' }));
        store = await options.reopen!(store);
        const loaded = await store.getSession(session);
        expect(loaded?.events).toHaveLength(1);
        expect(loaded?.state).toMatchObject({ 'user:x': 5, y: 'z' });
      });
    }
  });
}
