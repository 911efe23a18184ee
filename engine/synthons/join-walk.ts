/**
 * The candidate walk of a two-slot, one-join reaction with join environments (join-env.ts): the
 * same proof as bounds.ts, with the slack for environments that reach the join replaced by the
 * cross codes themselves. A product of a and b has G_a ∪ G_b plus cross bits, all among
 * nearCodes(a, inv(B)) ∪ nearCodes(b, inv(A)) ∪ {(A,2), (B,2)}; the first set depends on b only
 * through the invariant of its attachment atom (a handful of values per slot), so
 *     |Q ∩ P| ≤ |Q ∩ G_a| + |Q ∩ near(a, inv B)| + 1 + |Q ∩ G_b| + |Q ∩ near(b, inv A)| + 1
 * separates per synthon once the slots are grouped by attachment invariant, and |P \ Q| ≥
 * max(|G_a \ Q|, |G_b \ Q|) as before. Tuples passing it get the OR bound with every cross code:
 * min(|Q|, |Q ∩ G| + |Q ∩ X \ G|) / (|Q| + |G \ Q|), G = G_a ∪ G_b, X = crossCodes(a, b).
 */
import { FP_BYTES } from '../chem/fingerprint.ts';
import type { SlotColumns } from './format.ts';
import { byWeight, columnWords, type SlotTerms } from './bounds.ts';
import { outBitsAt, outBitsOf } from './out-bits.ts';
import { mostNear, nearBits, nearInQ } from './near-bits.ts';
import { acrossCodes, exactCrossCodes, nearCodes, type JoinEnv } from './join-env.ts';
import { envAt, envC0, packJoinEnvs, type PackedEnvs } from './packed-envs.ts';

const NBITS = FP_BYTES * 8;
const WORDS = FP_BYTES / 4;

const envCache = new WeakMap<SlotColumns, PackedEnvs | null>();

/** The slot's join environments, packed (once per opened space); undefined if any is missing. */
export function slotJoinEnvs(slot: SlotColumns): PackedEnvs | undefined {
  if (!slot.joinEnv) return undefined;
  let envs = envCache.get(slot);
  if (envs === undefined) envCache.set(slot, (envs = packJoinEnvs(slot.joinEnv) ?? null));
  return envs ?? undefined;
}

/**
 * The exact product fingerprint of (i, j) from guaranteed bits and exact cross codes, into `out`;
 * undefined when exactCrossCodes cannot decide (the caller zips the graphs instead).
 */
export function envFingerprint(
  slots: readonly SlotColumns[],
  envs: readonly [PackedEnvs, PackedEnvs],
  i: number,
  j: number,
  out: Uint8Array,
): Uint8Array | undefined {
  const codes = exactCrossCodes(envAt(envs[0], i), envAt(envs[1], j));
  if (!codes) return undefined;
  const ga = slots[0].guaranteed;
  const gb = slots[1].guaranteed;
  const oa = i * FP_BYTES;
  const ob = j * FP_BYTES;
  for (let k = 0; k < FP_BYTES; k++) out[k] = ga[oa + k] | gb[ob + k];
  for (const c of codes) {
    const bit = c % NBITS;
    out[bit >> 3] |= 1 << (bit & 7);
  }
  return out;
}

function pop32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function inQ(q: Uint32Array, code: number): boolean {
  const bit = code % NBITS;
  return ((q[bit >>> 5] >>> (bit & 31)) & 1) === 1;
}

const attachmentMemo = new WeakMap<PackedEnvs, Map<number, number[]>>();

/** Synthon indices of a slot by the invariant of their attachment atom (once per slot). */
function byAttachment(envs: PackedEnvs): Map<number, number[]> {
  const known = attachmentMemo.get(envs);
  if (known) return known;
  const out = new Map<number, number[]>();
  attachmentMemo.set(envs, out);
  for (let i = 0; i < envs.length; i++) {
    const c0 = envC0(envs, i);
    const list = out.get(c0);
    if (list) list.push(i);
    else out.set(c0, [i]);
  }
  return out;
}

/**
 * Adds `bit` to the first `n` entries of `seen` unless it is there; returns the new count. The
 * lists are a handful of bits long, so a scan beats a Set (whose allocations per tuple were a
 * large part of the walk's garbage).
 */
function addDistinct(seen: Int32Array, n: number, bit: number): number {
  for (let k = 0; k < n; k++) if (seen[k] === bit) return n;
  seen[n] = bit;
  return n + 1;
}

/** Room for the distinct bits of one tuple's cross codes (a handful; more get their own). */
const distinct = new Int32Array(64);
const room = (n: number): Int32Array => (n <= distinct.length ? distinct : new Int32Array(n));

/**
 * Everything of a two-slot join reaction's walk that does not depend on the query, done now:
 * packed environments, synthons by attachment invariant, near bits per partner invariant.
 * Returns false when the reaction has no join environments (the walk does not take it).
 */
export function prepareJoinWalk(slots: readonly SlotColumns[]): boolean {
  if (slots.length !== 2) return false;
  const [ea, eb] = slots.map(slotJoinEnvs);
  if (!ea || !eb) return false;
  for (const [mine, other] of [
    [ea, eb],
    [eb, ea],
  ])
    for (const partner of byAttachment(other).keys()) {
      const near = nearBits(mine, partner);
      for (const [key, list] of byAttachment(mine)) mostNear(near, key, list);
    }
  return true;
}

/**
 * Per query and reaction (keyed by its slot terms, which similarityTopK's threshold steps share):
 * each attachment-invariant pair's synthon terms and orders. They depend on the query only, and
 * recomputing them (the near codes of every synthon) was most of a step's time on the 10^9 space.
 */
const groupMemo = new WeakMap<readonly SlotTerms[], QueryMemo>();

interface QueryMemo {
  x: Int32Array[];
  /** Per slot and attachment invariant, the largest x of the group's synthons. */
  maxX: [Map<number, number>, Map<number, number>];
  groups: Map<string, GroupTerms>;
  /** Environments of the synthons the walk reached, unpacked once per query and slot. */
  unpacked: [Array<JoinEnv | undefined>, Array<JoinEnv | undefined>];
}

interface GroupTerms {
  wa: Int32Array;
  wb: Int32Array;
  oa: Int32Array;
  ob: Int32Array;
  /** Near codes of the synthons the walk reached (by position in the group), filled as needed. */
  nearA: Array<number[] | undefined>;
  nearB: Array<number[] | undefined>;
}

/** The largest x of a group's synthons (memoised per query in `memo`). */
function maxOver(memo: Map<number, number>, key: number, x: Int32Array, list: readonly number[]): number {
  let m = memo.get(key);
  if (m === undefined) {
    m = 0;
    for (let p = 0; p < list.length; p++) if (x[list[p]] > m) m = x[list[p]];
    memo.set(key, m);
  }
  return m;
}

/**
 * x_s = w_s − u_s of every synthon of a slot, in a plain loop: Int32Array.from with a mapping
 * function calls it per element through the generic iterator, and was 8 % of a product query.
 */
function overlaps(w: Int32Array, unstable: Uint16Array): Int32Array {
  const x = new Int32Array(w.length);
  for (let i = 0; i < w.length; i++) x[i] = w[i] - unstable[i];
  return x;
}

/**
 * Walks the reaction's tuples whose bound reaches t, calling `push(i, j, bound)`; `push` returns
 * false to stop (then so does the walk, returning false, as when `expired()` turns true).
 * `terms` are bounds.ts's slot terms.
 */
export function joinWalk(
  q: Uint32Array,
  a: number,
  t: number,
  slots: readonly SlotColumns[],
  envs: readonly [PackedEnvs, PackedEnvs],
  terms: readonly SlotTerms[],
  counts: { screened: number },
  push: (i: number, j: number, bound: number) => boolean,
  expired: () => boolean,
  /** Given: receives the tuples whose bound falls short of t by less than `spareBelow`. */
  spare?: (i: number, j: number, bound: number) => void,
  spareBelow = 0,
): boolean {
  let memo = groupMemo.get(terms);
  if (!memo)
    groupMemo.set(
      terms,
      (memo = { x: [], maxX: [new Map(), new Map()], groups: new Map(), unpacked: [[], []] }),
    );
  const [ua, ub] = memo.unpacked;
  const x = memo.x.length ? memo.x : (memo.x = terms.map((ts, s) => overlaps(ts.w, slots[s].unstableEnvs)));
  const [ga, gb] = envs.map(byAttachment);
  const scratch = new Uint32Array(WORDS);
  const mark = new Uint32Array(WORDS);
  const outA = outBitsOf(terms[0], slots[0].guaranteed, q);
  const outB = outBitsOf(terms[1], slots[1].guaranteed, q);
  const tCut = spare ? t - spareBelow : t;
  for (const [ka, ia] of ga)
    for (const [kb, jb] of gb) {
      const key = `${ka}:${kb}`;
      let group = memo.groups.get(key);
      if (!group) {
        const na = nearBits(envs[0], kb);
        const nb = nearBits(envs[1], ka);
        // No synthon of the pair of groups can reach t (w ≤ max x + 1 + most near bits on each
        // side): skip it without its terms, which a lower threshold's step computes if it needs.
        const maxA = maxOver(memo.maxX[0], ka, x[0], ia) + 1 + mostNear(na, ka, ia);
        const maxB = maxOver(memo.maxX[1], kb, x[1], jb) + 1 + mostNear(nb, kb, jb);
        if (Math.min(a, maxA + maxB) < t * a) continue;
        const wa = new Int32Array(ia.length);
        for (let p = 0; p < ia.length; p++) wa[p] = x[0][ia[p]] + nearInQ(q, na, ia[p]);
        const wb = new Int32Array(jb.length);
        for (let p = 0; p < jb.length; p++) wb[p] = x[1][jb[p]] + nearInQ(q, nb, jb[p]);
        const oa = byWeight(wa);
        const ob = byWeight(wb);
        memo.groups.set(key, (group = { wa, wb, oa, ob, nearA: [], nearB: [] }));
      }
      const { wa, wb, oa, ob, nearA, nearB } = group;
      const wbMax = wb[ob[0]];
      const [ta, tb] = terms;
      const qw = ta.qw;
      // Indexed loops: the walk's hot path allocates nothing per tuple it only bounds.
      for (let ka2 = 0; ka2 < oa.length; ka2++) {
        const pa = oa[ka2];
        const i = ia[pa];
        const di = terms[0].d[i];
        if (Math.min(a, wa[pa] + wbMax) < t * a) break;
        if (Math.min(a, wa[pa] + wbMax) < t * (a + di)) continue;
        // i's bits of G \ Q marked: a partner's list then gives the pair's exact |G \ Q|.
        const ai = outBitsAt(outA, i, di);
        for (let k = ai; k < ai + di; k++) mark[outA.bits[k] >>> 5] |= 1 << (outA.bits[k] & 31);
        for (let kb2 = 0; kb2 < ob.length; kb2++) {
          const pb = ob[kb2];
          const j = jb[pb];
          const w = Math.min(a, wa[pa] + wb[pb]);
          if (w < t * (a + di)) break;
          const dj = terms[1].d[j];
          if (w < t * (a + Math.max(di, dj))) continue;
          // As in pair-walk.ts: the pair's exact |Q ∩ G| (x_i + x_j counts shared bits twice)
          // and exact |G \ Q|, before the cross codes. Cut at the spares' floor when spares are
          // wanted: orBound never exceeds this bound, so every tuple it would keep gets there.
          let xu = 0;
          for (let k = 0; k < qw; k++) xu += pop32(ta.qm[i * qw + k] | tb.qm[j * qw + k]);
          const near = wa[pa] - x[0][i] + wb[pb] - x[1][j];
          const m = Math.min(a, xu + near);
          const bj = outBitsAt(outB, j, dj);
          const bits = outB.bits;
          let dij = di;
          for (let k = bj; k < bj + dj; k++) if ((mark[bits[k] >>> 5] & (1 << (bits[k] & 31))) === 0) dij++;
          if (m < tCut * (a + dij)) continue;
          if (++counts.screened % 4096 === 0 && expired()) return false;
          const ea = (ua[i] ??= envAt(envs[0], i));
          const eb = (ub[j] ??= envAt(envs[1], j));
          const na = (nearA[pa] ??= nearCodes(ea, kb));
          const nb = (nearB[pb] ??= nearCodes(eb, ka));
          const across = acrossCodes(ea, eb, na[0], nb[0]);
          const ownA = ea.nbrs.length > 0;
          const bound = orBound(q, a, slots, i, j, na, nb, across, scratch, ownA, eb.nbrs.length > 0);
          if (bound + 1e-9 >= t) {
            if (!push(i, j, bound)) return false;
          } else if (spare && bound >= t - spareBelow) spare(i, j, bound);
        }
        for (let k = ai; k < ai + di; k++) mark[outA.bits[k] >>> 5] = 0;
      }
    }
  return true;
}

/**
 * min(a, |Q ∩ G| + |Q ∩ X \ G|) / (a + |G \ Q| + k) for the tuple (i, j), k the (A,1) and (B,1)
 * codes outside Q and G of attachment atoms with a neighbour of their own (`ownA`, `ownB`):
 * those are in every product, since no other atom's radius-1 environment has the same two or
 * more bonds (join-env.ts exactCrossCodes keeps them; ring-cross.ts keptAttach). They cut
 * caffeine's scored epoxide products on the 10^9 space (bench/synthons/README.md, "Exact
 * |G \ Q| from lists").
 */
export function orBound(
  q: Uint32Array,
  a: number,
  slots: readonly SlotColumns[],
  i: number,
  j: number,
  na: readonly number[],
  nb: readonly number[],
  across: readonly number[],
  g: Uint32Array,
  ownA: boolean,
  ownB: boolean,
): number {
  const ra = columnWords(slots[0].guaranteed);
  const rb = columnWords(slots[1].guaranteed);
  const oa = i * WORDS;
  const ob = j * WORDS;
  let common = 0;
  let all = 0;
  for (let k = 0; k < WORDS; k++) {
    const v = (g[k] = ra[oa + k] | rb[ob + k]);
    if (v === 0) continue;
    all += pop32(v);
    common += pop32(v & q[k]);
  }
  let extra = 0;
  // The tuple's cross codes (crossCodes of join-env.ts, in parts).
  const seen = room(na.length + nb.length + across.length);
  for (let part = 0; part < 3; part++) {
    const codes = part === 0 ? na : part === 1 ? nb : across;
    for (let k = 0; k < codes.length; k++) {
      const bit = codes[k] % NBITS;
      if (inQ(q, bit) && ((g[bit >>> 5] >>> (bit & 31)) & 1) === 0) extra = addDistinct(seen, extra, bit);
    }
  }
  let kept = 0;
  for (let side = 0; side < 2; side++) {
    if (!(side === 0 ? ownA : ownB)) continue;
    const bit = (side === 0 ? na : nb)[0] % NBITS;
    const mask = 1 << (bit & 31);
    if (q[bit >>> 5] & mask || g[bit >>> 5] & mask) continue;
    g[bit >>> 5] |= mask;
    kept++;
  }
  const den = a + all - common + kept;
  return den <= 0 ? 1 : Math.min(a, common + extra) / den;
}
