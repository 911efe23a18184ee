/**
 * Each synthon's bits of G \ Q for one query, as a list of bit numbers (0..2047), made on first
 * use and kept with the slot's terms (the ladder's threshold steps share them). Pure, typed
 * arrays only.
 *
 * A pair's |G \ Q| is then d_i plus the bits of j's list that i's does not hold: about d_j
 * lookups in a bitmap of i's bits, with an early stop at the pair's limit, in place of the
 * folds' 8-word lower bound and the 64-word OR of the guaranteed columns (pair-walk.ts). A list
 * holds exactly d_j = |G_j \ Q| bits (SlotTerms.d).
 */
import { FP_BYTES } from '../chem/fingerprint.ts';
import { columnWords, type SlotTerms } from './bounds.ts';

const WORDS = FP_BYTES / 4;

export interface OutBits {
  /** Synthon i's list starts at bits[at[i]] (−1: not made yet); use `outBitsAt`. */
  at: Int32Array;
  bits: Uint16Array;
  used: number;
  /** The slot's guaranteed column as words, and the query's words. */
  g: Uint32Array;
  q: Uint32Array;
}

const memo = new WeakMap<SlotTerms, OutBits>();

/** The lists of a slot for the query of `ts` (q its words), made lazily. */
export function outBitsOf(ts: SlotTerms, guaranteed: Uint8Array, q: Uint32Array): OutBits {
  let o = memo.get(ts);
  if (!o) {
    const at = new Int32Array(ts.d.length).fill(-1);
    o = { at, bits: new Uint16Array(1024), used: 0, g: columnWords(guaranteed), q };
    memo.set(ts, o);
  }
  return o;
}

/** Where synthon i's list starts in `o.bits` (read `o.bits` after this call: it may grow). */
export function outBitsAt(o: OutBits, i: number, d: number): number {
  const known = o.at[i];
  if (known >= 0) return known;
  if (o.used + d > o.bits.length) {
    const grown = new Uint16Array(Math.max(2 * o.bits.length, o.used + d));
    grown.set(o.bits.subarray(0, o.used));
    o.bits = grown;
  }
  const { g, q, bits } = o;
  const start = o.used;
  let n = start;
  for (let k = 0, r = i * WORDS; k < WORDS; k++) {
    let v = g[r + k] & ~q[k];
    while (v !== 0) {
      const low = v & -v;
      bits[n++] = (k << 5) | (31 - Math.clz32(low));
      v ^= low;
    }
  }
  if (n - start !== d) throw new Error(`synthon ${i}: ${n - start} bits of G \\ Q, d says ${d}`);
  o.used = n;
  o.at[i] = start;
  return start;
}
