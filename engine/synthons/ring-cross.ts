/**
 * A per-tuple bound for the products of ring-closing and double-bond joins, from each side's own
 * environments and the few codes that cross the join (pure but for the ring cores, read once).
 *
 * ring-bound.ts gives every synthon one (G'', U'') over all its partners; its U'' (~6 a side on
 * the AutoGrow4 space) counts every environment that reaches the partner as a possible common
 * bit. For aspirin's exact top 100 on the 10^9 space that let 91,800 ring-core products through to
 * exact scoring, 45,000 of them Fischer indoles, 4.5 s of its 5 s (2026-11-29). Once the walk
 * has a tuple, its pair of cores is known, and with it the state RDKit gives each side's unstable
 * atoms (ring-pairs.ts). Then, for synthon a in the product (radius 2, a connector standing for
 * the partner atom B it is zipped to):
 * - the environments whose ball holds no partner atom (`free`) are exact, as ring-bound.ts
 *   proves, so they are in the product;
 * - (A, 1) at an atom A bonded to the partner and (x, 2) at a neighbour x of A see of the
 *   partner only B's invariant and the bond A–B: the partner's side gives the one and the state
 *   the other, so these codes are known (`near`; RDKit may drop some as redundant, so they are a
 *   superset, which a bound may use);
 * - (A, 2) sees B's neighbours too, through B's radius-1 code, which the partner's side computes
 *   next to this one as it does A's: so the (A, 2) codes are known as well (ring-side-codes.ts
 *   attachTwoBits); where they cannot be computed, one unknown bit per such A (`e`).
 * So the product P ⊆ free_a ∪ free_b ∪ near_a ∪ near_b (the (A, 2) codes among near, else plus
 * at most e_a + e_b bits), with free_a ∪ free_b ⊆ P. An (A, 1) code of an A with a neighbour of
 * its own is in P too (RDKit never drops it as redundant: ring-side-codes.ts keptAttach); those
 * outside Q and free are `kept`, and
 *   T(Q, P) ≤ min(|Q|, |Q ∩ (free ∪ near)| + e) / (|Q| + |free \ Q| + |kept|).
 * `kept` cut caffeine's scored benzimidazoles on the 10^9 space from 17,188 to 8,345, the exact
 * (A, 2) codes (e = 0) to 524.
 * Test: test/engine/synthons/ring-cross.test.ts (at least RDKit's Tanimoto on every product).
 */
import { FP_BYTES, MORGAN_FP } from '../chem/fingerprint.ts';
import type { RDKitModule } from '../chem/rdkit.ts';
import { pop32 } from './column-stats.ts';
import type { ReactionInfo, SlotColumns } from './format.ts';
import { pairEntry, readState, ringPairsOf, type RingPairs } from './ring-pairs.ts';
import { makeSide, sideIdOf } from './ring-side.ts';
import { attachTwoBits, keptAttach, nearBits } from './ring-side-codes.ts';
import { clearNearMemo, nearOf } from './ring-near-memo.ts';
import { ringSideOf } from './ring-zip.ts';
import { numberMemo, type NumberMemo } from './number-memo.ts';

export { nearBits };

const WORDS = FP_BYTES / 4;

/**
 * Sides kept per thread, in one pool of words (ring-side.ts's layout, ~150 words a side) with
 * their offsets by slot and key: a query meets tens of thousands of sides, and as objects with
 * typed arrays of their own they were garbage every full collection had to trace. Cleared when
 * the pool reaches its limit (24 M words, 96 MB: every side of the 10^9 space, made by
 * makeRingSides, takes between 8 and 17 M).
 */
let maxWords = 24_000_000;
let pool = new Uint32Array(1 << 20);
let used = 0;
let offsets = new Map<SlotColumns, Map<number, number>>();

/** The offset of synthon i's side of slot s under the state at `at`, made once; −1: none. */
function sideOf(
  rd: RDKitModule,
  slots: readonly SlotColumns[],
  s: number,
  i: number,
  table: RingPairs,
  at: number,
  ringForming: boolean,
  paired: Set<number>,
): number {
  const id = sideIdOf(table, at, s);
  if (id < 0) return -1;
  let m = offsets.get(slots[s]);
  if (!m) offsets.set(slots[s], (m = new Map()));
  // Small integer keys: i · 2^20 + id left V8's small-integer range past synthon 1,023, and every
  // lookup then hashed a heap number it had just allocated (a fifth of a warm query's walk).
  const key = id * slots[s].synthonIds.length + i;
  const known = m.get(key);
  if (known !== undefined) return known;
  const c = ringSideOf(rd, slots[s], i, ringForming);
  const words = c && makeSide(c.core, c.g, readState(table, at), s, paired);
  if (!words) {
    m.set(key, -1);
    return -1;
  }
  if (used + words.length > maxWords) {
    // Full: start again (offsets handed out before are not read after this call returns).
    used = 0;
    offsets = new Map([[slots[s], (m = new Map())]]);
    clearNearMemo();
  }
  if (used + words.length > pool.length) {
    const grown = new Uint32Array(Math.max(used + words.length, Math.min(maxWords, 2 * pool.length)));
    grown.set(pool.subarray(0, used));
    pool = grown;
  }
  pool.set(words, used);
  m.set(key, used);
  used += words.length;
  return used - words.length;
}

/** A two-slot ring-bound reaction with its stored pair table, as the bound reads it. */
export interface RingReaction {
  rd: RDKitModule;
  slots: readonly SlotColumns[];
  table: RingPairs;
  ringForming: boolean;
  /** Its connector labels, each on both slots. */
  paired: Set<number>;
}

/** The reaction as the bound reads it, or undefined: no stored table, or a one-slot label. */
export function ringReaction(
  rd: RDKitModule,
  reaction: { info: ReactionInfo; slots: readonly SlotColumns[] },
): RingReaction | undefined {
  const table = ringPairsOf(reaction.slots);
  const paired = pairedLabels(reaction.info);
  if (!table || !reaction.info.ringBound || !paired) return undefined;
  return { rd, slots: reaction.slots, table, ringForming: reaction.info.ringForming, paired };
}

/**
 * The offsets of the two sides of the tuple (i, j) under its stored pair state in `sidePool()`,
 * or undefined when it cannot be made (no stored state, a connector without a partner, an odd
 * join).
 */
export function tupleSides(
  r: RingReaction,
  i: number,
  j: number,
  again = true,
): [number, number] | undefined {
  const { rd, slots, table, ringForming, paired } = r;
  if (MORGAN_FP.radius !== 2) return undefined;
  const at = pairEntry(table, i, j);
  if (at < 0) return undefined;
  const sa = sideOf(rd, slots, 0, i, table, at, ringForming, paired);
  if (sa < 0) return undefined;
  const used0 = used;
  const sb = sideOf(rd, slots, 1, j, table, at, ringForming, paired);
  // Making b's side may have cleared the pool: a's side is made again after it.
  if (sb < 0) return undefined;
  if (used < used0) return again ? tupleSides(r, i, j, false) : undefined;
  return [sa, sb];
}

/** Words of the pool in use (the sides kept). */
export const ringSidesUsed = (): number => used;

/** The pool's limit in words (clearRingSides sets it). */
export const ringSidesLimit = (): number => maxWords;

/** The pool the offsets of tupleSides point into (valid until the next tupleSides call). */
export const sidePool = (): Uint32Array => pool;

const known = new Uint32Array(WORDS);
const nearList: number[] = [];

/** The bound above for the tuple (i, j), or undefined where tupleSides has no sides for it. */
export function ringCrossBound(
  r: RingReaction,
  i: number,
  j: number,
  q: Uint32Array,
  a: number,
  /**
   * When the bound with one unknown bit per attachment atom is already below this, it is returned
   * as it is, without the (A, 2) codes, and `status.loose` is set.
   */
  cutAt = -Infinity,
  status: { loose: boolean } = { loose: false },
): number | undefined {
  status.loose = false;
  const both = tupleSides(r, i, j);
  if (!both) return undefined;
  const [sa, sb] = both;
  const p = pool;
  let x = 0;
  let all = 0;
  for (let k = 0; k < WORDS; k++) {
    const v = p[sa + k] | p[sb + k];
    known[k] = v;
    if (v === 0) continue;
    all += pop32(v);
    x += pop32(v & q[k]);
  }
  nearList.length = 0;
  if (!nearOf(p, sa, sb, nearList, codesA)) return undefined;
  const fromB = nearList.length;
  if (!nearOf(p, sb, sa, nearList, codesB)) return undefined;
  const nA = keptAttach(p, sa, keptA);
  const nB = keptAttach(p, sb, keptB);
  if (nA > keptA.length || nB > keptB.length) return undefined;
  // Each near bit once, and only where it would be a new common bit.
  let extra = newInQ(nearList, q);
  // The (A, 1) bits every product keeps (keptAttach) outside Q and the free bits: more of P \ Q.
  let out = 0;
  for (let n = 0; n < nA + nB; n++) {
    if (!(n < nA ? keptA[n] : keptB[n - nA])) continue;
    const bit = nearList[n < nA ? n : fromB + n - nA];
    const w = bit >>> 5;
    const mask = 1 << (bit & 31);
    if (q[w] & mask || known[w] & mask) continue;
    known[w] |= mask;
    out++;
  }
  const den = a + all - x + out;
  const loose = Math.min(a, x + extra + nA + nB) / den;
  if (loose + 1e-9 < cutAt) {
    status.loose = true;
    return loose;
  }
  // The (A, 2) codes from both sides' radius-1 codes: then no bit of P is unknown; where they
  // cannot be computed, the one unknown bit per attachment atom stays.
  twoList.length = 0;
  if (
    !attachTwoBits(p, sa, codesA, p, sb, codesB, twoList) ||
    !attachTwoBits(p, sb, codesB, p, sa, codesA, twoList)
  )
    return loose;
  extra += newInQ(twoList, q);
  return Math.min(a, x + extra) / den;
}

/** Bits of `bits` in Q and not yet in `known`, each counted once and marked in `known`. */
function newInQ(bits: readonly number[], q: Uint32Array): number {
  let n = 0;
  for (const bit of bits) {
    const w = bit >>> 5;
    const mask = 1 << (bit & 31);
    if (!(q[w] & mask) || known[w] & mask) continue;
    known[w] |= mask;
    n++;
  }
  return n;
}

const twoList: number[] = [];

const keptA = new Uint8Array(64);
const keptB = new Uint8Array(64);
const codesA = new Uint32Array(64);
const codesB = new Uint32Array(64);

/** Frees the kept sides and sets the pool's limit (tests: a small one clears it often). */
export function clearRingSides(limit = 24_000_000): void {
  maxWords = limit;
  pool = new Uint32Array(1 << 20);
  used = 0;
  offsets = new Map();
  clearNearMemo();
}

/**
 * ringCrossBound for one reaction's tuples (i, j) against one query, or undefined when the
 * reaction has no stored pair table or a connector label only one slot carries.
 */
export function crossBounder(
  rd: RDKitModule,
  reaction: { info: ReactionInfo; slots: readonly SlotColumns[] },
  q: Uint32Array,
  a: number,
  /**
   * An object that lives as long as the query (its slot terms): the bounds are kept under it, so
   * similarityTopK's threshold steps, which walk the same tuples again, compute each once.
   */
  memoKey?: object,
): CrossBounder | undefined {
  const r = ringReaction(rd, reaction);
  if (!r) return undefined;
  let memo = memoKey && memos.get(memoKey);
  if (memoKey && !memo) memos.set(memoKey, (memo = numberMemo()));
  const n1 = r.slots[1].synthonIds.length;
  // The bound without the (A, 2) codes when it already cuts at t, kept as value + LOOSE:
  // computing those codes for every tuple slowed the fast queries by a quarter. A lower
  // threshold step refines a loose bound that no longer cuts.
  const status = { loose: false };
  const bound = (i: number, j: number, t: number): number | undefined => {
    const key = i * n1 + j;
    const known = memo?.get(key);
    if (known !== undefined) {
      if (known < 0) return undefined;
      if (known < LOOSE) return known;
      if (known - LOOSE + 1e-9 < t) return known - LOOSE;
    }
    const b = ringCrossBound(r, i, j, q, a, t, status);
    memo?.set(key, b === undefined ? -1 : status.loose ? b + LOOSE : b);
    return b;
  };
  const known = (i: number, j: number): number | undefined => {
    const v = memo?.get(i * n1 + j);
    return v === undefined || v < 0 ? undefined : v >= LOOSE ? v - LOOSE : v;
  };
  return Object.assign(bound, { known });
}

/**
 * The cross bound of a tuple (i, j) at threshold t, and `known`: the bound a step before already
 * computed for it (loose or not, an upper bound either way), without computing one.
 */
export type CrossBounder = ((i: number, j: number, t: number) => number | undefined) & {
  known: (i: number, j: number) => number | undefined;
};

const memos = new WeakMap<object, NumberMemo>();
/** Added to a memoised bound computed without the (A, 2) codes (bounds are at most 1). */
const LOOSE = 2;

/** The labels of a two-slot reaction, or undefined when a label is on one slot only. */
export function pairedLabels(info: ReactionInfo): Set<number> | undefined {
  if (info.slots.length !== 2) return undefined;
  const [c0, c1] = info.slots.map((s) => new Set(s.connectors));
  return c0.size === c1.size && [...c0].every((l) => c1.has(l)) ? c0 : undefined;
}
