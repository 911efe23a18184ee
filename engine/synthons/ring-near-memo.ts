/**
 * nearBits (ring-side-codes.ts) once per side and partner labelling. A side's near bits and
 * attachment codes depend on the partner only through the invariants at its connectors (the
 * partner's label table), and a side meets partners of a few distinct tables: caffeine's top 100
 * on the 10^9 space made 388,000 nearBits calls at its last threshold step for 47,000 distinct
 * (side, table). Keyed by the side's offset in ring-cross.ts's pool, so cleared with it.
 */
import { FP_BYTES } from '../chem/fingerprint.ts';
import { attachAt, nearBits } from './ring-side-codes.ts';

const WORDS = FP_BYTES / 4;

/**
 * Per side offset, entries of [2·nL, the partner's (label, invariant) pairs, nOut (−1: nearBits
 * failed), the bits, nA, the attachment codes].
 */
let memo = new Map<number, number[]>();
let held = 0;
/** Numbers held before the memo starts again (~100 MB at most as small integers). */
const MAX_HELD = 12_000_000;
/** Numbers kept per side (a few dozen entries): beyond them the bits are computed each time. */
const MAX_PER_SIDE = 512;

/** Forgets every side (their offsets are about to be reused). */
export function clearNearMemo(): void {
  memo = new Map();
  held = 0;
}

/** nearBits(p, off, p, poff, out, codes), from the memo when the side met this table before. */
export function nearOf(
  p: Uint32Array,
  off: number,
  poff: number,
  out: number[],
  codes: Uint32Array,
): boolean {
  const table = poff + WORDS + 1;
  const kLen = 2 * p[poff + WORDS];
  let list = memo.get(off);
  if (list) {
    for (let o = 0; o < list.length;) {
      let same = list[o] === kLen;
      for (let k = 0; same && k < kLen; k++) same = list[o + 1 + k] === p[table + k];
      let e = o + 1 + list[o];
      const nOut = list[e++];
      if (same) {
        if (nOut < 0) return false;
        for (let k = 0; k < nOut; k++) out.push(list[e + k]);
        e += nOut;
        const nA = list[e++];
        for (let k = 0; k < nA; k++) codes[k] = list[e + k];
        return true;
      }
      e += Math.max(0, nOut);
      o = e + 1 + list[e];
    }
  }
  const from = out.length;
  const ok = nearBits(p, off, p, poff, out, codes);
  if (!list) memo.set(off, (list = []));
  if (list.length >= MAX_PER_SIDE) return ok;
  const before = list.length;
  list.push(kLen);
  for (let k = 0; k < kLen; k++) list.push(p[table + k]);
  if (!ok) list.push(-1, 0);
  else {
    list.push(out.length - from);
    for (let k = from; k < out.length; k++) list.push(out[k]);
    const nA = p[attachAt(p, off)];
    list.push(nA);
    for (let k = 0; k < nA; k++) list.push(codes[k]);
  }
  held += list.length - before;
  if (held > MAX_HELD) clearNearMemo();
  return ok;
}
