/**
 * RDKit's H-bond donor / acceptor counts and rotatable bonds from a MolGraph, equal to
 * `rdMolDescriptors.CalcNumHBD`, `CalcNumHBA`, `CalcNumRotatableBonds` (default = Strict) and to
 * MinimalLib's `NumHBD`, `NumHBA`, `NumRotatableBonds`.
 *
 * The SMARTS are those compiled into RDKit 2026.09.1 (Code/GraphMol/Descriptors/Lipinski.cpp,
 * BSD-3-Clause): they differ from older releases and from rdkit/Chem/Lipinski.py (the acceptor
 * pattern takes aromatic n only with two connections, the strict rotor pattern also excludes bonds
 * to CH3 and counts aromatic non-ring bonds). RDKit counts unique matches of each pattern on the
 * molecule as parsed (no hydrogens added), at most 1000 (SubstructMatch's maxMatches).
 */
import type { MolGraph } from './graph.ts';
import { atomMatches, bondMatches, compileSmarts, matchesAt } from './smarts-lite.ts';

const HBD = compileSmarts('[N&!H0&v3,N&!H0&+1&v4,O&H1&+0,S&H1&+0,n&H1&+0]');
const HBA = compileSmarts(
  '[$([O,S;H1;v2]-[!$(*=[O,N,P,S])]),$([O,S;H0;v2]),$([O,S;-]),$([N;v3;!$(N-*=!@[O,N,P,S])]),$([nH0X2,o,s;+0])]',
);
/** Strict rotatable bond: the first atom also excludes amide-like C(=X)-X and amidine ends. */
const ROTOR_END =
  '!$(*#*)&!D1&!$(C(F)(F)F)&!$(C(Cl)(Cl)Cl)&!$(C(Br)(Br)Br)&!$(C([CH3])([CH3])[CH3])&!$([CH3])';
const ROTOR = compileSmarts(
  `[${ROTOR_END}&!$([CD3](=[N,O,S])-!@[#7,O,S!D1])&!$([#7,O,S!D1]-!@[CD3]=[N,O,S])` +
    `&!$([CD3](=[N+])-!@[#7!D1])&!$([#7!D1]-!@[CD3]=[N+])]-,:;!@[${ROTOR_END}]`,
);
const MAX_MATCHES = 1000;

function countAtoms(g: MolGraph, p: typeof HBD): number {
  let c = 0;
  for (let i = 0; i < g.n; i++) if (matchesAt(p, g, i)) c++;
  return Math.min(c, MAX_MATCHES);
}

/** H-bond donors: N-H (neutral v3 or cationic v4), neutral O-H, S-H and aromatic n-H atoms. */
export function numHBD(g: MolGraph): number {
  return countAtoms(g, HBD);
}

/** H-bond acceptors (RDKit's NumHBA definition). */
export function numHBA(g: MolGraph): number {
  return countAtoms(g, HBA);
}

// Per-atom cache of the two end tests: 0 unknown, 1 no, 2 yes. Grown as needed.
let endA = new Uint8Array(256);
let endB = new Uint8Array(256);
function end(cache: Uint8Array, k: number, g: MolGraph, a: number): boolean {
  if (cache[a] === 0) cache[a] = atomMatches(ROTOR, k, g, a) ? 2 : 1;
  return cache[a] === 2;
}

/** Rotatable bonds, RDKit's strict definition: a bond matching the pattern in either direction counts once. */
export function numRotatableBonds(g: MolGraph): number {
  if (endA.length < g.n) {
    endA = new Uint8Array(2 * g.n);
    endB = new Uint8Array(2 * g.n);
  }
  endA.fill(0, 0, g.n);
  endB.fill(0, 0, g.n);
  let c = 0;
  for (let b = 0; b < g.nb; b++) {
    if (!bondMatches(ROTOR, 1, g, b)) continue;
    const x = g.bondA[b];
    const y = g.bondB[b];
    if ((end(endA, 0, g, x) && end(endB, 1, g, y)) || (end(endA, 0, g, y) && end(endB, 1, g, x))) c++;
  }
  return Math.min(c, MAX_MATCHES);
}
