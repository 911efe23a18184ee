/**
 * The slot-by-slot walk of a reaction's tuples whose bound reaches t, for the reactions that
 * join-walk.ts does not take (ring-closing and double-bond joins, three or more slots). Pure,
 * typed arrays only.
 *
 * Synthons come in descending w order per slot (bounds.ts). A tuple is cut, cheapest test first:
 * 1. the separable bound min(a, Σw) / (a + max d), whose first failure ends a slot's loop;
 * 2. the exact x of the picks so far (the OR of their renumbered query masks, one or two words:
 *    Σw counts a query bit once per synthon holding it, and aromatic CH is in most of them),
 *    with what the slots left can add;
 * 3. the same with |G| − x bounded below by the OR of the picks' folds of G \ Q;
 * 4. the 64-word OR bound (bounds.ts `pickBound`).
 * For aspirin at 0.55 on the 10^9 space, 2 and 3 cut the tuples reaching 4 from 12.4 M to under
 * 1 M, with the same candidates (bench/synthons/README.md, "Stored pair states…").
 * Tuples of a pair of ring cores molzip cannot join (ring-pairs.ts) are cut after the separable
 * bound, before any other.
 */
import { columnWords, FOLD_WORDS, pickBound, pop32, type SlotTerms } from './bounds.ts';
import type { SlotColumns } from './format.ts';
import { pairEntry, PAIR_INVALID, ringPairsOf } from './ring-pairs.ts';

/**
 * Calls `push(pick, bound)` for every tuple whose bound reaches t (`pick` is reused: copy it);
 * `push` returns false to stop, as does `expired()` (asked every 4,096 screened tuples).
 */
export function tupleWalk(
  q: Uint32Array,
  a: number,
  t: number,
  slots: readonly SlotColumns[],
  terms: readonly SlotTerms[],
  counts: { screened: number },
  push: (pick: Int32Array, bound: number) => boolean,
  expired: () => boolean,
): void {
  if (slots.length === 2) return walkPair(q, a, t, slots, terms, counts, push, expired);
  // Most that the slots after s can still add to Σw.
  const rest = new Int32Array(slots.length + 1);
  for (let s = slots.length - 1; s >= 0; s--) rest[s] = rest[s + 1] + terms[s].w[terms[s].order[0]];
  const pick = new Int32Array(slots.length);
  const cols = slots.map((s) => columnWords(s.guaranteed));
  const scratch = new Uint32Array(q.length);
  const pairs = ringPairsOf(slots);
  // Per depth, the OR of the picks' masks and folds (SlotTerms.qm, fold & keep).
  const qw = terms[0].qw;
  const acc = new Uint32Array((slots.length + 1) * qw);
  const F = FOLD_WORDS;
  const fold = new Uint32Array((slots.length + 1) * F);
  let stop = false;
  const walk = (s: number, wSum: number, dMax: number, uSum: number): void => {
    const ts = terms[s];
    const qm = ts.qm;
    const qf = ts.fold;
    const keep = ts.keep;
    for (let n = 0; n < ts.order.length && !stop; n++) {
      const i = ts.order[n];
      const w = wSum + ts.w[i];
      const d = Math.max(dMax, ts.d[i]);
      // Σw only shrinks along `order` and max d only grows, so the first failure ends the loop.
      if (Math.min(a, w + rest[s + 1]) < t * (a + Math.max(dMax, 0))) break;
      if (Math.min(a, w + rest[s + 1]) < t * (a + d)) continue;
      // A pair of ring cores molzip cannot join gives only invalid assemblies: cut before any
      // bound work (the Friedlaender reaction's invalid pairs were most of its screened tuples).
      if (pairs && s === 1 && pairEntry(pairs, pick[0], i) === PAIR_INVALID) continue;
      const u = uSum + slots[s].unstableEnvs[i];
      let x = 0;
      for (let k = 0; k < qw; k++) {
        const v = acc[s * qw + k] | qm[i * qw + k];
        acc[(s + 1) * qw + k] = v;
        x += pop32(v);
      }
      if (Math.min(a, x + u + rest[s + 1]) < t * (a + d)) continue;
      let out = 0;
      for (let k = 0; k < F; k++) {
        const v = fold[s * F + k] | (qf[i * F + k] & keep[k]);
        fold[(s + 1) * F + k] = v;
        out += pop32(v);
      }
      if (Math.min(a, x + u + rest[s + 1]) < t * (a + Math.max(d, out))) continue;
      pick[s] = i;
      if (s + 1 < slots.length) {
        walk(s + 1, w, d, u);
        continue;
      }
      counts.screened++;
      const bound = pickBound(q, a, cols, pick, u, scratch);
      if (bound + 1e-9 < t) continue;
      if (!push(pick, bound) || (counts.screened % 4096 === 0 && expired())) stop = true;
    }
  };
  walk(0, 0, 0, 0);
}

/** Buckets of the inner slot by d (at most this many), each in w order. */
const D_BUCKETS = 16;

/**
 * The inner slot's synthons grouped by d, each group in descending w: a group's first synthon
 * that fails min(a, w_i + w_j) ≥ t(a + max(d_i, its least d)) ends the group. In one w order,
 * a pair failing only on a large d_j was skipped one at a time (14 M of aspirin's 23 M visited
 * pairs at its exact top 100 on the 10^9 space, 2026-11-29).
 */
function dBuckets(tb: SlotTerms): { order: Int32Array; start: Int32Array; lo: Int32Array } {
  const known = buckets.get(tb);
  if (known) return known;
  const { order: ob, d } = tb;
  let min = Infinity;
  let max = -Infinity;
  for (let m = 0; m < ob.length; m++) {
    min = Math.min(min, d[ob[m]]);
    max = Math.max(max, d[ob[m]]);
  }
  const width = Math.max(1, Math.ceil((max - min + 1) / D_BUCKETS));
  const nb = Math.max(1, Math.ceil((max - min + 1) / width));
  const start = new Int32Array(nb + 1);
  for (let m = 0; m < ob.length; m++) start[Math.floor((d[ob[m]] - min) / width) + 1]++;
  for (let g = 0; g < nb; g++) start[g + 1] += start[g];
  const fill = start.slice(0, nb);
  const order = new Int32Array(ob.length);
  // Stable: each bucket keeps the w order of `ob`.
  for (let m = 0; m < ob.length; m++) order[fill[Math.floor((d[ob[m]] - min) / width)]++] = ob[m];
  const lo = Int32Array.from({ length: nb }, (_, g) => min + g * width);
  const out = { order, start, lo };
  buckets.set(tb, out);
  return out;
}

const buckets = new WeakMap<SlotTerms, { order: Int32Array; start: Int32Array; lo: Int32Array }>();

/**
 * tupleWalk for two slots: the same cuts in the same order, as flat loops over locals, the inner
 * slot by buckets of d (dBuckets). Most ring-core reactions have two slots; the recursive walk's
 * closure spent ~30 ns a visited tuple, millions of them a query (the triazole acetohydrazide's
 * 5.4 M at 0.55 for one query).
 */
function walkPair(
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
  const oa = ta.order;
  if (tb.order.length === 0) return;
  const [wa, wb, da, db] = [ta.w, tb.w, ta.d, tb.d];
  const [ua, ub] = [slots[0].unstableEnvs, slots[1].unstableEnvs];
  const [ma, mb, fa, fb, keep] = [ta.qm, tb.qm, ta.fold, tb.fold, ta.keep];
  const qw = ta.qw;
  const F = FOLD_WORDS;
  const wbMax = wb[tb.order[0]];
  const { order: ob, start, lo } = dBuckets(tb);
  const nb = lo.length;
  const cols = slots.map((s) => columnWords(s.guaranteed));
  const pairs = ringPairsOf(slots);
  const pick = new Int32Array(2);
  const scratch = new Uint32Array(q.length);
  for (let n = 0; n < oa.length; n++) {
    const i = oa[n];
    const wi = wa[i];
    const di = da[i];
    // Σw only shrinks along `order` and max d only grows, so the first failure ends the loop.
    if (Math.min(a, wi + wbMax) < t * a) break;
    if (Math.min(a, wi + wbMax) < t * (a + di)) continue;
    const ui = ua[i];
    let xi = 0;
    for (let k = 0; k < qw; k++) xi += pop32(ma[i * qw + k]);
    if (Math.min(a, xi + ui + wbMax) < t * (a + di)) continue;
    let outi = 0;
    for (let k = 0; k < F; k++) outi += pop32(fa[i * F + k] & keep[k]);
    if (Math.min(a, xi + ui + wbMax) < t * (a + Math.max(di, outi))) continue;
    pick[0] = i;
    for (let g = 0; g < nb; g++) {
      const cut = t * (a + Math.max(di, lo[g]));
      for (let m = start[g]; m < start[g + 1]; m++) {
        const j = ob[m];
        const w = Math.min(a, wi + wb[j]);
        if (w < cut) break;
        const d = Math.max(di, db[j]);
        if (w < t * (a + d)) continue;
        if (pairs && pairEntry(pairs, i, j) === PAIR_INVALID) continue;
        const u = ui + ub[j];
        let x = 0;
        for (let k = 0; k < qw; k++) x += pop32(ma[i * qw + k] | mb[j * qw + k]);
        if (Math.min(a, x + u) < t * (a + d)) continue;
        let out = 0;
        for (let k = 0; k < F; k++) out += pop32((fa[i * F + k] | fb[j * F + k]) & keep[k]);
        if (Math.min(a, x + u) < t * (a + Math.max(d, out))) continue;
        pick[1] = j;
        counts.screened++;
        const bound = pickBound(q, a, cols, pick, u, scratch);
        if (bound + 1e-9 < t) continue;
        if (!push(pick, bound) || (counts.screened % 4096 === 0 && expired())) return;
      }
    }
  }
}
