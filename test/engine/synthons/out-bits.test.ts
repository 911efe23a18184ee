// Each synthon's bits of G \ Q as a list (engine/synthons/out-bits.ts): exactly the bits of its
// guaranteed row outside the query, in ascending order, made lazily in any order and kept
// across the growth of the shared array; and a pair's |G \ Q| from two lists equals the
// popcount of the OR of the rows without Q, as the walks use it.
import { describe, expect, it } from 'vitest';
import { pop32, slotTerms } from '../../../engine/synthons/bounds.ts';
import { outBitsAt, outBitsOf } from '../../../engine/synthons/out-bits.ts';

const WORDS = 64;

/** A column of n rows of 2048 bits, each bit set with probability p (seeded). */
function column(n: number, p: number, seed: number): Uint8Array {
  let s = seed >>> 0;
  const rand = (): number => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const words = new Uint32Array(n * WORDS);
  for (let k = 0; k < words.length * 32; k++) if (rand() < p) words[k >>> 5] |= 1 << (k & 31);
  return new Uint8Array(words.buffer);
}

const bitsOf = (row: Uint32Array, q: Uint32Array): number[] => {
  const out: number[] = [];
  for (let b = 0; b < WORDS * 32; b++)
    if ((row[b >>> 5] >>> (b & 31)) & 1 && !((q[b >>> 5] >>> (b & 31)) & 1)) out.push(b);
  return out;
};

describe('out-bits lists', () => {
  const n = 400;
  const col = column(n, 0.03, 7);
  const rows = new Uint32Array(col.buffer);
  const q = new Uint32Array(column(1, 0.05, 11).buffer);
  const ts = slotTerms(q, col, new Uint16Array(n));
  const listOf = (i: number): number[] => {
    const o = outBitsOf(ts, col, q);
    const at = outBitsAt(o, i, ts.d[i]);
    return Array.from(o.bits.subarray(at, at + ts.d[i]));
  };

  it('hold exactly the bits of G \\ Q, ascending, made in any order and kept as the array grows', () => {
    // Reverse order, then every row again: the first calls make the lists (the shared array
    // grows several times: 400 rows of ~60 bits against its first 1,024 entries).
    for (let i = n - 1; i >= 0; i--) listOf(i);
    for (let i = 0; i < n; i++) {
      const want = bitsOf(rows.subarray(i * WORDS, (i + 1) * WORDS), q);
      expect(want.length).toBe(ts.d[i]);
      expect(listOf(i), `row ${i}`).toEqual(want);
    }
    expect(outBitsOf(ts, col, q).bits.length).toBeGreaterThan(1024);
  });

  it("give a pair's |G \\ Q| as d_i plus j's bits outside i's", () => {
    for (let i = 0; i < 40; i++)
      for (let j = 0; j < 40; j++) {
        const mine = new Set(listOf(i));
        const dij = ts.d[i] + listOf(j).filter((b) => !mine.has(b)).length;
        let want = 0;
        for (let k = 0; k < WORDS; k++) want += pop32((rows[i * WORDS + k] | rows[j * WORDS + k]) & ~q[k]);
        expect(dij).toBe(want);
      }
  });

  it('refuse a count that disagrees with the row (a d from another query)', () => {
    const o = outBitsOf(slotTerms(q, col, new Uint16Array(n)), col, q);
    expect(() => outBitsAt(o, 3, ts.d[3] + 1)).toThrow(/d says/);
  });
});
