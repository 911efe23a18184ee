// The typed-array memo of ring-cross.ts's bounds (number-memo.ts) against a Map, through growth.
import { describe, expect, it } from 'vitest';
import { numberMemo } from '../../../engine/synthons/number-memo.ts';

describe('numberMemo', () => {
  it('keeps what a Map keeps for integer keys up to 2^53, through many growths', () => {
    const memo = numberMemo(4);
    const want = new Map<number, number>();
    let seed = 12345;
    const rand = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let n = 0; n < 50_000; n++) {
      // Small keys, keys past 2^32 and colliding multiples of a power of two.
      const key = n % 3 === 0 ? rand() % 5000 : n % 3 === 1 ? rand() * 65536 + n : (n % 997) * 4096;
      const value = n % 5 === 0 ? -1 : rand() / 4294967296;
      memo.set(key, value);
      want.set(key, value);
    }
    expect(memo.size).toBe(want.size);
    for (const [k, v] of want) expect(memo.get(k)).toBe(v);
    expect(memo.get(2 ** 40 + 7)).toBeUndefined();
    expect(memo.get(4999.5)).toBeUndefined();
  });
});
