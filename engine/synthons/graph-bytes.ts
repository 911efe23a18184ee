/**
 * A synthon's molecule graph as bytes, stored with its ring core at build (ring-core.ts) so that
 * scoring a ring-closing tuple parses no SMILES with RDKit: the parse and JSON read were a fifth
 * of a whole-space query's time (2026-11-29 profile). Holds what zipping and Morgan bits need:
 * per atom element, charge, hydrogens, isotope, aromatic flag and radicals; per bond its ends,
 * Kekulé order and aromatic flag. Ring membership is recomputed from the bonds. Pure.
 */
import { fillAdjacency, markRingAtoms, newGraph, type MolGraph } from '../chem/graph.ts';

const ATOM_BYTES = 7;
const BOND_BYTES = 6;

/** [n u16][nb u16], per atom z, charge (i8), hs, isotope (u16), aromatic, radicals; per bond a, b (u16), order, aromatic. */
export function graphBytes(g: MolGraph): Uint8Array {
  const out = new Uint8Array(4 + ATOM_BYTES * g.n + BOND_BYTES * g.nb);
  const v = new DataView(out.buffer);
  v.setUint16(0, g.n, true);
  v.setUint16(2, g.nb, true);
  for (let i = 0; i < g.n; i++) {
    const o = 4 + ATOM_BYTES * i;
    out[o] = g.z[i];
    v.setInt8(o + 1, g.charge[i]);
    out[o + 2] = g.hs[i];
    v.setUint16(o + 3, g.isotope[i], true);
    out[o + 5] = g.aromatic[i];
    out[o + 6] = g.radicals[i];
  }
  for (let b = 0; b < g.nb; b++) {
    const o = 4 + ATOM_BYTES * g.n + BOND_BYTES * b;
    v.setUint16(o, g.bondA[b], true);
    v.setUint16(o + 2, g.bondB[b], true);
    out[o + 4] = g.order[b];
    out[o + 5] = g.bondAromatic[b];
  }
  return out;
}

/** The graph `graphBytes` wrote (no ring list; atomRings 1 for ring atoms), or undefined when cut short. */
export function graphFromBytes(bytes: Uint8Array): MolGraph | undefined {
  if (bytes.length < 4) return undefined;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = v.getUint16(0, true);
  const nb = v.getUint16(2, true);
  if (bytes.length < 4 + ATOM_BYTES * n + BOND_BYTES * nb) return undefined;
  const g = newGraph(n, nb);
  for (let i = 0; i < n; i++) {
    const o = 4 + ATOM_BYTES * i;
    g.z[i] = bytes[o];
    g.charge[i] = v.getInt8(o + 1);
    g.hs[i] = bytes[o + 2];
    g.isotope[i] = v.getUint16(o + 3, true);
    g.aromatic[i] = bytes[o + 5];
    g.radicals[i] = bytes[o + 6];
  }
  for (let b = 0; b < nb; b++) {
    const o = 4 + ATOM_BYTES * n + BOND_BYTES * b;
    const x = v.getUint16(o, true);
    const y = v.getUint16(o + 2, true);
    if (x >= n || y >= n) return undefined;
    g.bondA[b] = x;
    g.bondB[b] = y;
    g.order[b] = bytes[o + 4];
    g.bondAromatic[b] = bytes[o + 5];
  }
  fillAdjacency(g);
  markRingAtoms(g);
  return g;
}
