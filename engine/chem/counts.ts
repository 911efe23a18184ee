/**
 * Atom, ring and charge counts equal to Python RDKit's (C++ Lipinski.cpp / ROMol, BSD-3-Clause),
 * computed on the graph of engine/chem/graph.ts. Each function names the RDKit function it equals;
 * none needs a fallback: the graph carries everything these definitions read.
 */
import type { MolGraph } from './graph.ts';

/** rdMolDescriptors.CalcNumAtoms (MinimalLib `NumAtoms`): graph atoms plus their hydrogens that are not atoms. */
export function numAtoms(g: MolGraph): number {
  let n = g.n;
  for (let i = 0; i < g.n; i++) n += g.hs[i];
  return n;
}

/** Mol.GetNumHeavyAtoms (MinimalLib `NumHeavyAtoms`): atomic number above 1, so dummy atoms (0) are not heavy. */
export function numHeavyAtoms(g: MolGraph): number {
  let n = 0;
  for (let i = 0; i < g.n; i++) if (g.z[i] > 1) n++;
  return n;
}

/**
 * rdMolDescriptors.CalcNumHeteroatoms: atoms matching the SMARTS [!#6;!#1], so dummy atoms (0)
 * count as heteroatoms although they are not heavy atoms.
 */
export function numHeteroatoms(g: MolGraph): number {
  let n = 0;
  for (let i = 0; i < g.n; i++) if (g.z[i] !== 6 && g.z[i] !== 1) n++;
  return n;
}

/** Chem.GetFormalCharge: sum of the atoms' formal charges. */
export function formalCharge(g: MolGraph): number {
  let c = 0;
  for (let i = 0; i < g.n; i++) c += g.charge[i];
  return c;
}

/** rdMolDescriptors.CalcNumRings (MinimalLib `NumRings`): size of RDKit's ring set (symmetrised SSSR). */
export function numRings(g: MolGraph): number {
  return g.rings.length;
}

/** rdMolDescriptors.CalcNumAromaticRings: rings of the ring set whose bonds are all aromatic. */
export function numAromaticRings(g: MolGraph): number {
  let n = 0;
  for (const bonds of g.ringBonds) if (bonds.every((b) => b >= 0 && g.bondAromatic[b] === 1)) n++;
  return n;
}

/**
 * rdMolDescriptors.CalcFractionCSP3: carbons whose total degree (neighbours, hydrogen atoms
 * included, plus hydrogens that are not atoms) is 4, over all carbons; 0 without carbon. Despite
 * its name RDKit does not read the hybridisation: [CH3-] and the carbene carbon of C[C]C (both
 * sp3 to RDKit) do not count, nor does the carbon of C->[Fe] (four Hs and a dative bond: degree 5).
 */
export function fractionCSP3(g: MolGraph): number {
  let nC = 0;
  let nSP3 = 0;
  for (let i = 0; i < g.n; i++) {
    if (g.z[i] !== 6) continue;
    nC++;
    if (g.adjStart[i + 1] - g.adjStart[i] + g.hs[i] === 4) nSP3++;
  }
  return nC === 0 ? 0 : nSP3 / nC;
}
