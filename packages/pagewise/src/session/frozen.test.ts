import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze, frozenCopy } from './frozen.js';

function allFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(allFrozen);
}

describe('frozenCopy', () => {
  it('gives what deepFreeze(structuredClone(value)) gives for JSON values, sharing nothing with the value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = frozenCopy(value);
        expect(copy).toStrictEqual(deepFreeze(structuredClone(value)));
        expect(allFrozen(copy)).toBe(true);
        if (typeof value === 'object' && value !== null) expect(copy).not.toBe(value);
        if (typeof value === 'object' && value !== null) expect(Object.isFrozen(value)).toBe(false);
      }),
    );
  });

  it('keeps an own __proto__ key (as JSON.parse makes it from untrusted text) as a field, not a prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 2}') as Record<string, unknown>;
    const copy = frozenCopy(parsed);
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(copy).toStrictEqual(structuredClone(parsed));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps undefined fields and array holes as structuredClone does', () => {
    const sparse: unknown[] = [1];
    sparse[3] = 2;
    const value = { a: undefined, b: sparse, c: Object.assign(Object.create(null), { d: 1 }) };
    expect(frozenCopy(value)).toStrictEqual(structuredClone(value));
    expect(Object.keys(frozenCopy(value))).toEqual(['a', 'b', 'c']);
    expect(2 in (frozenCopy(value).b as unknown[])).toBe(false);
  });

  it('leaves values that are not plain data to structuredClone: copied, or refused, as it does', () => {
    const at = new Date(0);
    const dated = frozenCopy({ at, m: new Map([[1, 2]]) });
    expect(dated.at).toBeInstanceOf(Date);
    expect(dated.at).not.toBe(at);
    expect(dated.m.get(1)).toBe(2);
    expect(() => frozenCopy({ f: () => 1 })).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const copy = frozenCopy(cyclic);
    expect(copy.self).toBe(copy);
    expect(Object.isFrozen(copy)).toBe(true);
  });

  it('copies nesting deeper than it walks itself through structuredClone', () => {
    let deep: unknown = { leaf: true };
    for (let depth = 0; depth < 200; depth++) deep = [deep];
    const copy = frozenCopy(deep);
    expect(copy).toStrictEqual(structuredClone(deep));
    expect(allFrozen(copy)).toBe(true);
  });
});
