/**
 * tupleWalk (tuple-walk.ts) for two slots, by groups of synthons with one query mask. Pure, typed
 * arrays only.
 *
 * A pair (i, j) passes the exact-x cut when min(a, x + u) ≥ t(a + max(d_i, d_j)), x the popcount
 * of the OR of their renumbered query masks (SlotTerms.qm) and u = u_i + u_j. A slot of thousands
 * of synthons holds only a hundred or two distinct (mask, u): on the 10^9 space, caffeine's
 * benzimidazole slots have 5,014 and 5,030 synthons and 173 and 231 of them. So per pair of
 * groups, x + u is one number, and it gives the largest d that passes (`dMax`): with each group's
 * synthons in ascending d, the pairs that pass are a prefix of one times a prefix of the other,
 * met without visiting the others. The walk of synthon pairs this replaces visited 18 M pairs for
 * caffeine's top 100, 83 % of them failing that cut one at a time (bench/synthons/README.md,
 * "Pair walk by query-mask groups").
 *
 * The pairs that pass lose a pair of ring cores molzip cannot join (ring-pairs.ts), then get the
 * OR bound exactly: x from the masks, |G \ Q| as d_i plus the bits of j's list of G \ Q
 * (out-bits.ts) that i's lacks, stopping once over dMax. That replaced tupleWalk's folds (a lower
 * bound, 8 words) and 64-word OR: a fifth less time for caffeine's and nicotine's top 100 on the
 * 10^9 space (bench/synthons/README.md, "Exact |G \ Q| from lists"). The separable cuts of the
 * synthon walk (Σw, max d) are implied by the exact-x cut, so the pairs proposed are the same;
 * the order differs (groups by w, then each member of A across its partner groups, ascending d).
 */
import { FP_BYTES } from '../chem/fingerprint.ts';
import { pop32, type SlotTerms } from './bounds.ts';
import type { SlotColumns } from './format.ts';
import { outBitsAt, outBitsOf } from './out-bits.ts';
import { pairEntry, PAIR_INVALID, ringPairsOf } from './ring-pairs.ts';

/** A slot's synthons grouped by (query mask, u), for one query. */
interface MaskGroups {
  /**
   * Members of group g: order[start[g]] … order[start[g + 1] − 1], ascending d = |G \ Q|: a
   * pair's |G \ Q| is at least either's, so a member with d above a pair of groups' dMax ends
   * that group's loop.
   */
  order: Int32Array;
  start: Int32Array;
  /** Group g's mask (qw words at g · qw), u and w = popcount(mask) + u; groups by w descending. */
  mask: Uint32Array;
  u: Int32Array;
  w: Int32Array;
}

const memo = new WeakMap<SlotTerms, MaskGroups>();
const WORDS = FP_BYTES / 4;

/** The slot's mask groups (once per query and slot: the ladder's threshold steps share them). */
export function maskGroups(ts: SlotTerms, unstable: Uint16Array): MaskGroups {
  const known = memo.get(ts);
  if (known) return known;
  const { qm, qw, w, d } = ts;
  const n = w.length;
  const groupOf = new Int32Array(n);
  const first: number[] = [];
  // Open addressing over (mask words, u), compared against each group's first member: a Map with
  // a string key per synthon doubled the first threshold step of a small query.
  const cap = 1 << Math.ceil(Math.log2(2 * n + 2));
  const table = new Int32Array(cap).fill(-1);
  const same = (f: number, i: number): boolean => {
    if (unstable[f] !== unstable[i]) return false;
    for (let k = 0; k < qw; k++) if (qm[f * qw + k] !== qm[i * qw + k]) return false;
    return true;
  };
  for (let i = 0; i < n; i++) {
    let h = Math.imul(unstable[i] + 1, 0x9e3779b1);
    for (let k = 0; k < qw; k++) {
      h = Math.imul(h ^ qm[i * qw + k], 0x85ebca6b);
      h ^= h >>> 13;
    }
    let at = h & (cap - 1);
    while (table[at] >= 0 && !same(first[table[at]], i)) at = (at + 1) & (cap - 1);
    if (table[at] < 0) {
      table[at] = first.length;
      first.push(i);
    }
    groupOf[i] = table[at];
  }
  // Groups by w descending (ties by first member), members by d ascending (ties by index).
  const rank = first.map((_, g) => g).sort((x, y) => w[first[y]] - w[first[x]] || x - y);
  const at = new Int32Array(rank.length);
  rank.forEach((g, r) => (at[g] = r));
  const start = new Int32Array(rank.length + 1);
  for (let i = 0; i < n; i++) start[at[groupOf[i]] + 1]++;
  for (let r = 0; r < rank.length; r++) start[r + 1] += start[r];
  const fill = start.slice(0, rank.length);
  const order = new Int32Array(n);
  for (const i of ascending(d)) order[fill[at[groupOf[i]]]++] = i;
  const mask = new Uint32Array(rank.length * qw);
  const gu = new Int32Array(rank.length);
  const gw = new Int32Array(rank.length);
  rank.forEach((g, r) => {
    const i = first[g];
    for (let k = 0; k < qw; k++) mask[r * qw + k] = qm[i * qw + k];
    gu[r] = unstable[i];
    gw[r] = w[i];
  });
  const out = { order, start, mask, u: gu, w: gw };
  memo.set(ts, out);
  return out;
}

/** Indices by ascending value, ties by index: a counting sort (values are small counts). */
function ascending(v: Int32Array): Int32Array {
  let max = 0;
  for (let i = 0; i < v.length; i++) if (v[i] > max) max = v[i];
  const start = new Int32Array(max + 2);
  for (let i = 0; i < v.length; i++) start[v[i] + 1]++;
  for (let x = 1; x < start.length; x++) start[x] += start[x - 1];
  const out = new Int32Array(v.length);
  for (let i = 0; i < v.length; i++) out[start[v[i]]++] = i;
  return out;
}

/**
 * The largest d with m ≥ t(a + d), by the walk's own comparison (so a pair passes exactly when
 * max(d_i, d_j, out) ≤ dMax); −1 when none, Infinity when t ≤ 0.
 */
export function dMax(m: number, a: number, t: number): number {
  if (t <= 0) return Infinity;
  let d = Math.max(-1, Math.floor(m / t - a));
  while (d >= 0 && m < t * (a + d)) d--;
  while (!(m < t * (a + d + 1))) d++;
  return d;
}

/** Calls `push(pick, bound)` for every pair whose OR bound reaches t, as tupleWalk does. */
export function pairWalk(
  q: Uint32Array,
  a: number,
  t: number,
  slots: readonly SlotColumns[],
  terms: readonly SlotTerms[],
  counts: { screened: number },
  push: (pick: Int32Array, bound: number) => boolean,
  expired: () => boolean,
): void {
  const [ta, tb] = terms;
  if (ta.w.length === 0 || tb.w.length === 0) return;
  // No pair reaches t even on Σw: done before the groups are made (most reactions at 0.7).
  if (Math.min(a, ta.w[ta.order[0]] + tb.w[tb.order[0]]) < t * a) return;
  const A = maskGroups(ta, slots[0].unstableEnvs);
  const B = maskGroups(tb, slots[1].unstableEnvs);
  const [da, db] = [ta.d, tb.d];
  const qw = ta.qw;
  const nA = A.u.length;
  const nB = B.u.length;
  const wbMax = B.w[0];
  const oa = outBitsOf(ta, slots[0].guaranteed, q);
  const ob = outBitsOf(tb, slots[1].guaranteed, q);
  const mark = new Uint32Array(WORDS);
  const pairs = ringPairsOf(slots);
  const pick = new Int32Array(2);
  // Per group of A, the groups of B it admits pairs with, and their dMax and min(a, x + u).
  const okB = new Int32Array(nB);
  const okMost = new Float64Array(nB); // Infinity at t = 0
  const okM = new Int32Array(nB);
  let met = 0;
  for (let ga = 0; ga < nA; ga++) {
    // Σw only shrinks along the groups' w order: the first failure ends the loop.
    if (Math.min(a, A.w[ga] + wbMax) < t * a) break;
    const aFirst = A.order[A.start[ga]];
    let nOk = 0;
    let mostA = -1;
    for (let gb = 0; gb < nB; gb++) {
      if (Math.min(a, A.w[ga] + B.w[gb]) < t * a) break;
      // Slots of many distinct masks make many pairs of groups with nothing screened.
      if (++met % 65_536 === 0 && expired()) return;
      // x + u ≤ Σw, so a pair of groups whose first members' d fail against Σw admits no pair,
      // known before x is counted (three in four of the 2.3 M pairs of groups caffeine's and
      // nicotine's walks at their 100th scores meet).
      const dFirst = Math.max(da[aFirst], db[B.order[B.start[gb]]]);
      if (Math.min(a, A.w[ga] + B.w[gb]) < t * (a + dFirst)) continue;
      let x = 0;
      for (let k = 0; k < qw; k++) x += pop32(A.mask[ga * qw + k] | B.mask[gb * qw + k]);
      const m = Math.min(a, x + A.u[ga] + B.u[gb]);
      const most = dMax(m, a, t);
      if (dFirst > most) continue;
      okB[nOk] = gb;
      okMost[nOk] = most;
      okM[nOk++] = m;
      if (most > mostA) mostA = most;
    }
    // Member by member of A, so each one's bits of G \ Q are marked once for all its partners:
    // then a partner's list gives the pair's exact |G \ Q| (out-bits.ts).
    for (let p = A.start[ga]; p < A.start[ga + 1] && nOk > 0; p++) {
      const i = A.order[p];
      const di = da[i];
      if (di > mostA) break;
      pick[0] = i;
      const ai = outBitsAt(oa, i, di);
      for (let k = ai; k < ai + di; k++) mark[oa.bits[k] >>> 5] |= 1 << (oa.bits[k] & 31);
      for (let e = 0; e < nOk; e++) {
        const most = okMost[e];
        if (di > most) continue;
        const lim = most - di;
        const gb = okB[e];
        for (let r = B.start[gb]; r < B.start[gb + 1]; r++) {
          const j = B.order[r];
          if (db[j] > most) break;
          if (pairs && pairEntry(pairs, i, j) === PAIR_INVALID) continue;
          const bj = outBitsAt(ob, j, db[j]);
          const bits = ob.bits;
          let extra = 0;
          for (let k = bj, end = bj + db[j]; k < end; k++) {
            const b = bits[k];
            if ((mark[b >>> 5] & (1 << (b & 31))) === 0 && ++extra > lim) break;
          }
          if (extra > lim) continue;
          counts.screened++;
          // bounds.ts pickBound, exactly: the pair's |G| − x is d_i + extra.
          const den = a + di + extra;
          const bound = den <= 0 ? 1 : okM[e] / den;
          if (bound + 1e-9 < t) continue;
          pick[1] = j;
          if (!push(pick, bound) || (counts.screened % 4096 === 0 && expired())) return;
        }
      }
      for (let k = ai; k < ai + di; k++) mark[oa.bits[k] >>> 5] = 0;
    }
  }
}
