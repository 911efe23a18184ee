/**
 * Product fingerprints of ring-closing and double-bond joins in TypeScript, with RDKit asked once
 * per pair of ring cores instead of once per product.
 *
 * Such a join can change the aromaticity, hydrogens and ring membership of the synthons' unstable
 * atoms (synthon-chem.ts), which graph-zip.ts cannot know. Every other atom and bond keeps its
 * synthon's state. RDKit's perception of the unstable atoms depends only on the ring cores
 * (ring-core.ts), so for a tuple whose cores' keys were seen before, the product graph is zipped
 * in TypeScript, the unstable atoms and their bonds take the states RDKit gave the zipped cores,
 * ring membership comes from the product graph (an atom is in a ring when one of its bonds is not
 * a bridge), and the TypeScript Morgan that equals RDKit's gives the bits.
 *
 * A new pair of keys costs RDKit's perception of the zipped cores and the tuple's real product
 * fingerprint (zip-fingerprint.ts); the entry is kept only when the two fingerprints agree, else
 * the pair always takes RDKit's path (`mismatches` counts them). 2026-11-29, AutoGrow4 space: see
 * docs/synthon-spaces.md ("Ring cores").
 */
import { graphFromRDKitJson, markRingAtoms, type MolGraph } from '../chem/graph.ts';
import type { RDKitModule } from '../chem/rdkit.ts';
import { graphFingerprint, synthonGraph, zipGraphsMapped } from './graph-zip.ts';
import { ringCoreBytes, type SlotColumns } from './format.ts';
import {
  atomText,
  bondText,
  decodeRingCore,
  ringCore,
  SHELL_DUMMY,
  UNSTABLE,
  writeSmiles,
  type RingCore,
} from './ring-core.ts';
import { pairEntry, PAIR_INVALID, PAIR_NONE, PAIR_RDKIT, ringPairsOf, storedState } from './ring-pairs.ts';
import { unstableAtoms } from './synthon-chem.ts';
import { zipFingerprint } from './zip-fingerprint.ts';
import { zipWouldThrow } from './zip-valence.ts';

/** RDKit's state of the zipped cores' unstable atoms and their bonds. */
export interface PairState {
  /** Per slot, per canonical position: aromatic flag, hydrogens, charge. */
  aromatic: Uint8Array[];
  hs: Uint8Array[];
  charge: Int8Array[];
  /** Bond type (1, 2, 3; 12 aromatic) by `pairKey` of its two (slot, position) ends. */
  bonds: Map<number, number>;
}

/** Pair entries kept per thread (~2 KB each); the map is cleared when it reaches this. */
const MAX_PAIRS = 20_000;
/** A synthon's ring core with the graph it indexes. */
type Side = { core: RingCore; g: MolGraph };
const cores = new WeakMap<SlotColumns, Array<Side | null | undefined>>();
let pairs = new Map<string, PairState | null>();

export const ringZipStats = { hits: 0, misses: 0, mismatches: 0, refused: 0 };

const pairKey = (s1: number, p1: number, s2: number, p2: number): number => {
  const a = s1 * 4096 + p1;
  const b = s2 * 4096 + p2;
  return a < b ? a * 65536 + b : b * 65536 + a;
};

function coreOf(rd: RDKitModule, slot: SlotColumns, i: number, ringForming: boolean): Side | null {
  let list = cores.get(slot);
  if (!list) cores.set(slot, (list = new Array(slot.synthonIds.length)));
  const hit = list[i];
  if (hit !== undefined) return hit;
  // Built with the space (format 4, ring-closing reactions), else made here once per thread.
  const stored = ringCoreBytes(slot, i);
  if (stored) return (list[i] = decodeRingCore(stored));
  const c = slot.smiles[i].includes(':') ? null : synthonGraph(rd, slot, i);
  const core = c && ringCore(rd, c.g, unstableAtoms(c.g, ringForming));
  return (list[i] = core ? { core, g: c.g } : null);
}

/** Per pair of core keys, whether molzip throws on its tuples (bounded like `pairs`). */
let throwing = new Map<string, boolean>();

/**
 * zipWouldThrow of the tuple, decided once per pair of core keys: it reads only the connectors'
 * bond orders and their atoms' element, charge and hydrogens, which every core holds. Before,
 * each tuple parsed its synthons again: 0.2–0.3 ms, ~170,000 times an exact top 100 of the 10^9
 * space (the Friedlaender reaction's quinoid synthons, 2026-11-29).
 */
function pairThrows(
  rd: RDKitModule,
  key: string,
  slots: readonly SlotColumns[],
  synthons: readonly number[],
): boolean {
  let t = throwing.get(key);
  if (t === undefined) {
    t = zipWouldThrow(
      rd,
      synthons.map((i, s) => slots[s].smiles[i]),
    );
    if (throwing.size >= 200_000) throwing = new Map();
    throwing.set(key, t);
  }
  return t;
}

/** Frees the kept pair states (tests). */
export function clearRingPairs(): void {
  pairs = new Map();
  throwing = new Map();
}

/** RDKit's perception of the cores zipped together, or null when RDKit cannot read them. */
function perceivePair(
  rd: RDKitModule,
  graphs: readonly MolGraph[],
  cs: readonly RingCore[],
): PairState | null {
  // Global atoms: slot s, canonical position k at offset[s] + k. Paired connectors are dropped.
  const offset: number[] = [];
  let n = 0;
  for (const c of cs) {
    offset.push(n);
    n += c.atoms.length;
  }
  const hs: number[] = [];
  const owner: Array<[number, number]> = [];
  const labelEnds = new Map<number, Array<[number, number]>>();
  const keep = new Int32Array(n).fill(-1);
  cs.forEach((c, s) => {
    const g = graphs[s];
    c.atoms.forEach((a, k) => {
      if (c.kind[k] === UNSTABLE && g.z[a] === 0) {
        const list = labelEnds.get(g.isotope[a]) ?? [];
        list.push([s, k]);
        labelEnds.set(g.isotope[a], list);
      }
    });
  });
  const paired = (s: number, k: number): boolean => {
    const a = cs[s].atoms[k];
    return (
      graphs[s].z[a] === 0 && cs[s].kind[k] === UNSTABLE && labelEnds.get(graphs[s].isotope[a])?.length === 2
    );
  };
  cs.forEach((c, s) => {
    c.atoms.forEach((_a, k) => {
      if (paired(s, k)) return;
      keep[offset[s] + k] = owner.length;
      owner.push([s, k]);
      hs.push(c.hs[k]);
    });
  });
  const bonds: Array<[number, number, string]> = [];
  const ends = new Map<number, Array<[number, number]>>();
  cs.forEach((c, s) => {
    const g = graphs[s];
    const at = new Map<number, number>();
    c.atoms.forEach((a, k) => at.set(a, k));
    c.atoms.forEach((a, k) => {
      for (let e = g.adjStart[a]; e < g.adjStart[a + 1]; e++) {
        const o = g.adjAtom[e];
        const ko = at.get(o);
        if (ko === undefined || (c.kind[k] !== UNSTABLE && c.kind[ko] !== UNSTABLE)) continue;
        const b = g.adjBond[e];
        if (paired(s, ko)) {
          // The bond to a paired connector: the join's end on this side, with its order.
          const list = ends.get(g.isotope[o]) ?? [];
          list.push([keep[offset[s] + k], g.order[b]]);
          ends.set(g.isotope[o], list);
          continue;
        }
        if (paired(s, k) || a > o) continue;
        bonds.push([
          keep[offset[s] + k],
          keep[offset[s] + ko],
          bondText(g.order[b], g.bondAromatic[b] === 1)!,
        ]);
      }
    });
  });
  for (const list of ends.values()) {
    if (list.length !== 2) return null;
    const [[x, ox], [y, oy]] = list;
    const o = ox === 1 ? oy : ox;
    const text = bondText(o, false);
    if (!text) return null;
    bonds.push([x, y, text]);
    // The end written with the lower order gains valence and gives up hydrogens, as molzip's
    // product does once RDKit recomputes them (zip-valence.ts refused the tuples without enough).
    hs[x] -= o - ox;
    hs[y] -= o - oy;
    if (hs[x] < 0 || hs[y] < 0) return null;
  }
  const texts = owner.map(([s, k], w) => {
    const c = cs[s];
    const a = c.atoms[k];
    const g = graphs[s];
    if (c.kind[k] === SHELL_DUMMY) return '*';
    return atomText(g.z[a], g.isotope[a], c.kind[k] === UNSTABLE && g.aromatic[a] === 1, hs[w], g.charge[a]);
  });
  const { smiles, order } = writeSmiles(texts, bonds);
  let mol = null;
  try {
    mol = rd.get_mol(smiles);
    if (!mol?.is_valid()) return null;
    const p = graphFromRDKitJson(mol.get_json());
    if (p.n !== texts.length) return null;
    const state: PairState = {
      aromatic: cs.map((c) => new Uint8Array(c.atoms.length)),
      hs: cs.map((c) => new Uint8Array(c.atoms.length)),
      charge: cs.map((c) => new Int8Array(c.atoms.length)),
      bonds: new Map(),
    };
    // Parsed atom i is written atom order[i], which is owner[order[i]].
    for (let i = 0; i < p.n; i++) {
      const [s, k] = owner[order[i]];
      state.aromatic[s][k] = p.aromatic[i];
      state.hs[s][k] = p.hs[i];
      state.charge[s][k] = p.charge[i];
    }
    for (let b = 0; b < p.nb; b++) {
      const [s1, k1] = owner[order[p.bondA[b]]];
      const [s2, k2] = owner[order[p.bondB[b]]];
      state.bonds.set(pairKey(s1, k1, s2, k2), p.bondAromatic[b] ? 12 : p.order[b]);
    }
    return state;
  } catch {
    return null;
  } finally {
    mol?.delete();
  }
}

/** The product graph with the cores' states applied and ring membership from the graph. */
function productGraph(
  graphs: readonly MolGraph[],
  cs: readonly RingCore[],
  st: PairState,
): MolGraph | undefined {
  return productGraphMapped(graphs, cs, st)?.g;
}

/** productGraph with each slot's atom → product atom map (−1 for a paired connector). */
function productGraphMapped(
  graphs: readonly MolGraph[],
  cs: readonly RingCore[],
  st: PairState,
): { g: MolGraph; index: Int32Array[] } | undefined {
  const zipped = zipGraphsMapped(graphs);
  if (!zipped) return undefined;
  const { g, index } = zipped;
  // Product atom → (slot, canonical position) of an unstable atom, for the bond states.
  const where = new Int32Array(g.n).fill(-1);
  cs.forEach((c, s) => {
    c.atoms.forEach((a, k) => {
      if (c.kind[k] !== UNSTABLE) return;
      const j = index[s][a];
      if (j < 0) return;
      g.aromatic[j] = st.aromatic[s][k];
      g.hs[j] = st.hs[s][k];
      g.charge[j] = st.charge[s][k];
      where[j] = s * 4096 + k;
    });
  });
  for (let b = 0; b < g.nb; b++) {
    const x = where[g.bondA[b]];
    const y = where[g.bondB[b]];
    if (x < 0 || y < 0) continue;
    const t = st.bonds.get(pairKey(Math.floor(x / 4096), x % 4096, Math.floor(y / 4096), y % 4096));
    if (t === undefined) continue;
    g.bondAromatic[b] = t === 12 ? 1 : 0;
    if (t !== 12) g.order[b] = t;
  }
  markRingAtoms(g);
  return { g, index };
}

/** A tuple's product graph from ring cores, with the pair of cores' states behind it. */
export interface RingProduct {
  g: MolGraph;
  /** Per slot, synthon atom → product atom (−1 for a paired connector). */
  index: Int32Array[];
  /** Per slot, the ring core (canonical positions → synthon atoms). */
  cores: RingCore[];
  /** RDKit's states of the zipped cores (the same for every tuple of these core keys). */
  state: PairState;
}

function sidesOf(
  rd: RDKitModule,
  slots: readonly SlotColumns[],
  synthons: readonly number[],
  ringForming: boolean,
): { cs: RingCore[]; graphs: MolGraph[] } | null {
  const cs: RingCore[] = [];
  const graphs: MolGraph[] = [];
  for (let s = 0; s < slots.length; s++) {
    const side = coreOf(rd, slots[s], synthons[s], ringForming);
    if (!side) return null;
    cs.push(side.core);
    graphs.push(side.g);
  }
  return { cs, graphs };
}

/**
 * The product graph of a tuple as `ringZipFingerprint` scores it, learning its pair of cores (one
 * RDKit zip, checked against RDKit's fingerprint) if new; null when the pair takes RDKit's path or
 * the tuple does not zip. `state` given (learnt earlier by this function) skips the lookup.
 */
export function ringProduct(
  rd: RDKitModule,
  slots: readonly SlotColumns[],
  synthons: readonly number[],
  ringForming: boolean,
  state?: PairState,
): RingProduct | null {
  const sides = sidesOf(rd, slots, synthons, ringForming);
  if (!sides) return null;
  let st = state;
  if (!st) {
    const key = sides.cs.map((c) => c.key).join('\t');
    if (!pairs.has(key) && !ringZipFingerprint(rd, slots, synthons, ringForming)) return null;
    st = pairs.get(key) ?? undefined;
    if (!st) return null;
  }
  if (pairThrows(rd, sides.cs.map((c) => c.key).join('\t'), slots, synthons)) return null;
  const p = productGraphMapped(sides.graphs, sides.cs, st);
  return p ? { ...p, cores: sides.cs, state: st } : null;
}

/**
 * A synthon's ring core with the graph it indexes, or null when it has none (ring-cross.ts). A
 * stored core is decoded without being kept: the bound meets tens of thousands of synthons a
 * query, and keeping each one's graph (~2 KB of small typed arrays) grew the heap by ~300 MB and
 * every full garbage collection with it.
 */
export function ringSideOf(
  rd: RDKitModule,
  slot: SlotColumns,
  i: number,
  ringForming: boolean,
): { core: RingCore; g: MolGraph } | null {
  const kept = cores.get(slot)?.[i];
  if (kept !== undefined) return kept;
  const stored = ringCoreBytes(slot, i);
  return stored ? decodeRingCore(stored) : coreOf(rd, slot, i, ringForming);
}

/** A synthon's ring core key, or null when it has none (for ring-bound.ts). */
export function ringCoreKey(
  rd: RDKitModule,
  slot: SlotColumns,
  i: number,
  ringForming: boolean,
): string | null {
  return coreOf(rd, slot, i, ringForming)?.core.key ?? null;
}

/**
 * The product fingerprint of a tuple of a reaction that closes a ring or joins by a double bond,
 * null when molzip cannot join it (an invalid assembly, decided without RDKit), or undefined when
 * RDKit's assembly must decide (the caller's fallback).
 */
export function ringZipFingerprint(
  rd: RDKitModule,
  slots: readonly SlotColumns[],
  synthons: readonly number[],
  ringForming: boolean,
): Uint8Array | null | undefined {
  // The build's pair states (ring-pairs.ts, format 6), when the space has them: no RDKit then.
  const table = ringPairsOf(slots);
  const stored = table ? pairEntry(table, synthons[0], synthons[1]) : PAIR_NONE;
  if (stored === PAIR_INVALID) return null;
  if (stored === PAIR_RDKIT) return zipFingerprint(rd, slots, synthons);
  const cs: RingCore[] = [];
  const graphs: MolGraph[] = [];
  for (let s = 0; s < slots.length; s++) {
    const side = coreOf(rd, slots[s], synthons[s], ringForming);
    if (!side) {
      ringZipStats.refused++;
      return zipFingerprint(rd, slots, synthons);
    }
    cs.push(side.core);
    graphs.push(side.g);
  }
  if (table && stored >= 0) {
    const g = productGraph(graphs, cs, storedState(table, stored));
    if (g) ringZipStats.hits++;
    return g ? graphFingerprint(g) : zipFingerprint(rd, slots, synthons);
  }
  const key = cs.map((c) => c.key).join('\t');
  if (pairThrows(rd, key, slots, synthons)) return null;
  const known = pairs.get(key);
  if (known) {
    const g = productGraph(graphs, cs, known);
    if (g) {
      ringZipStats.hits++;
      return graphFingerprint(g);
    }
  }
  const real = zipFingerprint(rd, slots, synthons);
  if (known !== undefined || !real) return real;
  ringZipStats.misses++;
  if (pairs.size >= MAX_PAIRS) pairs = new Map();
  const st = perceivePair(rd, graphs, cs);
  const g = st && productGraph(graphs, cs, st);
  const ours = g ? graphFingerprint(g) : undefined;
  const same = ours !== undefined && ours.every((v, k) => v === real[k]);
  if (!same) ringZipStats.mismatches++;
  pairs.set(key, same ? st : null);
  return real;
}
