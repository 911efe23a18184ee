/**
 * Topological polar surface area equal to Python RDKit's `rdMolDescriptors.CalcTPSA(mol)` with its
 * defaults (includeSandP=False), which is MinimalLib's `tpsa`: Ertl's N and O contributions
 * (J. Med. Chem. 2000, 43, 3714), as RDKit's C++ getTPSAAtomContribs (MolSurf.cpp, BSD-3-Clause)
 * assigns them. The rule table below follows that function's branches in the same order, since
 * the first matching branch wins.
 */
import type { MolGraph } from './graph.ts';

/**
 * Sum of the N and O contributions, added in atom order as RDKit does (so the same double). Every
 * molecule is supported: the rules only read elements, charges, H counts, bond kinds and 3-rings.
 */
export function tpsa(g: MolGraph): number {
  let res = 0;
  for (let i = 0; i < g.n; i++) {
    const z = g.z[i];
    if (z === 7 || z === 8) res += atomContribution(g, i, z);
  }
  return res;
}

/** Bonds to hydrogen atoms count as hydrogens, not neighbours; other bonds by kind (aromatic first). */
function atomContribution(g: MolGraph, i: number, z: number): number {
  let nbrs = 0;
  let hs = g.hs[i];
  let sing = 0;
  let doub = 0;
  let trip = 0;
  let arom = 0;
  for (let k = g.adjStart[i]; k < g.adjStart[i + 1]; k++) {
    if (g.z[g.adjAtom[k]] === 1) {
      hs++;
      continue;
    }
    nbrs++;
    const b = g.adjBond[k];
    if (g.bondAromatic[b]) arom++;
    else {
      // Zero-order, dative and quadruple bonds count as neighbours but as no bond kind (RDKit's default: case).
      const o = g.order[b];
      if (o === 1) sing++;
      else if (o === 2) doub++;
      else if (o === 3) trip++;
    }
  }
  const chg = g.charge[i];
  return z === 7
    ? nitrogen(g, i, nbrs, hs, chg, sing, doub, trip, arom)
    : oxygen(g, i, nbrs, hs, chg, sing, doub, arom);
}

function nitrogen(
  g: MolGraph,
  i: number,
  nbrs: number,
  hs: number,
  chg: number,
  sing: number,
  doub: number,
  trip: number,
  arom: number,
): number {
  switch (nbrs) {
    case 1:
      if (hs === 0 && chg === 0 && trip === 1) return 23.79;
      if (hs === 1 && chg === 0 && doub === 1) return 23.85;
      if (hs === 2 && chg === 0 && sing === 1) return 26.02;
      if (hs === 2 && chg === 1 && doub === 1) return 25.59;
      if (hs === 3 && chg === 1 && sing === 1) return 27.64;
      break;
    case 2:
      if (hs === 0 && chg === 0 && sing === 1 && doub === 1) return 12.36;
      if (hs === 0 && chg === 0 && trip === 1 && doub === 1) return 13.6;
      if (hs === 1 && chg === 0 && sing === 2) return inRingOfSize3(g, i) ? 21.94 : 12.03;
      if (hs === 0 && chg === 1 && trip === 1 && sing === 1) return 4.36;
      if (hs === 1 && chg === 1 && doub === 1 && sing === 1) return 13.97;
      if (hs === 2 && chg === 1 && sing === 2) return 16.61;
      if (hs === 0 && chg === 0 && arom === 2) return 12.89;
      if (hs === 1 && chg === 0 && arom === 2) return 15.79;
      if (hs === 1 && chg === 1 && arom === 2) return 14.14;
      break;
    case 3:
      if (hs === 0 && chg === 0 && sing === 3) return inRingOfSize3(g, i) ? 3.01 : 3.24;
      if (hs === 0 && chg === 0 && sing === 1 && doub === 2) return 11.68;
      if (hs === 0 && chg === 1 && sing === 2 && doub === 1) return 3.01;
      if (hs === 1 && chg === 1 && sing === 3) return 4.44;
      if (hs === 0 && chg === 0 && arom === 3) return 4.41;
      if (hs === 0 && chg === 0 && sing === 1 && arom === 2) return 4.93;
      if (hs === 0 && chg === 0 && doub === 1 && arom === 2) return 8.39;
      if (hs === 0 && chg === 1 && arom === 3) return 4.1;
      if (hs === 0 && chg === 1 && sing === 1 && arom === 2) return 3.88;
      break;
    case 4:
      if (hs === 0 && sing === 4 && chg === 1) return 0;
      break;
  }
  // Unlisted environments: RDKit's generic estimate, floored at 0.
  const v = 30.5 - nbrs * 8.2 + hs * 1.5;
  return v < 0 ? 0 : v;
}

function oxygen(
  g: MolGraph,
  i: number,
  nbrs: number,
  hs: number,
  chg: number,
  sing: number,
  doub: number,
  arom: number,
): number {
  if (nbrs === 1) {
    if (hs === 0 && chg === 0 && doub === 1) return 17.07;
    if (hs === 1 && chg === 0 && sing === 1) return 20.23;
    if (hs === 0 && chg === -1 && sing === 1) return 23.06;
  } else if (nbrs === 2) {
    if (hs === 0 && chg === 0 && sing === 2) return inRingOfSize3(g, i) ? 12.53 : 9.23;
    if (hs === 0 && chg === 0 && arom === 2) return 13.14;
  }
  const v = 28.5 - nbrs * 8.6 + hs * 1.5;
  return v < 0 ? 0 : v;
}

/** RingInfo::isAtomInRingOfSize(i, 3) over RDKit's ring set. */
function inRingOfSize3(g: MolGraph, i: number): boolean {
  if (g.atomRings[i] === 0) return false;
  for (const ring of g.rings)
    if (ring.length === 3 && (ring[0] === i || ring[1] === i || ring[2] === i)) return true;
  return false;
}
