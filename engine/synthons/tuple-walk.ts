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
 * bound, before any other. Two-slot reactions (most ring-core ones) take pair-walk.ts, which
 * makes the same cuts over groups of synthons sharing a query mask.
 */
import { columnWords, FOLD_WORDS, pickBound, pop32, type SlotTerms } from './bounds.ts';
import type { SlotColumns } from './format.ts';
import { pairEntry, PAIR_INVALID, ringPairsOf } from './ring-pairs.ts';
import { pairWalk } from './pair-walk.ts';

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
  if (slots.length === 2) return pairWalk(q, a, t, slots, terms, counts, push, expired);
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
