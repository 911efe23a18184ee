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
  const s = scratchFor(g.n, words);
  let cur = s.cur;
  let next = s.next;
  cur.set(atomInvariants(g));
  const codes: number[] = [];
  const atoms: number[] = [];
  const radii: number[] = [];
  for (let i = 0; i < g.n; i++) {
    codes.push(cur[i]);
    atoms.push(i);
    radii.push(0);
  }
  const atomNbhd = s.atomNbhd;
  const roundNbhd = s.roundNbhd;
  atomNbhd.fill(0, 0, g.n * words);
  roundNbhd.fill(0, 0, g.n * words);
  const dead = s.dead;
  dead.fill(0, 0, g.n);
  // A neighbourhood (a bond set) as its own key: the bitset itself as a number while it fits in
  // a double's 53 exact bits (most products), else its words joined as a string. Exact either
  // way (no hash, no collision).
  const numeric = g.nb <= 53;
  const seen = new Set<number | string>();
  // (bond invariant, neighbour code) pairs of one atom as bond·2^32 + code (exact in a double), so
  // numeric order is RDKit's pair order; insertion-sorted in place (degrees are small). Arrays of
  // pairs and their sorts were most of this function's garbage in the synthon searches.
  let maxDegree = 0;
  for (let a = 0; a < g.n; a++) maxDegree = Math.max(maxDegree, g.adjStart[a + 1] - g.adjStart[a]);
  const nbrs = maxDegree <= s.nbrs.length ? s.nbrs : new Float64Array(maxDegree);
  // A round's environments in first-seen order: slot j holds its winning code and atom.
  const slotCode = s.slotCode;
  const slotAtom = s.slotAtom;
  for (let layer = 0; layer < radius; layer++) {
    // An atom skipped this round (dead, or without bonds) has code 0 in the next, as in RDKit.
    next.fill(0, 0, g.n);
    const round = new Map<number | string, number>();
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
      let key: number | string;
      if (numeric)
        key = (roundNbhd[a * words] >>> 0) + (words > 1 ? (roundNbhd[a * words + 1] >>> 0) * PAIR_SHIFT : 0);
      else {
        key = String(roundNbhd[a * words]);
        for (let w = 1; w < words; w++) key += ',' + roundNbhd[a * words + w];
      }
      if (seen.has(key)) {
        dead[a] = 1;
        continue;
      }
      // Of the atoms with this neighbourhood the smallest code wins, then the lowest index (the
      // first of RDKit's sorted tuples); the others are dead. No full sort is needed for that.
      const j = round.get(key);
      if (j === undefined) {
        const slot = round.size;
        round.set(key, slot);
        slotCode[slot] = code;
        slotAtom[slot] = a;
      } else if (code < slotCode[j]) {
        dead[slotAtom[j]] = 1;
        slotCode[j] = code;
        slotAtom[j] = a;
      } else dead[a] = 1;
    }
    let slot = 0;
    for (const key of round.keys()) {
      seen.add(key);
      codes.push(slotCode[slot]);
      atoms.push(slotAtom[slot]);
      radii.push(layer + 1);
      slot++;
    }
    [cur, next] = [next, cur];
    // The next round starts from this round's neighbourhoods (roundNbhd keeps accumulating).
    atomNbhd.set(roundNbhd.subarray(0, g.n * words));
  }
  return { codes, atoms, radii };
}

/**
 * Work arrays of morganEnvironments, reused across calls (it runs once per scored product in the
 * synthon searches, where allocating nine small typed arrays a call was a third of its time).
 */
let scratch = makeScratch(64, 2);

function makeScratch(n: number, words: number) {
  return {
    n,
    words,
    cur: new Uint32Array(n),
    next: new Uint32Array(n),
    atomNbhd: new Uint32Array(n * words),
    roundNbhd: new Uint32Array(n * words),
    dead: new Uint8Array(n),
    slotCode: new Uint32Array(n),
    slotAtom: new Int32Array(n),
    nbrs: new Float64Array(8),
  };
}

function scratchFor(n: number, words: number) {
  if (n > scratch.n || words > scratch.words)
    scratch = makeScratch(Math.max(n, scratch.n), Math.max(words, scratch.words));
  return scratch;
}

/** Folded Morgan counts (radius 2, 2048 entries): codes modulo the size, counted. */
export function morganCounts(g: MolGraph, nBits: number = MORGAN_FP.nBits): Uint16Array {
  const counts = new Uint16Array(nBits);
  for (const c of morganCodes(g)) counts[c % nBits]++;
  return counts;
}
