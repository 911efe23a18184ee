/**
 * A molecule as plain typed arrays, read from MinimalLib's `get_json()` (RDKit JSON, the sanitised
 * molecule: Kekulé bond orders plus RDKit's aromatic flags and its ring set). Descriptors that
 * MinimalLib only offers inside the costly all-in-one `get_descriptors()` (~0.45 ms per molecule)
 * are computed from this graph in TypeScript instead (crippen.ts, tpsa.ts, lipinski.ts, ...), each
 * checked equal to Python RDKit. Pure: no RDKit calls here.
 */

/** Bond order codes as RDKit JSON writes them (`bo`): 1, 2, 3 Kekulé orders; 0 zero-order; 17 dative. */
export const BOND_ZERO = 0;
export const BOND_DATIVE = 17;

export interface MolGraph {
  /** Atoms in the RDKit molecule (heavy atoms and any hydrogens RDKit kept as atoms). */
  n: number;
  /** Atomic number per atom (0 = dummy atom). */
  z: Uint8Array;
  /** Formal charge per atom. */
  charge: Int8Array;
  /** Hydrogens on each atom that are not atoms of the graph (RDKit's total H count of the atom). */
  hs: Uint8Array;
  /** Mass number where the SMILES gave one, else 0. */
  isotope: Uint16Array;
  /** Radical electrons per atom. */
  radicals: Uint8Array;
  /** 1 where RDKit perceived the atom as aromatic. */
  aromatic: Uint8Array;
  /** Number of bonds. */
  nb: number;
  bondA: Uint16Array;
  bondB: Uint16Array;
  /** Kekulé order (1, 2, 3), 0 for zero-order and 17 for dative bonds. */
  order: Uint8Array;
  /** 1 where RDKit perceived the bond as aromatic. */
  bondAromatic: Uint8Array;
  /** Neighbours of atom i: adjAtom[adjStart[i] .. adjStart[i+1]), bond index in adjBond. */
  adjStart: Uint32Array;
  adjAtom: Uint16Array;
  adjBond: Uint16Array;
  /** RDKit's ring set (symmetrised SSSR), each ring as its atoms in ring order. */
  rings: number[][];
  /** The bonds of each ring of `rings`: ringBonds[r][k] joins rings[r][k] and the next ring atom. */
  ringBonds: number[][];
  /** Rings of `rings` each atom is in (0 = not in a ring), capped at 255. */
  atomRings: Uint8Array;
  /** Rings of `rings` each bond is in (0 = not a ring bond), capped at 255. */
  bondRings: Uint8Array;
}

interface JsonAtom {
  z?: number;
  impHs?: number;
  chg?: number;
  nRad?: number;
  isotope?: number;
}
interface JsonBond {
  bo?: number;
  atoms: [number, number];
}
interface JsonExtension {
  name: string;
  aromaticAtoms?: number[];
  aromaticBonds?: number[];
  atomRings?: number[][];
}
interface RDKitJson {
  defaults?: { atom?: JsonAtom; bond?: { bo?: number } };
  molecules: { atoms: JsonAtom[]; bonds?: JsonBond[]; extensions?: JsonExtension[] }[];
}

/** Builds the graph of the first molecule in an RDKit JSON document (MinimalLib `mol.get_json()`). */
export function graphFromRDKitJson(json: string): MolGraph {
  const doc = JSON.parse(json) as RDKitJson;
  const mol = doc.molecules[0];
  const da = doc.defaults?.atom ?? {};
  const dbo = doc.defaults?.bond?.bo ?? 1;
  const n = mol.atoms.length;
  const bonds = mol.bonds ?? [];
  const nb = bonds.length;
  const g = newGraph(n, nb);
  for (let i = 0; i < n; i++) {
    const a = mol.atoms[i];
    g.z[i] = a.z ?? da.z ?? 6;
    g.charge[i] = a.chg ?? da.chg ?? 0;
    g.hs[i] = a.impHs ?? da.impHs ?? 0;
    g.isotope[i] = a.isotope ?? da.isotope ?? 0;
    g.radicals[i] = a.nRad ?? da.nRad ?? 0;
  }
  for (let b = 0; b < nb; b++) {
    const [x, y] = bonds[b].atoms;
    g.bondA[b] = x;
    g.bondB[b] = y;
    g.order[b] = bonds[b].bo ?? dbo;
  }
  fillAdjacency(g);
  const ext = mol.extensions?.find((e) => e.name === 'rdkitRepresentation');
  for (const i of ext?.aromaticAtoms ?? []) g.aromatic[i] = 1;
  for (const b of ext?.aromaticBonds ?? []) g.bondAromatic[b] = 1;
  g.rings = ext?.atomRings ?? [];
  for (const ring of g.rings) {
    const ringBonds: number[] = [];
    g.ringBonds.push(ringBonds);
    for (let k = 0; k < ring.length; k++) {
      const x = ring[k];
      // saturate at 255: symmetrised SSSRs of macrocycles can put a bond in 256+ rings
      // (cyclodextrins), and a wrapped count would make a ring bond look acyclic
      if (g.atomRings[x] < 255) g.atomRings[x]++;
      const b = bondBetween(g, x, ring[(k + 1) % ring.length]);
      ringBonds.push(b);
      if (b >= 0 && g.bondRings[b] < 255) g.bondRings[b]++;
    }
  }
  return g;
}

/** A graph of n atoms and nb bonds, every array zeroed (callers fill atoms and bonds, then fillAdjacency). */
export function newGraph(n: number, nb: number): MolGraph {
  return {
    n,
    z: new Uint8Array(n),
    charge: new Int8Array(n),
    hs: new Uint8Array(n),
    isotope: new Uint16Array(n),
    radicals: new Uint8Array(n),
    aromatic: new Uint8Array(n),
    nb,
    bondA: new Uint16Array(nb),
    bondB: new Uint16Array(nb),
    order: new Uint8Array(nb),
    bondAromatic: new Uint8Array(nb),
    adjStart: new Uint32Array(n + 1),
    adjAtom: new Uint16Array(2 * nb),
    adjBond: new Uint16Array(2 * nb),
    rings: [],
    ringBonds: [],
    atomRings: new Uint8Array(n),
    bondRings: new Uint8Array(nb),
  };
}

/** The neighbour lists (adjStart, adjAtom, adjBond) from the bonds' ends. */
export function fillAdjacency(g: MolGraph): void {
  const deg = new Uint32Array(g.n);
  for (let b = 0; b < g.nb; b++) {
    deg[g.bondA[b]]++;
    deg[g.bondB[b]]++;
  }
  for (let i = 0; i < g.n; i++) g.adjStart[i + 1] = g.adjStart[i] + deg[i];
  const fill = g.adjStart.slice(0, g.n);
  for (let b = 0; b < g.nb; b++) {
    const x = g.bondA[b];
    const y = g.bondB[b];
    g.adjAtom[fill[x]] = y;
    g.adjBond[fill[x]++] = b;
    g.adjAtom[fill[y]] = x;
    g.adjBond[fill[y]++] = b;
  }
}

/** Index of the bond joining atoms x and y, or -1. */
export function bondBetween(g: MolGraph, x: number, y: number): number {
  for (let k = g.adjStart[x]; k < g.adjStart[x + 1]; k++) if (g.adjAtom[k] === y) return g.adjBond[k];
  return -1;
}

/** Number of graph neighbours (explicit connections; hydrogens in `hs` not counted). */
export function degree(g: MolGraph, i: number): number {
  return g.adjStart[i + 1] - g.adjStart[i];
}

/** Hydrogens on atom i: those in `hs` plus hydrogen atoms bonded to it. */
export function totalHs(g: MolGraph, i: number): number {
  let h = g.hs[i];
  for (let k = g.adjStart[i]; k < g.adjStart[i + 1]; k++) if (g.z[g.adjAtom[k]] === 1) h++;
  return h;
}

/**
 * RDKit's total valence of atom i: Kekulé bond orders of its bonds (a dative bond counts 1 for its
 * end atom, the acceptor, and 0 for the donor; zero-order bonds count 0) plus its hydrogens in `hs`.
 */
export function totalValence(g: MolGraph, i: number): number {
  let v = g.hs[i];
  for (let k = g.adjStart[i]; k < g.adjStart[i + 1]; k++) {
    const b = g.adjBond[k];
    const o = g.order[b];
    if (o === BOND_DATIVE) {
      if (g.bondB[b] === i) v += 1;
    } else if (o <= 3) v += o;
  }
  return v;
}

/** Size of the smallest ring of `rings` containing atom i, or 0. */
export function smallestRingSize(g: MolGraph, i: number): number {
  let best = 0;
  for (const ring of g.rings) if ((best === 0 || ring.length < best) && ring.includes(i)) best = ring.length;
  return best;
}

/** Sets atomRings to 1 for atoms with a bond that is not a bridge (Tarjan's low-link), else 0. */
export function markRingAtoms(g: MolGraph): void {
  const disc = new Int32Array(g.n).fill(-1);
  const low = new Int32Array(g.n);
  const parentBond = new Int32Array(g.n).fill(-1);
  const next = new Uint32Array(g.n);
  g.atomRings.fill(0);
  let t = 0;
  for (let root = 0; root < g.n; root++) {
    if (disc[root] >= 0) continue;
    const stack = [root];
    disc[root] = low[root] = t++;
    while (stack.length) {
      const a = stack[stack.length - 1];
      const k = g.adjStart[a] + next[a];
      if (k < g.adjStart[a + 1]) {
        next[a]++;
        const o = g.adjAtom[k];
        const b = g.adjBond[k];
        if (b === parentBond[a]) continue;
        if (disc[o] < 0) {
          disc[o] = low[o] = t++;
          parentBond[o] = b;
          stack.push(o);
        } else if (disc[o] < low[a]) low[a] = disc[o];
        continue;
      }
      stack.pop();
      const p = stack.length ? stack[stack.length - 1] : -1;
      if (p < 0) continue;
      if (low[a] < low[p]) low[p] = low[a];
      // The bond p–a lies on a cycle unless nothing below a reaches above it.
      if (low[a] <= disc[p]) g.atomRings[a] = g.atomRings[p] = 1;
    }
  }
}
