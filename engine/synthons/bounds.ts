/**
 * The exact Tanimoto upper bound of a product from its synthons (pure, typed arrays only).
 *
 * Let Q be the query's bits (a = |Q|), G the OR of the synthons' guaranteed bits (every product has
 * them, synthon-chem.ts) and U the sum of their unstable environment counts (a product has at most
 * U bits outside G). With c = |Q ∩ P| and x = |Q ∩ G|: c ≤ min(a, x + U), and the c − x common
 * bits outside G are bits of P outside G, so |P| ≥ |G| + c − x and
 *     T = c / (a + |P| − c) ≤ min(a, x + U) / (a + |G| − x).
 * Per slot, x ≤ Σ x_s and |G| − x ≥ max_s (|G_s| − x_s) give a cheaper bound used to prune tuples
 * before the OR is computed.
 */
import { FP_BYTES } from '../chem/fingerprint.ts';
import { FOLD_WORDS, columnWords, pop32, statsOf } from './column-stats.ts';

export { FOLD_WORDS, columnWords, pop32, statsOf };

const WORDS = FP_BYTES / 4;

/** Per-synthon terms against one query: w = x + unstable (most common bits it can bring), d = |G| − x. */
export interface SlotTerms {
  w: Int32Array;
  d: Int32Array;
  /** Synthon indices by w descending. */
  order: Int32Array;
  /**
   * G ∩ Q of each synthon with Q's bits renumbered 0..a−1 (`qw` words per synthon): the OR of a
   * tuple's rows gives its exact x in a word or two instead of 64 (`maskX`).
   */
  qm: Uint32Array;
  qw: number;
  /**
   * Each synthon's G folded to FOLD_WORDS words (bit b to b mod 256; the column's, statsOf) and
   * the positions no bit of Q folds to (`keep`): the OR of a tuple's folds, masked by `keep`, has
   * no more bits than its G \ Q, a lower bound on |G| − x often well above max d.
   */
  fold: Uint32Array;
  keep: Uint32Array;
}

/** Words of a query's renumbered bits (SlotTerms.qm). */
export const maskWords = (a: number): number => Math.max(1, Math.ceil(a / 32));

/**
 * x_s, |G_s| − x_s and w_s = x_s + u_s of every synthon of a slot, from the column's postings:
 * only the synthons sharing a bit with Q are touched (statsOf; reading the query's words of every
 * synthon was a third of a warm query on the 10^9 space).
 */
export function slotTerms(query: Uint32Array, guaranteed: Uint8Array, unstable: Uint16Array): SlotTerms {
  const n = unstable.length;
  const { all, fold, start, ids } = statsOf(guaranteed, n);
  // Rank of a query bit = query bits in the words before it + those below it in its word.
  const base = new Int32Array(WORDS);
  for (let k = 1; k < WORDS; k++) base[k] = base[k - 1] + pop32(query[k - 1]);
  const qw = maskWords(base[WORDS - 1] + pop32(query[WORDS - 1]));
  const qm = new Uint32Array(n * qw);
  const w = Int32Array.from(unstable);
  for (let k = 0; k < WORDS; k++) {
    for (let c = query[k]; c !== 0; c &= c - 1) {
      const low = (c & -c) >>> 0;
      const r = base[k] + pop32(query[k] & (low - 1));
      const bit = k * 32 + 31 - Math.clz32(low);
      const word = r >>> 5;
      const mask = 1 << (r & 31);
      for (let p = start[bit], end = start[bit + 1]; p < end; p++) {
        const i = ids[p];
        w[i]++;
        qm[i * qw + word] |= mask;
      }
    }
  }
  const d = new Int32Array(n);
  for (let i = 0; i < n; i++) d[i] = all[i] - (w[i] - unstable[i]);
  // G_s \ Q folded, bounded below by fold(G_s) without the positions Q folds to: a position
  // left set there comes from a bit of G_s that no bit of Q shares, so one of G_s \ Q.
  const keep = new Uint32Array(FOLD_WORDS).fill(0xffffffff);
  for (let k = 0; k < WORDS; k++) keep[k % FOLD_WORDS] &= ~query[k];
  return { w, d, order: byWeight(w), qm, qw, fold, keep };
}

/**
 * Indices by w descending, ties by index: a counting sort, since w is a small count (a
 * comparator sort of the 10^9 space's 641,491 synthons took a tenth of a query's setup).
 */
export function byWeight(w: Int32Array): Int32Array {
  let max = 0;
  let min = 0;
  for (let i = 0; i < w.length; i++) {
    if (w[i] > max) max = w[i];
    if (w[i] < min) min = w[i];
  }
  const start = new Int32Array(max - min + 2);
  for (let i = 0; i < w.length; i++) start[max - w[i] + 1]++;
  for (let v = 1; v < start.length; v++) start[v] += start[v - 1];
  const order = new Int32Array(w.length);
  for (let i = 0; i < w.length; i++) order[start[max - w[i]]++] = i;
  return order;
}

/** The OR bound of one tuple: min(a, x + U) / (a + |G| − x). `scratch` is 64 words of work space. */
export function tupleBound(
  query: Uint32Array,
  a: number,
  rows: readonly Uint32Array[],
  unstableSum: number,
  scratch: Uint32Array,
): number {
  scratch.set(rows[0]);
  for (let r = 1; r < rows.length; r++) {
    const row = rows[r];
    for (let k = 0; k < WORDS; k++) scratch[k] |= row[k];
  }
  return orBound(query, a, scratch, unstableSum);
}

/** min(a, x + U) / (a + |G| − x) for G, the OR of a tuple's guaranteed rows, in `g`. */
function orBound(query: Uint32Array, a: number, g: Uint32Array, unstableSum: number): number {
  let x = 0;
  let all = 0;
  for (let k = 0; k < WORDS; k++) {
    const v = g[k];
    if (v === 0) continue;
    all += pop32(v);
    x += pop32(v & query[k]);
  }
  const den = a + all - x;
  return den <= 0 ? 1 : Math.min(a, x + unstableSum) / den;
}

/** tupleBound of the tuple `pick` (one row per column of `cols`, from columnWords). */
export function pickBound(
  query: Uint32Array,
  a: number,
  cols: readonly Uint32Array[],
  pick: Int32Array,
  unstableSum: number,
  scratch: Uint32Array,
): number {
  scratch.fill(0);
  for (let r = 0; r < cols.length; r++) {
    const col = cols[r];
    const o = pick[r] * WORDS;
    for (let k = 0; k < WORDS; k++) scratch[k] |= col[o + k];
  }
  return orBound(query, a, scratch, unstableSum);
}

/** A synthon's guaranteed row as 64 words (a view). */
export function guaranteedRow(guaranteed: Uint8Array, i: number): Uint32Array {
  return new Uint32Array(guaranteed.buffer, guaranteed.byteOffset + i * FP_BYTES, WORDS);
}

/** Packed fingerprint as 64 words (copied, so any byte offset works). */
export function fpWords(fp: Uint8Array): Uint32Array {
  const out = new Uint32Array(WORDS);
  new Uint8Array(out.buffer).set(fp.subarray(0, FP_BYTES));
  return out;
}

export function popcountWords(v: Uint32Array): number {
  let c = 0;
  for (let k = 0; k < v.length; k++) c += pop32(v[k]);
  return c;
}
