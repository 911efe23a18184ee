/**
 * One side of a ring-core tuple as ring-cross.ts bounds it: a synthon under the state its pair of
 * cores gives its unstable atoms (ring-pairs.ts), with the connectors standing for the partner
 * atoms they are zipped to. Pure: graphs and typed arrays.
 *
 * Kept compact (three small typed arrays a side, ~0.5 KB), since a query meets tens of thousands
 * of sides and a thread keeps them across queries: the synthon graph under the state is needed
 * only while the side is made.
 */
import {
  atomInvariants,
  bondInvariants,
  combine,
  hashPair,
  morganEnvironments,
} from '../analysis/embed/morgan-counts.ts';
import { FP_BYTES } from '../chem/fingerprint.ts';
import { fillAdjacency, markRingAtoms, newGraph, type MolGraph } from '../chem/graph.ts';
import { UNSTABLE, type RingCore } from './ring-core.ts';
import { readState, type RingPairs, type StoredState } from './ring-pairs.ts';
import { distancesFrom } from './synthon-chem.ts';

const NBITS = FP_BYTES * 8;
const WORDS = FP_BYTES / 4;
const PAIR_SHIFT = 2 ** 32;

/**
 * A side as one run of uint32s (kept in one pool per thread: ring-cross.ts), read at an offset:
 * - 64 words: the bits of its environments whose ball holds no partner atom (in every product);
 * - nL, then per paired connector (label, invariant of the atom bonded to it);
 * - nA, per atom A bonded to a connector: inv, m, m × (bond, value, label), label > 0 where the
 *   partner's invariant for that label replaces value (one unknown (A, 2) bit per A);
 * - nX, per atom x two bonds from a connector: code1, m, m × (bond, value, ref), ref > 0 where
 *   the code1 of attachment atom ref − 1 replaces value.
 */
export type SideWords = Uint32Array;

/** Where a side's atoms bonded to a connector are counted (nA), from its offset. */
export const attachAt = (buf: Uint32Array, off: number): number => off + WORDS + 1 + 2 * buf[off + WORDS];

const unpack = (key: number): [number, number, number, number] => {
  const hi = Math.floor(key / 65536);
  const lo = key % 65536;
  return [Math.floor(hi / 4096), hi % 4096, Math.floor(lo / 4096), lo % 4096];
};

/** What slot s sees of a state: its atoms' flags and its bonds, join bonds by its own end. */
function sideKey(st: StoredState, s: number): string {
  const bonds: string[] = [];
  for (const [key, type] of st.bonds) {
    const [s1, p1, s2, p2] = unpack(key);
    if (s1 === s && s2 === s) bonds.push(`${p1}-${p2}:${type}`);
    else if (s1 === s) bonds.push(`${p1}>:${type}`);
    else if (s2 === s) bonds.push(`${p2}>:${type}`);
  }
  const flags = `${st.aromatic[s].join(',')}|${st.hs[s].join(',')}|${st.charge[s].join(',')}`;
  return `${flags}|${bonds.sort().join(' ')}`;
}

/** Per table: each stored state's side ids (slot 0 · 65536 + slot 1), and the ids by side key. */
const sideIds = new WeakMap<RingPairs, { byState: Map<number, number>; byKey: Map<string, number>[] }>();

/**
 * The id of what slot s sees of the state at `at` (equal ids: the same side for a synthon), so
 * that a synthon's side is made once per state it can take, not once per pair of cores.
 */
export function sideIdOf(table: RingPairs, at: number, s: number): number {
  let ids = sideIds.get(table);
  if (!ids) sideIds.set(table, (ids = { byState: new Map(), byKey: [new Map(), new Map()] }));
  let both = ids.byState.get(at);
  if (both === undefined) {
    const st = readState(table, at);
    const [a, b] = [0, 1].map((slot) => {
      const key = sideKey(st, slot);
      const m = ids!.byKey[slot];
      let id = m.get(key);
      if (id === undefined) m.set(key, (id = m.size));
      return id;
    });
    // More than 65,536 sides of one slot: ids would collide, so no ids (no bound) past that.
    both = a < 65536 && b < 65536 ? a * 65536 + b : -1;
    ids.byState.set(at, both);
  }
  if (both < 0) return -1;
  return s === 0 ? Math.floor(both / 65536) : both % 65536;
}

/** What a side needs of its synthon whatever the state: connectors, rings, distances. */
interface Topology {
  labelOf: Int32Array;
  dummies: number[];
  atomRings: Uint8Array;
  dist: Float64Array;
  attach: number[];
  near: number[];
}

const topologies = new WeakMap<MolGraph, Topology | null>();

function topologyOf(g0: MolGraph, paired: Set<number>): Topology | null {
  const known = topologies.get(g0);
  if (known !== undefined) return known;
  const labelOf = new Int32Array(g0.n);
  const dummies: number[] = [];
  let ok = true;
  for (let a = 0; a < g0.n && ok; a++) {
    if (g0.z[a] !== 0) continue;
    // A connector its partner lacks stays a dummy atom of the product: not this bound's case.
    ok = paired.has(g0.isotope[a]) && g0.adjStart[a + 1] - g0.adjStart[a] === 1;
    labelOf[a] = g0.isotope[a];
    dummies.push(a);
  }
  let topo: Topology | null = null;
  if (ok) {
    const dist = distancesFrom(g0, dummies);
    const attach: number[] = [];
    const near: number[] = [];
    for (let x = 0; x < g0.n; x++) {
      if (dist[x] === 1) attach.push(x);
      else if (dist[x] === 2) near.push(x);
    }
    topo = { labelOf, dummies, atomRings: ringFlags(g0, dummies), dist, attach, near };
  }
  topologies.set(g0, topo);
  return topo;
}

/**
 * Ring membership in the product: the partner joins this side's connectors, so a path of extra
 * bonds between them stands for it.
 */
function ringFlags(g0: MolGraph, dummies: readonly number[]): Uint8Array {
  // One join: the join bond is a bridge, so the rings are the synthon's own.
  if (dummies.length < 2) return g0.atomRings;
  const t = newGraph(g0.n, g0.nb + dummies.length - 1);
  t.bondA.set(g0.bondA);
  t.bondB.set(g0.bondB);
  for (let k = 1; k < dummies.length; k++) {
    t.bondA[g0.nb + k - 1] = dummies[k - 1];
    t.bondB[g0.nb + k - 1] = dummies[k];
  }
  fillAdjacency(t);
  markRingAtoms(t);
  return t.atomRings;
}

/** The synthon's graph under slot s's part of the state (ring-zip.ts's productGraph, one side). */
function underState(
  core: RingCore,
  g0: MolGraph,
  st: StoredState,
  s: number,
  topo: Topology,
): MolGraph | null {
  const hs = g0.hs.slice();
  const charge = g0.charge.slice();
  const aromatic = g0.aromatic.slice();
  const order = g0.order.slice();
  const bondAromatic = g0.bondAromatic.slice();
  const posOf = new Int32Array(g0.n).fill(-1);
  core.atoms.forEach((a, k) => {
    if (core.kind[k] !== UNSTABLE) return;
    posOf[a] = k;
    if (g0.z[a] === 0) return;
    aromatic[a] = st.aromatic[s][k];
    hs[a] = st.hs[s][k];
    charge[a] = st.charge[s][k];
  });
  const joinType = new Map<number, number[]>();
  const inSlot = new Map<number, number>();
  for (const [key, type] of st.bonds) {
    const [s1, p1, s2, p2] = unpack(key);
    if (s1 === s && s2 === s) inSlot.set(p1 < p2 ? p1 * 4096 + p2 : p2 * 4096 + p1, type);
    else if (s1 === s || s2 === s) {
      const p = s1 === s ? p1 : p2;
      joinType.set(p, [...(joinType.get(p) ?? []), type]);
    }
  }
  const setType = (b: number, t: number): void => {
    bondAromatic[b] = t === 12 ? 1 : 0;
    if (t !== 12) order[b] = t;
  };
  const { labelOf } = topo;
  for (let b = 0; b < g0.nb; b++) {
    const x = g0.bondA[b];
    const y = g0.bondB[b];
    if (labelOf[x] || labelOf[y]) {
      // A join bond: its type in the product, by its end on this side.
      const types = joinType.get(posOf[labelOf[x] ? y : x]);
      if (!types || types.some((t) => t !== types[0])) return null;
      setType(b, types[0]);
      continue;
    }
    if (posOf[x] < 0 || posOf[y] < 0) continue;
    const t = inSlot.get(posOf[x] < posOf[y] ? posOf[x] * 4096 + posOf[y] : posOf[y] * 4096 + posOf[x]);
    if (t !== undefined) setType(b, t);
  }
  return { ...g0, hs, charge, aromatic, order, bondAromatic, atomRings: topo.atomRings };
}

/** The side of a synthon (its core and graph) under slot s's part of a state; null if unreadable. */
export function makeSide(
  core: RingCore,
  g0: MolGraph,
  st: StoredState,
  s: number,
  paired: Set<number>,
): SideWords | null {
  const topo = topologyOf(g0, paired);
  const g = topo && underState(core, g0, st, s, topo);
  if (!topo || !g) return null;
  const inv = atomInvariants(g);
  const bondInv = bondInvariants(g);
  const free = new Uint32Array(WORDS);
  const env = morganEnvironments(g);
  for (let e = 0; e < env.codes.length; e++) {
    if (topo.dist[env.atoms[e]] <= env.radii[e]) continue;
    const bit = env.codes[e] % NBITS;
    free[bit >>> 5] |= 1 << (bit & 31);
  }
  const out: number[] = Array.from(free);
  out.push(topo.dummies.length);
  for (const d of topo.dummies) out.push(topo.labelOf[d], inv[g.adjAtom[g.adjStart[d]]]);
  out.push(topo.attach.length);
  for (const x of topo.attach) {
    out.push(inv[x], g.adjStart[x + 1] - g.adjStart[x]);
    for (let k = g.adjStart[x]; k < g.adjStart[x + 1]; k++) {
      const o = g.adjAtom[k];
      out.push(bondInv[g.adjBond[k]], inv[o], topo.labelOf[o]);
    }
  }
  out.push(topo.near.length);
  for (const x of topo.near) {
    out.push(code1(g, x, inv, bondInv), g.adjStart[x + 1] - g.adjStart[x]);
    for (let k = g.adjStart[x]; k < g.adjStart[x + 1]; k++) {
      const o = g.adjAtom[k];
      out.push(bondInv[g.adjBond[k]], code1(g, o, inv, bondInv), topo.attach.indexOf(o) + 1);
    }
  }
  return Uint32Array.from(out);
}

const pairs = new Float64Array(32);

/** Adds (bond, value) to the first m sorted pairs: RDKit's order of a centre's neighbours. */
function insertPair(m: number, bond: number, value: number): void {
  const v = bond * PAIR_SHIFT + value;
  let p = m;
  for (; p > 0 && pairs[p - 1] > v; p--) pairs[p] = pairs[p - 1];
  pairs[p] = v;
}

/** RDKit's code from a seed (layer and the centre's previous code) and its sorted pairs. */
function codeFrom(layer: number, prev: number, m: number): number {
  let code = combine(layer, prev);
  for (let p = 0; p < m; p++) {
    const bt = Math.floor(pairs[p] / PAIR_SHIFT);
    code = combine(code, hashPair(bt, pairs[p] - bt * PAIR_SHIFT));
  }
  return code;
}

/** The radius-1 code of atom x from the invariants. */
function code1(g: MolGraph, x: number, inv: Uint32Array, bondInv: Int32Array): number {
  let m = 0;
  for (let k = g.adjStart[x]; k < g.adjStart[x + 1] && m < pairs.length; k++)
    insertPair(m++, bondInv[g.adjBond[k]], inv[g.adjAtom[k]]);
  return codeFrom(0, inv[x], m);
}

const attachCode = new Uint32Array(64);

/** The invariant the side at `off` has at connector `label`, or −1 when it has none. */
function partnerInv(buf: Uint32Array, off: number, label: number): number {
  const nL = buf[off + WORDS];
  for (let k = 0; k < nL; k++)
    if (buf[off + WORDS + 1 + 2 * k] === label) return buf[off + WORDS + 2 + 2 * k];
  return -1;
}

/**
 * Per atom A bonded to a connector of the side at `off` (nearBits' order), into `out`: 1 when A
 * also has a neighbour of its own. Its (A, 1) environment then spans two bonds or more in every
 * product, and RDKit drops a radius-1 environment as redundant only when its bond set is another
 * atom's (two atoms of degree one bonded to each other), so that code's bit is in the product.
 * Returns the count of such atoms (all of them are written).
 */
export function keptAttach(buf: Uint32Array, off: number, out: Uint8Array): number {
  let o = attachAt(buf, off);
  const nA = buf[o++];
  for (let k = 0; k < nA; k++) {
    o++;
    const m = buf[o++];
    let own = 0;
    for (let e = 0; e < m; e++, o += 3) if (buf[o + 2] === 0) own = 1;
    if (k < out.length) out[k] = own;
  }
  return nA;
}

/**
 * Appends the bits of the codes (A, 1) and (x, 2) of the side at `off` next to the partner side
 * at `poff` (whose attachment invariants stand in for the connectors); false when a label has no
 * partner or a centre is too large for the work arrays.
 */
export function nearBits(
  buf: Uint32Array,
  off: number,
  pbuf: Uint32Array,
  poff: number,
  out: number[],
): boolean {
  let o = attachAt(buf, off);
  const nA = buf[o++];
  if (nA > attachCode.length) return false;
  for (let k = 0; k < nA; k++) {
    const inv = buf[o++];
    const m = buf[o++];
    if (m > pairs.length) return false;
    for (let e = 0; e < m; e++, o += 3) {
      const label = buf[o + 2];
      const value = label > 0 ? partnerInv(pbuf, poff, label) : buf[o + 1];
      if (value < 0) return false;
      insertPair(e, buf[o], value);
    }
    attachCode[k] = codeFrom(0, inv, m);
    out.push(attachCode[k] % NBITS);
  }
  const nX = buf[o++];
  for (let k = 0; k < nX; k++) {
    const c1 = buf[o++];
    const m = buf[o++];
    if (m > pairs.length) return false;
    for (let e = 0; e < m; e++, o += 3)
      insertPair(e, buf[o], buf[o + 2] > 0 ? attachCode[buf[o + 2] - 1] : buf[o + 1]);
    out.push(codeFrom(1, c1, m) % NBITS);
  }
  return true;
}
