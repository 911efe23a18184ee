/**
 * BitBound pruning (Swamidass & Baldi, J. Chem. Inf. Model. 2007): a row with popcount b cannot
 * score above min(a, b) / max(a, b) against a query of popcount a, so for a threshold t only rows
 * with b in [ceil(t·a), floor(a/t)] can qualify, and a top-k scan can visit popcount bands by
 * decreasing bound and stop once the bound drops below its current k-th score. Rows are sorted by
 * popcount, so a band is a contiguous row range.
 */
import { FP_BITS, tanimotoFromCounts } from './kernel-js.ts';

/** Number of popcount values (0..2048). */
export const BANDS = FP_BITS + 1;

/**
 * Row offsets per popcount for a popcount-sorted shard: rows with popcount b are
 * [offsets[b], offsets[b + 1]). Length BANDS + 1. Computed once at load; throws a RangeError if
 * the column is not sorted ascending or a popcount exceeds 2048.
 */
export function popcountOffsets(popcounts: Uint16Array): Int32Array {
  const offsets = new Int32Array(BANDS + 1);
  let prev = 0;
  for (let i = 0; i < popcounts.length; i++) {
    const b = popcounts[i];
    if (b < prev) throw new RangeError(`popcount column is not sorted ascending at row ${i}`);
    if (b > FP_BITS) throw new RangeError(`popcount ${b} at row ${i} exceeds ${FP_BITS}`);
    prev = b;
    offsets[b + 1]++;
  }
  for (let b = 0; b < BANDS; b++) offsets[b + 1] += offsets[b];
  return offsets;
}

/** Tanimoto upper bound per row popcount for a query of popcount a, as f32 (monotone rounding keeps score <= bound). */
export function tanimotoBounds(a: number): Float32Array {
  const bounds = new Float32Array(BANDS);
  for (let b = 0; b < BANDS; b++) {
    const hi = Math.max(a, b);
    bounds[b] = hi === 0 ? 0 : Math.fround(Math.min(a, b) / hi);
  }
  return bounds;
}

/** The popcount window [ceil(t·a), floor(a/t)] of rows that can reach threshold t (0 < t <= 1); the textbook form, for reference. */
export function tanimotoPopcountWindow(a: number, t: number): [number, number] {
  return [Math.ceil(t * a), Math.min(FP_BITS, Math.floor(a / t))];
}

/**
 * The bands of [bLo, bHi] whose bound is >= minScore, ordered by decreasing bound (ties by
 * popcount ascending), so a scan can stop at the first band whose bound falls below its k-th score.
 */
export function bandOrder(bounds: Float32Array, bLo: number, bHi: number, minScore: number): Int32Array {
  const bands: number[] = [];
  for (let b = bLo; b <= bHi; b++) if (bounds[b] >= minScore) bands.push(b);
  bands.sort((x, y) => bounds[y] - bounds[x] || x - y);
  return Int32Array.from(bands);
}

/** The highest bound over popcounts [bLo, bHi] (-Infinity for an empty range). */
export function maxBound(bounds: Float32Array, bLo: number, bHi: number): number {
  let m = -Infinity;
  for (let b = bLo; b <= bHi; b++) if (bounds[b] > m) m = bounds[b];
  return m;
}

/**
 * The smallest intersection count m in [0, min(a, b)] whose f32 Tanimoto c / (a + b - c) at c = m
 * is >= minScore, or min(a, b) + 1 if none. The score grows with c for fixed a and b (and f32
 * rounding is monotone), so a row of popcount b against a query of popcount a scores >= minScore
 * exactly when c >= the result; any upper bound on c below it (the block bound) proves the row
 * cannot qualify.
 */
export function minIntersection(a: number, b: number, minScore: number): number {
  let lo = 0;
  let hi = Math.min(a, b) + 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tanimotoFromCounts(a, b, mid) >= minScore) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
