/**
 * One side of a ring-core tuple as ring-cross.ts bounds it: a synthon under the state its pair of
 * cores gives its unstable atoms (ring-pairs.ts), with the connectors standing for the partner
 * atoms they are zipped to. Pure: graphs and typed arrays.
 *
 * Kept compact (three small typed arrays a side, ~0.5 KB), since a query meets tens of thousands
 * of sides and a thread keeps them across queries: the synthon graph under the state is needed
 * only while the side is made.
 */
import { atomInvariants, bondInvariants, morganEnvironments } from '../analysis/embed/morgan-counts.ts';
import { FP_BYTES } from '../chem/fingerprint.ts';
import { fillAdjacency, markRingAtoms, newGraph, type MolGraph } from '../chem/graph.ts';
import { UNSTABLE, type RingCore } from './ring-core.ts';
import { readState, type RingPairs, type StoredState } from './ring-pairs.ts';
import { distancesFrom } from './synthon-chem.ts';
import { CODE, codeFrom, insertPair, MAX_PAIRS, OWN_ATTACH, PARTNER } from './ring-side-codes.ts';

const NBITS = FP_BYTES * 8;
const WORDS = FP_BYTES / 4;

/**
 * A side as one run of uint32s (kept in one pool per thread: ring-cross.ts), read at an offset:
 * - 64 words: the bits of its environments whose ball holds no partner atom (in every product);
 * - nL, then per paired connector (label, invariant of the atom bonded to it);
 * - nA, per atom A bonded to a connector: inv, m, m × (bond, value, label), label > 0 where the
 *   partner's invariant for that label replaces value;
 * - nX, per atom x two bonds from a connector: code1, m, m × (bond, value, ref), ref > 0 where
 *   the code1 of attachment atom ref − 1 replaces value;
 * - per atom A bonded to a connector again: m, m × (bond, kind, value), each neighbour's radius-1
 *   code: the value itself (CODE), that of attachment atom `value` (OWN_ATTACH), or that of the
 *   partner's atom at label `value` (PARTNER), for the (A, 2) code (ring-side-codes.ts).
 */
export type SideWords = Uint32Array;

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
  // Per attachment atom A again, its neighbours' radius-1 codes for its (A, 2) code: own atoms
  // two bonds from a connector have theirs here; the others are attachment atoms' (computed next
  // to the partner) or the partner atom's.
  for (const x of topo.attach) {
    out.push(g.adjStart[x + 1] - g.adjStart[x]);
    for (let k = g.adjStart[x]; k < g.adjStart[x + 1]; k++) {
      const o = g.adjAtom[k];
      const [kind, value] =
        topo.labelOf[o] > 0
          ? [PARTNER, topo.labelOf[o]]
          : topo.dist[o] === 1
            ? [OWN_ATTACH, topo.attach.indexOf(o)]
            : [CODE, code1(g, o, inv, bondInv)];
      out.push(bondInv[g.adjBond[k]], kind, value);
    }
  }
  return Uint32Array.from(out);
}

/** The radius-1 code of atom x from the invariants. */
function code1(g: MolGraph, x: number, inv: Uint32Array, bondInv: Int32Array): number {
  let m = 0;
  for (let k = g.adjStart[x]; k < g.adjStart[x + 1] && m < MAX_PAIRS; k++)
    insertPair(m++, bondInv[g.adjBond[k]], inv[g.adjAtom[k]]);
  return codeFrom(0, inv[x], m);
}
