import { describe, expect, it } from 'vitest';
import { PendingWrites, stateSource, TrackedState } from './tracked-state.js';

describe('TrackedState', () => {
  it('records reads, not its own writes, and hands out copies', () => {
    const base = { list: [1, 2], 'user:n': 3 };
    const s = new TrackedState(stateSource(base));
    const list = s.get<number[]>('list')!;
    list.push(99);
    expect(base.list).toEqual([1, 2]);
    s.set('own', 1);
    expect(s.get('own')).toBe(1);
    expect(s.sharedReads(stateSource(base), { 'user:n': 7 })).toBeUndefined();
    expect(s.has('user:n')).toBe(true);
    expect(s.sharedReads(stateSource(base), { 'user:n': 7 })).toEqual({ 'user:n': 7 });
  });

  it('is stale when a read value or a listed prefix changes, and not otherwise', () => {
    const base = { 'r:a': 1, 'r:b': { x: 1 }, other: 1 };
    const s = new TrackedState(stateSource(base));
    s.get('r:b');
    s.keys('r:');
    expect(s.isStale(stateSource({ ...base, other: 2 }))).toBe(false);
    expect(s.isStale(stateSource({ ...base, 'r:b': { x: 1 } }))).toBe(false);
    expect(s.isStale(stateSource({ ...base, 'r:b': { x: 2 } }))).toBe(true);
    expect(s.isStale(stateSource({ ...base, 'r:c': 0 }))).toBe(true);
  });

  it('increments without reading, folds into its own writes, and refuses non-numbers', () => {
    const s = new TrackedState(stateSource({ n: 5, name: 'ada' }));
    s.increment('n', 2);
    expect(s.increments).toEqual({ n: 2 });
    expect(s.isStale(stateSource({ n: 100, name: 'ada' }))).toBe(false);
    expect(s.get('n')).toBe(7);
    s.set('m', 1);
    s.increment('m', 4);
    expect(s.delta).toEqual({ m: 5 });
    s.set('n', 0);
    expect(s.increments).toEqual({});
    expect(() => s.increment('name')).toThrow(/not a number/);
    expect(() => s.increment('n', Number.NaN)).toThrow(/finite/);
  });

  it('keeps keys that name Object members (__proto__, constructor) as keys, and reads no inherited member', () => {
    const base = JSON.parse('{"__proto__": {"polluted": 1}}') as Record<string, never>;
    const s = new TrackedState(stateSource(base));
    expect(s.get('__proto__')).toEqual({ polluted: 1 });
    expect(s.get('constructor')).toBeUndefined();
    expect(s.has('toString')).toBe(false);
    s.increment('constructor', 2);
    s.increment('constructor', 1);
    s.set('__proto__', { polluted: 2 });
    expect(s.increments).toStrictEqual(JSON.parse('{"constructor": 3}'));
    expect(s.get('constructor')).toBe(3);
    expect(Object.getPrototypeOf(s.delta)).toBe(Object.prototype);
    expect(Object.keys(s.delta)).toEqual(['__proto__']);
    expect(() => s.increment('__proto__')).toThrow(/not a number/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('PendingWrites', () => {
  it('shows earlier writes of a batch and the versions later reads must expect', () => {
    const p = new PendingWrites();
    p.add({ 'user:a': 'x' });
    p.add({}, { 'user:n': 2 });
    p.add({}, { 'user:n': 1 });
    const view = p.over({ 'user:n': 10, 'user:a': 'old' });
    expect(view.get('user:a')).toBe('x');
    expect(view.get('user:n')).toBe(13);
    // Overwritten in the batch: no check needed. Incremented twice: stored version + 2.
    expect(view.readVersion('user:a', { 'user:a': 4 })).toBeUndefined();
    expect(view.readVersion('user:n', { 'user:n': 4 })).toBe(6);
    expect(view.readVersion('user:z', undefined)).toBe(0);
  });

  it('keeps a __proto__ key of a batch write as a key, and reads no inherited member', () => {
    const p = new PendingWrites();
    p.add(JSON.parse('{"__proto__": {"polluted": 1}}') as Record<string, never>, { constructor: 2, toString: 1 });
    p.add({}, { constructor: 1 });
    const view = p.over({});
    expect(view.get('__proto__')).toEqual({ polluted: 1 });
    expect(view.get('constructor')).toBe(3);
    expect(view.get('toString')).toBe(1);
    expect(view.get('valueOf')).toBeUndefined();
    expect([...view.keys()].sort()).toEqual(['__proto__', 'constructor', 'toString']);
    expect(view.readVersion('toString', {})).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
