import { describe, expect, it } from 'vitest';
import { OverlappedWork } from './prompt-cache-tracker.js';

const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('OverlappedWork', () => {
  it('runs the work once the current turn has ended, and take gives its result without running it again', async () => {
    let runs = 0;
    const work = new OverlappedWork(() => (runs += 1));
    expect(runs).toBe(0);
    await nextTurn();
    expect(runs).toBe(1);
    expect(work.take()).toBe(1);
    expect(work.take()).toBe(1);
    expect(runs).toBe(1);
  });

  it('runs the work at take when it has not run yet, and never again afterwards', async () => {
    let runs = 0;
    const work = new OverlappedWork(() => (runs += 1));
    expect(work.take()).toBe(1);
    await nextTurn();
    expect(runs).toBe(1);
  });

  it('keeps what the work threw for take: settle does not throw, and the process goes on', async () => {
    const failure = new Error('the cache model failed');
    const work = new OverlappedWork(() => {
      throw failure;
    });
    await nextTurn();
    expect(() => work.settle()).not.toThrow();
    expect(() => work.take()).toThrow(failure);
  });
});
