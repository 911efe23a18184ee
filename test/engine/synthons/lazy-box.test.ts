// Lazy candidate boxes: the tuples of fully screened lists, in their order, screening on demand.
import { describe, expect, it } from 'vitest';
import { excludedAtLeast, lazyList, lazyTuples } from '../../../engine/synthons/lazy-box.ts';

/** Every tuple of fully known lists, last slot fastest: the eager walk the lazy one replaces. */
function eager(lists: number[][]): number[][] {
  return lists.reduce<number[][]>((acc, l) => acc.flatMap((t) => l.map((i) => [...t, i])), [[]]);
}

const passesOf = (set: number[]) => (i: number) => set.includes(i);

describe('lazy candidate boxes', () => {
  it('walk the same tuples in the same order as the fully screened lists', () => {
    const slots = [
      { n: 7, pass: [1, 4, 6] },
      { n: 5, pass: [0, 2] },
      { n: 9, pass: [3, 5, 8] },
    ];
    const box = slots.map((s) => lazyList(s.n, passesOf(s.pass)));
    expect([...lazyTuples(box)]).toEqual(eager(slots.map((s) => s.pass)));
    expect(box.every((l) => l.done)).toBe(true);
    expect(excludedAtLeast(7 * 5 * 9, [box])).toBe(7 * 5 * 9 - 3 * 2 * 3);
  });

  it('screen only as far as the tuples taken need', () => {
    const calls: number[] = [];
    const first = lazyList(1000, (i) => (calls.push(i), i % 2 === 0));
    const last = lazyList(1000, (i) => i % 3 === 0);
    const walk = lazyTuples([first, last]);
    const taken = Array.from({ length: 5 }, () => walk.next().value);
    expect(taken).toEqual([0, 3, 6, 9, 12].map((j) => [0, j]));
    expect(calls).toEqual([0]);
    expect(last.scanned).toBeLessThan(20);
    // Unscreened synthons may still hold products: only the screened-out ones are excluded.
    expect(excludedAtLeast(1000 * 1000, [[first, last]])).toBe(1000 * 1000 - 1000 * (1000 - last.failed));
  });

  it('a test that throws (a deadline) leaves its synthon unscreened, not failed', () => {
    const stop = new Error('deadline');
    const list = lazyList(10, (i) => {
      if (i === 4) throw stop;
      return i % 2 === 0;
    });
    expect(() => list.has(5)).toThrow(stop);
    expect([list.scanned, list.failed, list.done]).toEqual([4, 2, false]);
    // Synthons 4..9 may still hold products: only 1 and 3 are excluded.
    expect(excludedAtLeast(10 * 10, [[list, lazyList(10, () => true)]])).toBe(2 * 10);
  });

  it('an empty slot gives no tuples', () => {
    const box = [lazyList(4, () => true), lazyList(3, () => false)];
    expect([...lazyTuples(box)]).toEqual([]);
    expect(excludedAtLeast(12, [box])).toBe(12);
  });
});
