/**
 * Morgan count fingerprints (radius 2, folded to 2048 counts), computed from the molecule graph in
 * TypeScript: MinimalLib only returns bit vectors. It follows RDKit's MorganGenerator with default
 * settings (Code/GraphMol/Fingerprints/MorganGenerator.cpp and FingerprintUtil.cpp, BSD-3-Clause):
 * connectivity invariants with ring membership, bond types, no chirality, no redundant
 * environments, RDKit's portable 32-bit boost hash_combine (RDGeneral/hash/hash.hpp). The set bits
 * equal MinimalLib's fingerprint and the counts Python RDKit's `GetCountFingerprintAsNumPy`
 * (test/engine/analysis/embed/morgan-counts.test.ts).
 */
import { degree, totalHs, BOND_DATIVE, BOND_ZERO, type MolGraph } from '../../chem/graph.ts';
import { atomMass } from '../../chem/weight.ts';
import { MORGAN_FP } from '../../chem/fingerprint.ts';

/** RDKit Bond::BondType values the invariants hash. */
const BOND_TYPE = { SINGLE: 1, DOUBLE: 2, TRIPLE: 3, AROMATIC: 12, DATIVE: 17, ZERO: 21 } as const;
const GOLDEN = 0x9e3779b9;
const PAIR_SHIFT = 2 ** 32;

/** gboost::hash_combine on a uint32 seed: seed ^ (h + 0x9e3779b9 + (seed << 6) + (seed >> 2)), mod 2^32. */
export function combine(seed: number, h: number): number {
  return (seed ^ ((h + GOLDEN + ((seed << 6) >>> 0) + (seed >>> 2)) >>> 0)) >>> 0;
}

/** gboost::hash_value of std::pair<int32, uint32>. */
export function hashPair(first: number, second: number): number {
  return combine(combine(0, first >>> 0), second >>> 0);
}

/**
 * The values RDKit's connectivity invariant of atom i hashes (getConnectivityInvariants with
 * includeRingMembership): atomic number, total degree, total Hs, charge, delta mass, [in ring].
 */
export function atomInvariantParts(g: MolGraph, i: number): number[] {
  const z = g.z[i];
  const deltaMass = Math.trunc(atomMass(z, g.isotope[i]) - atomMass(z, 0));
  const parts = [z, degree(g, i) + g.hs[i], totalHs(g, i), g.charge[i] >>> 0, deltaMass >>> 0];
  if (g.atomRings[i] > 0) parts.push(1);
  return parts;
}

/** The hash of atomInvariantParts of every atom (the parts are not built: this runs per product). */
export function atomInvariants(g: MolGraph): Uint32Array {
  const inv = new Uint32Array(g.n);
  for (let i = 0; i < g.n; i++) {
    const z = g.z[i];
    const deltaMass = Math.trunc(atomMass(z, g.isotope[i]) - atomMass(z, 0));
    let seed = combine(0, z);
    seed = combine(seed, degree(g, i) + g.hs[i]);
    seed = combine(seed, totalHs(g, i));
    seed = combine(seed, g.charge[i] >>> 0);
    seed = combine(seed, deltaMass >>> 0);
    inv[i] = g.atomRings[i] > 0 ? combine(seed, 1) : seed;
  }
  return inv;
}

/** MorganBondInvGenerator with bond types and without chirality: the RDKit bond type. */
export function bondInvariants(g: MolGraph): Int32Array {
  const inv = new Int32Array(g.nb);
  for (let b = 0; b < g.nb; b++) {
    const o = g.order[b];
    if (g.bondAromatic[b]) inv[b] = BOND_TYPE.AROMATIC;
    else if (o === BOND_DATIVE) inv[b] = BOND_TYPE.DATIVE;
    else if (o === BOND_ZERO) inv[b] = BOND_TYPE.ZERO;
    else inv[b] = o;
  }
  return inv;
}

/**
 * The Morgan environment codes of a molecule (unfolded uint32 bit ids, one per environment, so a
 * code may repeat): round 0 has one per atom, each later round one per atom whose bond
 * neighbourhood is new (of atoms with the same new neighbourhood, the smallest code wins, then
 * the lowest atom index, as RDKit's sort of (neighbourhood, code, atom) tuples does).
 */
export function morganCodes(g: MolGraph, radius: number = MORGAN_FP.radius): number[] {
  return morganEnvironments(g, radius).codes;
}

/**
 * The environments behind `morganCodes`: code k is centred on atom `atoms[k]` with radius
 * `radii[k]` (it depends only on the atoms within that many bonds of its centre). Synthon spaces
 * use it to tell which bits of a synthon survive in every product (engine/synthons).
 */
export function morganEnvironments(
  g: MolGraph,
  radius: number = MORGAN_FP.radius,
): { codes: number[]; atoms: number[]; radii: number[] } {
  const words = Math.max(1, Math.ceil(g.nb / 32));
  const bondInv = bondInvariants(g);
  let cur = atomInvariants(g);
  const codes: number[] = Array.from(cur);
  const atoms: number[] = codes.map((_, i) => i);
  const radii: number[] = codes.map(() => 0);
  let atomNbhd = new Uint32Array(g.n * words);
  const roundNbhd = new Uint32Array(g.n * words);
  const dead = new Uint8Array(g.n);
  const seen = new Set<string>();
  // (bond invariant, neighbour code) pairs of one atom as bond·2^32 + code (exact in a double), so
  // numeric order is RDKit's pair order; insertion-sorted in place (degrees are small). Arrays of
  // pairs and their sorts were most of this function's garbage in the synthon searches.
  let maxDegree = 0;
  for (let a = 0; a < g.n; a++) maxDegree = Math.max(maxDegree, g.adjStart[a + 1] - g.adjStart[a]);
  const nbrs = new Float64Array(maxDegree);
  for (let layer = 0; layer < radius; layer++) {
    const next = new Uint32Array(g.n);
    const round = new Map<string, { code: number; atom: number }>();
    for (let a = 0; a < g.n; a++) {
      if (dead[a]) continue;
      if (degree(g, a) === 0) {
        dead[a] = 1;
        continue;
      }
      let m = 0;
      for (let k = g.adjStart[a]; k < g.adjStart[a + 1]; k++) {
        const b = g.adjBond[k];
        const o = g.adjAtom[k];
        roundNbhd[a * words + (b >>> 5)] |= 1 << (b & 31);
        for (let w = 0; w < words; w++) roundNbhd[a * words + w] |= atomNbhd[o * words + w];
        const v = bondInv[b] * PAIR_SHIFT + cur[o];
        let p = m++;
        for (; p > 0 && nbrs[p - 1] > v; p--) nbrs[p] = nbrs[p - 1];
        nbrs[p] = v;
      }
      let code = combine(layer, cur[a]);
      for (let p = 0; p < m; p++) {
        const bt = Math.floor(nbrs[p] / PAIR_SHIFT);
        code = combine(code, hashPair(bt, nbrs[p] - bt * PAIR_SHIFT));
      }
      next[a] = code;
      let key = String(roundNbhd[a * words]);
      for (let w = 1; w < words; w++) key += ',' + roundNbhd[a * words + w];
      if (seen.has(key)) {
        dead[a] = 1;
        continue;
      }
      // Of the atoms with this neighbourhood the smallest code wins, then the lowest index (the
      // first of RDKit's sorted tuples); the others are dead. No full sort is needed for that.
      const best = round.get(key);
      if (!best) round.set(key, { code, atom: a });
      else if (code < best.code) {
        dead[best.atom] = 1;
        round.set(key, { code, atom: a });
      } else dead[a] = 1;
    }
    for (const [key, env] of round) {
      seen.add(key);
      codes.push(env.code);
      atoms.push(env.atom);
      radii.push(layer + 1);
    }
    cur = next;
    atomNbhd = roundNbhd.slice();
  }
  return { codes, atoms, radii };
}

/** Folded Morgan counts (radius 2, 2048 entries): codes modulo the size, counted. */
export function morganCounts(g: MolGraph, nBits: number = MORGAN_FP.nBits): Uint16Array {
  const counts = new Uint16Array(nBits);
  for (const c of morganCodes(g)) counts[c % nBits]++;
  return counts;
}
