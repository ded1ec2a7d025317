import { State } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { adkStateRecord } from './state.js';

describe('adkStateRecord', () => {
  it('keeps a state key named __proto__ as a field and leaves deleted keys out', () => {
    const value = JSON.parse('{"__proto__": {"polluted": 1}, "a": 2, "gone": null}') as Record<string, unknown>;
    const record = adkStateRecord(new State(value));
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.keys(record)).toEqual(['__proto__', 'a']);
    expect(record).toStrictEqual(JSON.parse('{"__proto__": {"polluted": 1}, "a": 2}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
