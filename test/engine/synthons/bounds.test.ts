// The per-synthon terms of the similarity walk (engine/synthons/bounds.ts): the renumbered query
// masks give a tuple's exact |Q ∩ G| from a word or two.
import { describe, expect, it } from 'vitest';
import { FP_BYTES } from '../../../engine/chem/fingerprint.ts';
import {
  FOLD_WORDS,
  fpWords,
  maskWords,
  pop32,
  slotTerms,
  statsOf,
} from '../../../engine/synthons/bounds.ts';

/** Deterministic pseudo-random bytes (xorshift), `density` of the bits set. */
function rows(n: number, density: number, seed: number): Uint8Array {
  const out = new Uint8Array(n * FP_BYTES);
  let x = seed;
  for (let b = 0; b < out.length * 8; b++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    if ((x >>> 0) / 2 ** 32 < density) out[b >>> 3] |= 1 << (b & 7);
  }
  return out;
}

const bitsOf = (bytes: Uint8Array, i: number): Set<number> => {
  const s = new Set<number>();
  for (let b = 0; b < FP_BYTES * 8; b++) if (bytes[i * FP_BYTES + (b >>> 3)] & (1 << (b & 7))) s.add(b);
  return s;
};

describe('slotTerms query masks', () => {
  for (const [name, density] of [
    ['a small query (one word)', 0.01],
    ['a large query (several words)', 0.05],
  ] as const)
    it(`${name}: the OR of two synthons' masks counts Q ∩ (G_i ∪ G_j) exactly`, () => {
      const query = rows(1, density, 7);
      const a = bitsOf(query, 0).size;
      // ~30 bits a row, as a synthon's guaranteed bits.
      const g0 = rows(20, 0.015, 11);
      const g1 = rows(20, 0.015, 23);
      const unstable = Uint16Array.from({ length: 20 }, (_, i) => (i * 7) % 5);
      const t0 = slotTerms(fpWords(query), g0, unstable);
      const t1 = slotTerms(fpWords(query), g1, unstable);
      expect(t0.qw).toBe(maskWords(a));
      const q = bitsOf(query, 0);
      let outside = 0;
      let foldedSum = 0;
      for (let i = 0; i < 20; i++)
        for (let j = 0; j < 20; j++) {
          const union = new Set([...bitsOf(g0, i), ...bitsOf(g1, j)]);
          const want = [...union].filter((b) => q.has(b)).length;
          let got = 0;
          for (let k = 0; k < t0.qw; k++) got += pop32(t0.qm[i * t0.qw + k] | t1.qm[j * t1.qw + k]);
          expect(got, `${i},${j}`).toBe(want);
          // The folds' OR never counts more than |(G_i ∪ G_j) \ Q|: a lower bound on |G| − x.
          let folded = 0;
          for (let k = 0; k < FOLD_WORDS; k++)
            folded += pop32((t0.fold[i * FOLD_WORDS + k] | t1.fold[j * FOLD_WORDS + k]) & t0.keep[k]);
          expect(folded).toBeLessThanOrEqual(union.size - want);
          outside += union.size - want;
          foldedSum += folded;
        }
      // And it is not vacuous: most of those bits survive the fold.
      expect(foldedSum).toBeGreaterThan(outside / 2);
      // Each row's mask alone is its x = |Q ∩ G_i|: w − unstable; d = |G_i| − x.
      for (let i = 0; i < 20; i++) {
        let x = 0;
        for (let k = 0; k < t0.qw; k++) x += pop32(t0.qm[i * t0.qw + k]);
        const g = bitsOf(g0, i);
        const want = [...g].filter((b) => q.has(b)).length;
        expect(x).toBe(want);
        expect(t0.w[i]).toBe(want + unstable[i]);
        expect(t0.d[i]).toBe(g.size - want);
      }
      // order: w descending, ties by index.
      const order = [...t0.order];
      expect(order).toEqual([...order].sort((p, r) => t0.w[r] - t0.w[p] || p - r));
    });
});

describe('column postings (statsOf)', () => {
  it('list, per bit, exactly the synthons whose G holds it, ascending, with |G| and the fold', () => {
    const n = 300;
    const g = rows(n, 0.02, 5);
    const { all, fold, start, ids } = statsOf(g, n);
    for (let b = 0; b < FP_BYTES * 8; b += 1) {
      const want: number[] = [];
      for (let i = 0; i < n; i++) if (g[i * FP_BYTES + (b >>> 3)] & (1 << (b & 7))) want.push(i);
      expect([...ids.subarray(start[b], start[b + 1])], `bit ${b}`).toEqual(want);
    }
    for (let i = 0; i < n; i++) {
      const bits = bitsOf(g, i);
      expect(all[i]).toBe(bits.size);
      const f = new Set<number>();
      for (const b of bits) f.add(b % (FOLD_WORDS * 32));
      let got = 0;
      for (let k = 0; k < FOLD_WORDS; k++) got += pop32(fold[i * FOLD_WORDS + k]);
      expect(got).toBe(f.size);
    }
  });
});
