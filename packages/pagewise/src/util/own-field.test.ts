import { describe, expect, it } from 'vitest';
import { ownValue, setOwn } from './own-field.js';

describe('setOwn', () => {
  it('adds __proto__ as an own field and leaves the prototype alone', () => {
    const out: Record<string, unknown> = {};
    setOwn(out, '__proto__', { polluted: true });
    setOwn(out, 'a', 2);
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out).toStrictEqual(JSON.parse('{"__proto__": {"polluted": true}, "a": 2}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('overwrites an own __proto__ field, and it stays writable and deletable', () => {
    const out = JSON.parse('{"__proto__": 1}') as Record<string, unknown>;
    setOwn(out, '__proto__', 2);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')).toEqual({
      value: 2,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    delete out['__proto__'];
    expect(Object.keys(out)).toEqual([]);
  });

  it('shadows inherited names such as constructor with an own field', () => {
    const out: Record<string, unknown> = {};
    setOwn(out, 'constructor', 1);
    expect(Object.hasOwn(out, 'constructor')).toBe(true);
    expect(out.constructor).toBe(1);
  });
});

describe('ownValue', () => {
  it('finds own fields only, never inherited members', () => {
    const parsed = JSON.parse('{"__proto__": 3, "a": 2}') as Record<string, number>;
    expect(ownValue(parsed, '__proto__')).toBe(3);
    expect(ownValue(parsed, 'a')).toBe(2);
    expect(ownValue({} as Record<string, number>, '__proto__')).toBeUndefined();
    expect(ownValue({} as Record<string, number>, 'constructor')).toBeUndefined();
    expect(ownValue({} as Record<string, number>, 'toString')).toBeUndefined();
  });
});
