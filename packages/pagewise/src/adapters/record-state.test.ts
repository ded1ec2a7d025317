import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../session/types.js';
import { deltaStateAccess, recordStateAccess } from './record-state.js';

const parsed = (text: string) => JSON.parse(text) as Record<string, JsonValue>;

describe('recordStateAccess', () => {
  it('keeps keys that name Object members (__proto__, constructor) as keys, and reads no inherited member', () => {
    const record = parsed('{"a": 1}');
    const state = recordStateAccess(record);
    expect(state.get('constructor')).toBeUndefined();
    expect(state.get('__proto__')).toBeUndefined();
    state.set('__proto__', { polluted: true });
    state.increment('constructor', 2);
    state.increment('toString');
    expect(record).toStrictEqual(parsed('{"a": 1, "__proto__": {"polluted": true}, "constructor": 2, "toString": 1}'));
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(state.get('__proto__')).toEqual({ polluted: true });
    expect(state.keys().sort()).toEqual(['__proto__', 'a', 'constructor', 'toString']);
    state.delete('__proto__');
    expect(state.has('__proto__')).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('deltaStateAccess', () => {
  it('records a write to __proto__ in its delta and reads no inherited member of the state', () => {
    const state = parsed('{"__proto__": {"polluted": 1}}');
    const { access, delta } = deltaStateAccess(state);
    expect(access.get('__proto__')).toEqual({ polluted: 1 });
    expect(access.has('constructor')).toBe(false);
    access.increment('constructor');
    access.set('__proto__', { polluted: 2 });
    access.delete('valueOf');
    expect(delta).toStrictEqual(parsed('{"constructor": 1, "__proto__": {"polluted": 2}, "valueOf": null}'));
    expect(Object.getPrototypeOf(delta)).toBe(Object.prototype);
    expect(access.keys().sort()).toEqual(['__proto__', 'constructor']);
    expect(state).toStrictEqual(parsed('{"__proto__": {"polluted": 1}}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
