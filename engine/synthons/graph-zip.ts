/**
 * Product fingerprints without RDKit: the synthons' molecule graphs zipped in TypeScript and their
 * Morgan bits computed by the TypeScript implementation that equals RDKit's
 * (engine/analysis/embed/morgan-counts.ts). Exact where the join changes nothing but the bonds it
 * adds: joins by single, non-aromatic connector bonds that close no ring (then ring membership,
 * aromaticity and H counts of every atom are those of its synthon). Other tuples go through RDKit
 * (assemble.ts). Checked against RDKit's product fingerprints in the tests.
 */
import { graphFromRDKitJson, type MolGraph } from '../chem/graph.ts';
import type { RDKitModule } from '../chem/rdkit.ts';
import { FP_BYTES } from '../chem/fingerprint.ts';
import { morganCodes } from '../analysis/embed/morgan-counts.ts';
import type { SlotColumns } from './format.ts';

/** A synthon's graph and whether it can take the graph path (its connector bonds are single). */
interface CachedGraph {
  g: MolGraph;
  simple: boolean;
}

const cache = new WeakMap<SlotColumns, Array<CachedGraph | null | undefined>>();

/** The synthon's graph (parsed once per slot and index), or null when RDKit cannot read it. */
export function synthonGraph(rd: RDKitModule, slot: SlotColumns, i: number): CachedGraph | null {
  let list = cache.get(slot);
  if (!list) cache.set(slot, (list = new Array(slot.synthonIds.length)));
  const hit = list[i];
  if (hit !== undefined) return hit;
  const mol = rd.get_mol(slot.smiles[i]);
  let out: CachedGraph | null = null;
  try {
    if (mol?.is_valid()) {
      const g = graphFromRDKitJson(mol.get_json());
      let simple = true;
      for (let b = 0; b < g.nb; b++)
        if ((g.z[g.bondA[b]] === 0 || g.z[g.bondB[b]] === 0) && (g.order[b] !== 1 || g.bondAromatic[b]))
          simple = false;
      out = { g, simple };
    }
  } finally {
    mol?.delete();
  }
  list[i] = out;
  return out;
}

/**
 * Zips synthon graphs: paired dummies (same isotope label in two synthons) are removed and their
 * neighbours bonded; an unpaired dummy stays, unlabelled. Undefined when a label is not on exactly
 * one atom per side.
 */
export function zipGraphs(graphs: readonly MolGraph[]): MolGraph | undefined {
  return zipGraphsMapped(graphs)?.g;
}

/** Isotopes are 16-bit (MolGraph.isotope), so every label has a slot. */
const MAX_LABELS = 65536;
const labelScratch = new Uint16Array(MAX_LABELS);
const endCountScratch = new Uint16Array(MAX_LABELS);
const endScratch = new Int32Array(MAX_LABELS * 4);

/**
 * zipGraphs with each synthon's atom → product atom map (-1 for a paired dummy). The new bond
 * takes RDKit molzip's order: the first side's unless that is single, then the other's
 * (zip-valence.ts); a connector written with an aromatic bond makes the zip undefined.
 */
export function zipGraphsMapped(
  graphs: readonly MolGraph[],
): { g: MolGraph; index: Int32Array[] } | undefined {
  // Connector labels are isotopes (1–4 in the spaces read): counts and bond ends in flat arrays
  // kept by the module, not Maps of arrays (this runs per product in the ring-core scoring loop).
  const labelCount = labelScratch;
  let maxLabel = 0;
  for (const g of graphs)
    for (let i = 0; i < g.n; i++)
      if (g.z[i] === 0) {
        const l = g.isotope[i];
        labelCount[l]++;
        if (l > maxLabel) maxLabel = l;
      }
  const index: Int32Array[] = [];
  let n = 0;
  for (const g of graphs) {
    const map = new Int32Array(g.n).fill(-1);
    for (let i = 0; i < g.n; i++) if (!(g.z[i] === 0 && labelCount[g.isotope[i]] === 2)) map[i] = n++;
    index.push(map);
  }
  const z = new Uint8Array(n);
  const charge = new Int8Array(n);
  const hs = new Uint8Array(n);
  const isotope = new Uint16Array(n);
  const atomRings = new Uint8Array(n);
  // Bonds as parallel arrays (a tuple per bond was most of a ring-closing product's garbage).
  let cap = 0;
  for (const g of graphs) cap += g.nb;
  const bondA = new Uint16Array(cap);
  const bondB = new Uint16Array(cap);
  const order = new Uint8Array(cap);
  const bondAromatic = new Uint8Array(cap);
  let nb = 0;
  // Per label, up to two (atom, order) ends; a third end or a paired dummy makes the tuple invalid.
  const ends = endScratch;
  const endCount = endCountScratch;
  let valid = true;
  for (let k = 0; k < graphs.length; k++) {
    const g = graphs[k];
    const map = index[k];
    for (let i = 0; i < g.n; i++) {
      const j = map[i];
      if (j < 0) continue;
      z[j] = g.z[i];
      charge[j] = g.charge[i];
      hs[j] = g.hs[i];
      isotope[j] = g.z[i] === 0 ? 0 : g.isotope[i];
      atomRings[j] = g.atomRings[i];
    }
    for (let b = 0; b < g.nb; b++) {
      const x = g.bondA[b];
      const y = g.bondB[b];
      if (map[x] >= 0 && map[y] >= 0) {
        bondA[nb] = map[x];
        bondB[nb] = map[y];
        order[nb] = g.order[b];
        bondAromatic[nb++] = g.bondAromatic[b];
        continue;
      }
      const dummy = map[x] < 0 ? x : y;
      const atom = map[x] < 0 ? y : x;
      const l = g.isotope[dummy];
      const e = endCount[l]++;
      if (e >= 2) {
        valid = false;
        continue;
      }
      // Two paired dummies bonded to each other leave nothing to join: an invalid tuple.
      ends[l * 4 + 2 * e] = map[atom] < 0 || g.bondAromatic[b] ? -1 : map[atom];
      ends[l * 4 + 2 * e + 1] = g.order[b];
    }
  }
  for (let l = 0; l <= maxLabel && valid; l++) {
    if (endCount[l] === 0) continue;
    const e = l * 4;
    if (endCount[l] !== 2 || ends[e] < 0 || ends[e + 2] < 0) valid = false;
    else {
      bondA[nb] = ends[e];
      bondB[nb] = ends[e + 2];
      order[nb] = ends[e + 1] === 1 ? ends[e + 3] : ends[e + 1];
      bondAromatic[nb++] = 0;
    }
  }
  labelCount.fill(0, 0, maxLabel + 1);
  endCount.fill(0, 0, maxLabel + 1);
  if (!valid) return undefined;
  const deg = new Uint32Array(n);
  for (let b = 0; b < nb; b++) {
    deg[bondA[b]]++;
    deg[bondB[b]]++;
  }
  const adjStart = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) adjStart[i + 1] = adjStart[i] + deg[i];
  const adjAtom = new Uint16Array(2 * nb);
  const adjBond = new Uint16Array(2 * nb);
  const fill = adjStart.slice(0, n);
  for (let b = 0; b < nb; b++) {
    const x = bondA[b];
    const y = bondB[b];
    adjAtom[fill[x]] = y;
    adjBond[fill[x]++] = b;
    adjAtom[fill[y]] = x;
    adjBond[fill[y]++] = b;
  }
  const g: MolGraph = {
    n,
    z,
    charge,
    hs,
    isotope,
    radicals: new Uint8Array(n),
    aromatic: new Uint8Array(n),
    nb,
    bondA: bondA.subarray(0, nb),
    bondB: bondB.subarray(0, nb),
    order: order.subarray(0, nb),
    bondAromatic: bondAromatic.subarray(0, nb),
    adjStart,
    adjAtom,
    adjBond,
    rings: [],
    ringBonds: [],
    atomRings,
    bondRings: new Uint8Array(nb),
  };
  return { g, index };
}

/** Morgan r2 2048 bits of a zipped graph, RDKit layout. */
export function graphFingerprint(g: MolGraph): Uint8Array {
  const fp = new Uint8Array(FP_BYTES);
  for (const c of morganCodes(g)) {
    const bit = c % (FP_BYTES * 8);
    fp[bit >> 3] |= 1 << (bit & 7);
  }
  return fp;
}

/**
 * The product fingerprint of a tuple by the graph path, or undefined when the tuple needs RDKit
 * (a ring-closing reaction, a connector bond that is not single, a synthon RDKit cannot read).
 */
export function tupleFingerprint(
  rd: RDKitModule,
  slots: readonly SlotColumns[],
  synthons: readonly number[],
  ringForming: boolean,
): Uint8Array | undefined {
  if (ringForming) return undefined;
  const graphs: MolGraph[] = [];
  for (let s = 0; s < slots.length; s++) {
    const c = synthonGraph(rd, slots[s], synthons[s]);
    if (!c?.simple) return undefined;
    graphs.push(c.g);
  }
  const g = zipGraphs(graphs);
  return g ? graphFingerprint(g) : undefined;
}
