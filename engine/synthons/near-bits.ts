/**
 * The near bits of a join-walk slot's synthons (join-walk.ts), per partner attachment invariant:
 * the distinct fingerprint bits of nearCodes(x, partnerC0), which depend on the synthon and the
 * partner's invariant, not on the query. Kept once per opened space (the 10^9 space's 489,123
 * join-walk synthons: 1.46 million synthon-invariant cells, 3.8 million codes, ~14 MB), they make
 * a query's group terms a count of bits in Q; hashing every synthon's environments again per query
 * was a third of a warm query's walk on that space.
 */
import { FP_BYTES } from '../chem/fingerprint.ts';
import { nearCodesInto } from './join-env.ts';
import { envAt, type PackedEnvs } from './packed-envs.ts';

const NBITS = FP_BYTES * 8;

/** Synthon i's distinct near bits are bits[offsets[i] .. offsets[i + 1]). */
export interface NearBits {
  offsets: Int32Array;
  bits: Uint16Array;
}

const memo = new WeakMap<PackedEnvs, Map<number, NearBits>>();

/** The slot's near bits against partners of invariant `partnerC0` (computed on first use). */
export function nearBits(envs: PackedEnvs, partnerC0: number): NearBits {
  let bySlot = memo.get(envs);
  if (!bySlot) memo.set(envs, (bySlot = new Map()));
  let out = bySlot.get(partnerC0);
  if (!out) bySlot.set(partnerC0, (out = computeNearBits(envs, partnerC0)));
  return out;
}

function computeNearBits(envs: PackedEnvs, partnerC0: number): NearBits {
  const offsets = new Int32Array(envs.length + 1);
  let bits = new Uint16Array(4 * envs.length + 16);
  let codes = new Float64Array(16);
  let n = 0;
  for (let i = 0; i < envs.length; i++) {
    const x = envAt(envs, i);
    if (x.outer.length + 1 > codes.length) codes = new Float64Array(2 * (x.outer.length + 1));
    const m = nearCodesInto(x, partnerC0, codes);
    if (n + m > bits.length) {
      const grown = new Uint16Array(2 * (n + m));
      grown.set(bits);
      bits = grown;
    }
    const first = n;
    for (let k = 0; k < m; k++) {
      const bit = codes[k] % NBITS;
      let seen = false;
      for (let r = first; r < n && !seen; r++) seen = bits[r] === bit;
      if (!seen) bits[n++] = bit;
    }
    offsets[i + 1] = n;
  }
  return { offsets, bits: bits.slice(0, n) };
}

/** |Q ∩ near(x_i, partner)| + 1 (for x's (A,2) code), in distinct bits. */
export function nearInQ(q: Uint32Array, near: NearBits, i: number): number {
  let n = 1;
  for (let k = near.offsets[i], end = near.offsets[i + 1]; k < end; k++) {
    const bit = near.bits[k];
    n += (q[bit >>> 5] >>> (bit & 31)) & 1;
  }
  return n;
}

/** Per near-bits table and group, the most near bits one synthon of the group has (no query). */
const nearMaxMemo = new WeakMap<NearBits, Map<number, number>>();

export function mostNear(near: NearBits, key: number, list: readonly number[]): number {
  let byGroup = nearMaxMemo.get(near);
  if (!byGroup) nearMaxMemo.set(near, (byGroup = new Map()));
  let m = byGroup.get(key);
  if (m === undefined) {
    m = 0;
    for (let p = 0; p < list.length; p++) {
      const i = list[p];
      m = Math.max(m, near.offsets[i + 1] - near.offsets[i]);
    }
    byGroup.set(key, m);
  }
  return m;
}
