import { describe, expect, it } from 'vitest';
import { PendingWrites, stateSource, TrackedState } from './tracked-state.js';

describe('TrackedState', () => {
  it('records reads, not its own writes, and hands out copies', () => {
    const base = { list: [1, 2], 'user:n': 3 };
    const state = new TrackedState(stateSource(base));
    const list = state.get<number[]>('list')!;
    list.push(99);
    expect(base.list).toEqual([1, 2]);
    state.set('own', 1);
    expect(state.get('own')).toBe(1);
    expect(state.sharedReads(stateSource(base), { 'user:n': 7 })).toBeUndefined();
    expect(state.has('user:n')).toBe(true);
    expect(state.sharedReads(stateSource(base), { 'user:n': 7 })).toEqual({ 'user:n': 7 });
  });

  it('is stale when a read value or a listed prefix changes, and not otherwise', () => {
    const base = { 'r:a': 1, 'r:b': { x: 1 }, other: 1 };
    const state = new TrackedState(stateSource(base));
    state.get('r:b');
    state.keys('r:');
    expect(state.isStale(stateSource({ ...base, other: 2 }))).toBe(false);
    expect(state.isStale(stateSource({ ...base, 'r:b': { x: 1 } }))).toBe(false);
    expect(state.isStale(stateSource({ ...base, 'r:b': { x: 2 } }))).toBe(true);
    expect(state.isStale(stateSource({ ...base, 'r:c': 0 }))).toBe(true);
  });

  it('increments without reading, folds into its own writes, and refuses non-numbers', () => {
    const state = new TrackedState(stateSource({ n: 5, name: 'ada' }));
    state.increment('n', 2);
    expect(state.increments).toEqual({ n: 2 });
    expect(state.isStale(stateSource({ n: 100, name: 'ada' }))).toBe(false);
    expect(state.get('n')).toBe(7);
    state.set('m', 1);
    state.increment('m', 4);
    expect(state.delta).toEqual({ m: 5 });
    state.set('n', 0);
    expect(state.increments).toEqual({});
    expect(() => state.increment('name')).toThrow(/not a number/);
    expect(() => state.increment('n', Number.NaN)).toThrow(/finite/);
  });

  it('keeps keys that name Object members (__proto__, constructor) as keys, and reads no inherited member', () => {
    const base = JSON.parse('{"__proto__": {"polluted": 1}}') as Record<string, never>;
    const state = new TrackedState(stateSource(base));
    expect(state.get('__proto__')).toEqual({ polluted: 1 });
    expect(state.get('constructor')).toBeUndefined();
    expect(state.has('toString')).toBe(false);
    state.increment('constructor', 2);
    state.increment('constructor', 1);
    state.set('__proto__', { polluted: 2 });
    expect(state.increments).toStrictEqual(JSON.parse('{"constructor": 3}'));
    expect(state.get('constructor')).toBe(3);
    expect(Object.getPrototypeOf(state.delta)).toBe(Object.prototype);
    expect(Object.keys(state.delta)).toEqual(['__proto__']);
    expect(() => state.increment('__proto__')).toThrow(/not a number/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('PendingWrites', () => {
  it('shows earlier writes of a batch and the versions later reads must expect', () => {
    const pending = new PendingWrites();
    pending.add({ 'user:a': 'x' });
    pending.add({}, { 'user:n': 2 });
    pending.add({}, { 'user:n': 1 });
    const view = pending.over({ 'user:n': 10, 'user:a': 'old' });
    expect(view.get('user:a')).toBe('x');
    expect(view.get('user:n')).toBe(13);
    // Overwritten in the batch: no check needed. Incremented twice: stored version + 2.
    expect(view.readVersion('user:a', { 'user:a': 4 })).toBeUndefined();
    expect(view.readVersion('user:n', { 'user:n': 4 })).toBe(6);
    expect(view.readVersion('user:z', undefined)).toBe(0);
  });

  it('keeps a __proto__ key of a batch write as a key, and reads no inherited member', () => {
    const pending = new PendingWrites();
    pending.add(JSON.parse('{"__proto__": {"polluted": 1}}') as Record<string, never>, { constructor: 2, toString: 1 });
    pending.add({}, { constructor: 1 });
    const view = pending.over({});
    expect(view.get('__proto__')).toEqual({ polluted: 1 });
    expect(view.get('constructor')).toBe(3);
    expect(view.get('toString')).toBe(1);
    expect(view.get('valueOf')).toBeUndefined();
    expect([...view.keys()].sort()).toEqual(['__proto__', 'constructor', 'toString']);
    expect(view.readVersion('toString', {})).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
