/**
 * State access that remembers what it read. A tool's writes are only valid while what it read is
 * unchanged; recording the reads lets the runner tell, after a conflict or a write by an earlier call
 * of the same step, whether a tool call must be re-run, and lets the store check shared keys on append.
 * Increments are not reads: they are applied by the store to whatever value it holds, so they commute.
 */
import { isDeepStrictEqual } from 'node:util';
import { assertValidKey, scopeOf } from './state.js';
import type { JsonValue, StateDelta } from './types.js';
import { ownValue, setOwn } from '../util/own-field.js';

/** A read-only source of state values: the session view, possibly overlaid with a batch's writes. */
export interface StateSource {
  get(key: string): JsonValue | undefined;
  /** Every key present, in no particular order. */
  keys(): Iterable<string>;
  /**
   * The version the store will hold for `key` when an event appended after the pending writes is
   * checked: the stored version plus one per earlier write in the batch. `undefined` when the batch
   * overwrote the key, so its value no longer depends on the store and needs no check.
   */
  readVersion(key: string, stored: Readonly<Record<string, number>> | undefined): number | undefined;
}

function addNumber(key: string, current: JsonValue | undefined, by: number): number {
  if (current !== undefined && typeof current !== 'number') {
    throw new TypeError(
      `Cannot increment state key "${key}": it holds ${Array.isArray(current) ? 'an array' : typeof current}, not a number. Use set() for non-numeric values.`,
    );
  }
  return (current ?? 0) + by;
}

/**
 * The writes of the calls of a step that come before the one being checked: absolute values and
 * deletions, increments, and how many events wrote each key.
 */
export class PendingWrites {
  private readonly values: StateDelta = {};
  private readonly increments: Record<string, number> = {};
  private readonly writes = new Map<string, number>();

  /** Adds the writes of one more event of the batch. */
  add(delta: Readonly<StateDelta>, increments: Readonly<Record<string, number>> = {}): void {
    for (const [key, value] of Object.entries(delta)) {
      setOwn(this.values, key, value);
      delete this.increments[key];
      this.writes.set(key, (this.writes.get(key) ?? 0) + 1);
    }
    for (const [key, by] of Object.entries(increments)) {
      if (Object.hasOwn(this.values, key)) setOwn(this.values, key, addNumber(key, this.values[key] ?? undefined, by));
      else setOwn(this.increments, key, (ownValue(this.increments, key) ?? 0) + by);
      this.writes.set(key, (this.writes.get(key) ?? 0) + 1);
    }
  }

  /** The view of `base` with these writes applied. */
  over(base: Readonly<Record<string, JsonValue>>): StateSource {
    const stored = (key: string): JsonValue | undefined => (Object.hasOwn(base, key) ? base[key] : undefined);
    return {
      get: (key) => {
        if (Object.hasOwn(this.values, key)) return this.values[key] ?? undefined;
        const inc = ownValue(this.increments, key);
        return inc === undefined ? stored(key) : addNumber(key, stored(key), inc);
      },
      keys: () => {
        const all = new Set(Object.keys(base));
        for (const key of Object.keys(this.increments)) all.add(key);
        for (const [key, value] of Object.entries(this.values)) {
          if (value === null) all.delete(key);
          else all.add(key);
        }
        return all;
      },
      readVersion: (key, versions) =>
        Object.hasOwn(this.values, key)
          ? undefined
          : (ownValue(versions ?? {}, key) ?? 0) + (this.writes.get(key) ?? 0),
    };
  }
}

/** The view a tool call runs against when no other call's writes precede it: the session state. */
export function stateSource(base: Readonly<Record<string, JsonValue>>): StateSource {
  return new PendingWrites().over(base);
}

function keysWithPrefix(source: StateSource, prefix: string): string[] {
  const out: string[] = [];
  for (const key of source.keys()) if (key.startsWith(prefix)) out.push(key);
  return out.sort();
}

function sameList(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((x, i) => x === right[i]);
}

/**
 * Reads and writes of one tool call: writes collect in {@link TrackedState.delta} and
 * {@link TrackedState.increments}; the first value of every key read from the source, and the key list
 * of every prefix listed, are remembered. Satisfies the `StateAccess` a tool receives.
 */
export class TrackedState {
  /** The absolute writes of the call: key to new value, `null` to delete. */
  readonly delta: StateDelta = {};
  /** The increments of the call: key to amount added. Never shares a key with `delta`. */
  readonly increments: Record<string, number> = {};
  private readonly reads = new Map<string, JsonValue | undefined>();
  private readonly listings = new Map<string, string[]>();

  constructor(private readonly source: StateSource) {}

  private read(key: string): JsonValue | undefined {
    const value = this.source.get(key);
    if (!this.reads.has(key)) this.reads.set(key, value);
    return value;
  }

  get<T extends JsonValue = JsonValue>(key: string): T | undefined {
    if (Object.hasOwn(this.delta, key)) return (this.delta[key] ?? undefined) as T | undefined;
    const value = this.read(key);
    const inc = ownValue(this.increments, key);
    if (inc !== undefined) return addNumber(key, value, inc) as T;
    // A copy, so a tool that mutates what it read cannot change the session view behind the delta's back.
    return (typeof value === 'object' && value !== null ? structuredClone(value) : value) as T | undefined;
  }

  has(key: string): boolean {
    if (Object.hasOwn(this.delta, key)) return this.delta[key] !== null;
    return this.read(key) !== undefined || ownValue(this.increments, key) !== undefined;
  }

  set(key: string, value: JsonValue): void {
    assertValidKey(key);
    if (value === undefined)
      throw new TypeError(`State value for "${key}" is undefined; use delete() to remove a key.`);
    setOwn(this.delta, key, structuredClone(value));
    delete this.increments[key];
  }

  delete(key: string): void {
    assertValidKey(key);
    setOwn(this.delta, key, null);
    delete this.increments[key];
  }

  increment(key: string, by = 1): void {
    assertValidKey(key);
    if (!Number.isFinite(by))
      throw new TypeError(`Cannot increment state key "${key}" by ${by}: the amount must be a finite number.`);
    if (Object.hasOwn(this.delta, key)) {
      setOwn(this.delta, key, addNumber(key, this.delta[key] ?? undefined, by));
      return;
    }
    // Checked against the current value for an early, clear error; not recorded as a read, since the
    // store adds to whatever value it holds at append time.
    addNumber(key, this.source.get(key), 0);
    setOwn(this.increments, key, (ownValue(this.increments, key) ?? 0) + by);
  }

  keys(prefix = ''): string[] {
    const listed = keysWithPrefix(this.source, prefix);
    if (!this.listings.has(prefix)) this.listings.set(prefix, listed);
    const all = new Set(listed);
    for (const key of Object.keys(this.increments)) if (key.startsWith(prefix)) all.add(key);
    for (const [key, value] of Object.entries(this.delta)) {
      if (!key.startsWith(prefix)) continue;
      if (value === null) all.delete(key);
      else all.add(key);
    }
    return [...all].sort();
  }

  /** Drops the writes (a failed tool changes no state); the reads stay, the failure may depend on them. */
  discardWrites(): void {
    for (const key of Object.keys(this.delta)) delete this.delta[key];
    for (const key of Object.keys(this.increments)) delete this.increments[key];
  }

  /**
   * True when something this call read differs in `source`: a value (deep comparison) or the key list
   * of a listed prefix. A call that is not stale would compute the same from `source`, so its result
   * and writes may be appended on top of it as they are.
   */
  isStale(source: StateSource): boolean {
    for (const [key, value] of this.reads) if (!isDeepStrictEqual(value, source.get(key))) return true;
    for (const [prefix, listed] of this.listings) if (!sameList(listed, keysWithPrefix(source, prefix))) return true;
    return false;
  }

  /**
   * The `reads` of the event this call produces: every `user:`/`app:` key read or listed, with the
   * version the store must hold for it when this event is checked (see {@link StateSource.readVersion}).
   *
   * A key listed by `keys()` but created by another session after the listing (a phantom) is not
   * detected by this check; keys that were listed are, if changed or deleted.
   */
  sharedReads(
    source: StateSource,
    versions: Readonly<Record<string, number>> | undefined,
  ): Record<string, number> | undefined {
    let out: Record<string, number> | undefined;
    const note = (key: string): void => {
      const scope = scopeOf(key);
      if (scope !== 'user' && scope !== 'app') return;
      const version = source.readVersion(key, versions);
      if (version !== undefined) setOwn((out ??= {}), key, version);
    };
    for (const key of this.reads.keys()) note(key);
    for (const listed of this.listings.values()) for (const key of listed) note(key);
    return out;
  }
}
