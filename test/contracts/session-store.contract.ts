/**
 * The SessionStore contract suite: every store implementation runs these same tests.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VersionConflictError, PagewiseError } from '../../src/errors.js';
import type { SessionStore } from '../../src/session/store.js';
import type { SessionEvent } from '../../src/session/types.js';

let counter = 0;
function userEvent(text: string, delta?: Record<string, unknown>): SessionEvent {
  counter += 1;
  return {
    kind: 'user',
    id: `e-${counter}-${randomUUID()}`,
    invocationId: 'inv-1',
    author: 'user',
    timestamp: Date.now(),
    text,
    ...(delta ? { delta: delta as never } : {}),
  };
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
      const a = await store.createSession({ appName: app, userId: 'u1', state: { topic: 'x' } });
      const b = await store.createSession({ appName: app, userId: 'u2', sessionId: 'fixed-id' });
      expect(a.sessionId).toMatch(/.+/);
      expect(b.sessionId).toBe('fixed-id');
      expect(a.version).toBe(0);
      const got = await store.getSession(a);
      expect(got?.state.topic).toBe('x');
      expect((await store.listSessions({ appName: app })).map((s) => s.sessionId).sort()).toEqual([a.sessionId, 'fixed-id'].sort());
      expect((await store.listSessions({ appName: app, userId: 'u2' })).map((s) => s.sessionId)).toEqual(['fixed-id']);
      await expect(store.createSession({ appName: app, userId: 'u2', sessionId: 'fixed-id' })).rejects.toThrow(/already exists/);
      expect(await store.deleteSession(b)).toBe(true);
      expect(await store.deleteSession(b)).toBe(false);
      expect(await store.getSession(b)).toBeUndefined();
    });

    it('appends events with deltas atomically and increments the version', async () => {
      const s = await store.createSession({ appName: app, userId: 'u3' });
      await store.appendEvent(s, userEvent('hello', { count: 1, note: 'a' }));
      await store.appendEvent(s, userEvent('again', { count: 2, note: null }));
      expect(s.version).toBe(2);
      expect(s.state).toEqual({ count: 2 });
      const loaded = await store.getSession(s);
      expect(loaded?.version).toBe(2);
      expect(loaded?.events.map((e) => (e.kind === 'user' ? e.text : ''))).toEqual(['hello', 'again']);
      expect(loaded?.events[1]?.delta).toEqual({ count: 2, note: null });
      expect(loaded?.state).toEqual({ count: 2 });
      const summary = (await store.listSessions({ appName: app, userId: 'u3' }))[0];
      expect(summary?.eventCount).toBe(2);
      expect(summary?.version).toBe(2);
    });

    it('never persists temp: keys but keeps them in the in-memory view', async () => {
      const s = await store.createSession({ appName: app, userId: 'u4', state: { 'temp:seed': 1 } });
      expect(s.state['temp:seed']).toBeUndefined();
      await store.appendEvent(s, userEvent('x', { 'temp:report:a': 'BODY', kept: true }));
      expect(s.state['temp:report:a']).toBe('BODY');
      const loaded = await store.getSession(s);
      expect(loaded?.state['temp:report:a']).toBeUndefined();
      expect(loaded?.state.kept).toBe(true);
      expect(JSON.stringify(loaded?.events)).not.toContain('temp:');
    });

    it('shares user: state across a user\'s sessions and app: state across the app', async () => {
      const a = await store.createSession({ appName: app, userId: 'u5' });
      const b = await store.createSession({ appName: app, userId: 'u5' });
      const c = await store.createSession({ appName: app, userId: 'u6' });
      await store.appendEvent(a, userEvent('x', { 'user:lang': 'fr', 'app:motd': 'hi', own: 1 }));
      const lb = await store.getSession(b);
      const lc = await store.getSession(c);
      expect(lb?.state['user:lang']).toBe('fr');
      expect(lb?.state['app:motd']).toBe('hi');
      expect(lb?.state.own).toBeUndefined();
      expect(lc?.state['user:lang']).toBeUndefined();
      expect(lc?.state['app:motd']).toBe('hi');
    });

    it('refuses an append on a stale version with a typed, retryable conflict and changes nothing', async () => {
      const s = await store.createSession({ appName: app, userId: 'u7' });
      const copy = (await store.getSession(s))!;
      await store.appendEvent(s, userEvent('first', { k: 1 }));
      const err = await store.appendEvent(copy, userEvent('stale', { k: 2 })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VersionConflictError);
      expect(PagewiseError.isInstance(err) && err.retryable).toBe(true);
      const loaded = await store.getSession(s);
      expect(loaded?.events).toHaveLength(1);
      expect(loaded?.state.k).toBe(1);
      expect(copy.version).toBe(0);
    });

    it('refuses an append to a deleted session', async () => {
      const s = await store.createSession({ appName: app, userId: 'u8' });
      await store.deleteSession(s);
      await expect(store.appendEvent(s, userEvent('x'))).rejects.toBeInstanceOf(VersionConflictError);
    });

    it('round-trips every event kind', async () => {
      const s = await store.createSession({ appName: app, userId: 'u9' });
      const base = { invocationId: 'i', timestamp: 1, author: 'agent' };
      const events: SessionEvent[] = [
        { ...base, id: randomUUID(), kind: 'model', text: 't', toolCalls: [{ toolCallId: 'c1', toolName: 'x', input: { a: [1, 'b'] } }], usage: { promptTokens: 3, completionTokens: 2 } },
        { ...base, id: randomUUID(), kind: 'tool-result', toolCallId: 'c1', toolName: 'x', output: 'ok', isError: false, delta: { r: { n: 1 } } },
        { ...base, id: randomUUID(), kind: 'transfer', from: 'a', to: 'b' },
        { ...base, id: randomUUID(), kind: 'escalate', reason: 'done' },
        { ...base, id: randomUUID(), kind: 'compaction', fromEventId: 'a', toEventId: 'b', summary: 's' },
      ];
      for (const e of events) await store.appendEvent(s, e);
      const loaded = await store.getSession(s);
      expect(loaded?.events).toEqual(events);
    });

    if (options.reopen) {
      it('keeps sessions, events and shared state across a reopen', async () => {
        const s = await store.createSession({ appName: app, userId: 'u10' });
        await store.appendEvent(s, userEvent('persisted', { 'user:x': 5, y: 'z' }));
        store = await options.reopen!(store);
        const loaded = await store.getSession(s);
        expect(loaded?.events).toHaveLength(1);
        expect(loaded?.state).toMatchObject({ 'user:x': 5, y: 'z' });
      });
    }
  });
}
