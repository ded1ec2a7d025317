import { describe, expect, it } from 'vitest';
import { sessionStoreContract } from '../../../../test/contracts/session-store.contract.js';
import { InMemorySessionStore } from './memory-store.js';

sessionStoreContract('memory', async () => new InMemorySessionStore());

describe('InMemorySessionStore: stored events are shared, read-only', () => {
  it('an event of a loaded session cannot be changed, so no caller can alter what the store holds', async () => {
    const store = new InMemorySessionStore();
    const session = await store.createSession({ appName: 'a', userId: 'u' });
    await store.appendEvent(session, {
      id: 'e1',
      invocationId: 'i',
      author: 'user',
      timestamp: 1,
      kind: 'user',
      text: 'original',
    });
    const loaded = (await store.getSession(session))!;
    expect(() => {
      (loaded.events[0] as { text: string }).text = 'changed';
    }).toThrow(TypeError);
    loaded.events.push({ id: 'e2', invocationId: 'i', author: 'user', timestamp: 2, kind: 'user', text: 'local' });
    const again = (await store.getSession(session))!;
    expect(again.events).toHaveLength(1);
    expect(again.events[0]).toMatchObject({ text: 'original' });
  });
});
