/**
 * What a synthon contributes to every product it is part of, computed once at build time:
 * its Morgan fingerprint, the **guaranteed bits** (Morgan environments that cannot change when the
 * synthon is zipped into a product) and how many environments of its atoms may differ in a product.
 * These make the similarity search's product bound exact (engine/synthons/similarity.ts):
 *
 * A radius-r environment of atom a depends only on the atoms within r bonds of a (their
 * invariants: element, degree, Hs, charge, isotope, ring membership) and the bonds among them.
 * Zipping replaces each dummy by the partner's atom through a bond of the same order, so an
 * environment whose atoms include no dummy is unchanged, unless the join closes a ring (a reaction
 * with as many connector labels as slots): then atoms on a path between two dummies may become
 * ring atoms and their ring system may change aromaticity, so those atoms count as unstable too.
 */
import { graphFromRDKitJson, type MolGraph } from '../chem/graph.ts';
import { FP_BYTES, MORGAN_DETAILS } from '../chem/fingerprint.ts';
import { morganEnvironments } from '../analysis/embed/morgan-counts.ts';
import type { RDKitModule } from '../chem/rdkit.ts';
import { encodeJoinEnv } from './join-env.ts';
import { synthonScreen } from './sss-screen.ts';
import { encodeRingCore, ringCore } from './ring-core.ts';

export interface SynthonChem {
  /** Morgan r2 2048 of the synthon itself (dummies included), RDKit layout. */
  fp: Uint8Array;
  /** Bits of the environments every product keeps. */
  guaranteed: Uint8Array;
  /** Environments (atom, radius) of its real atoms that a product may have differently. */
  unstableEnvs: number;
  heavyAtoms: number;
  /** Connector labels (isotopes of the dummies), ascending. */
  labels: number[];
  /** The join environment of a one-connector synthon (join-env.ts); '' when there is none. */
  joinEnv: string;
  /** Substructure screen (sss-screen.ts). */
  screen: Uint8Array;
  /** Ring-closing and double-bond reactions: the ring core's bytes (ring-core.ts); else empty. */
  ringCore: Uint8Array;
}

/** Dummy atoms that are connectors: atomic number 0 with isotope 1–4. */
function dummies(g: MolGraph): number[] {
  const out: number[] = [];
  for (let i = 0; i < g.n; i++) if (g.z[i] === 0) out.push(i);
  return out;
}

/** BFS distances (in bonds) from a set of atoms; unreachable atoms get Infinity. */
export function distancesFrom(g: MolGraph, sources: Iterable<number>): Float64Array {
  const dist = new Float64Array(g.n).fill(Infinity);
  const queue: number[] = [];
  for (const s of sources) {
    dist[s] = 0;
    queue.push(s);
  }
  for (let q = 0; q < queue.length; q++) {
    const a = queue[q];
    for (let k = g.adjStart[a]; k < g.adjStart[a + 1]; k++) {
      const o = g.adjAtom[k];
      if (dist[o] > dist[a] + 1) {
        dist[o] = dist[a] + 1;
        queue.push(o);
      }
    }
  }
  return dist;
}

/** Atoms on a shortest path between atoms `from` and `to` (both included). */
function shortestPath(g: MolGraph, from: number, to: number): number[] {
  const dist = distancesFrom(g, [to]);
  if (!Number.isFinite(dist[from])) return [];
  const path = [from];
  let a = from;
  while (a !== to) {
    for (let k = g.adjStart[a]; k < g.adjStart[a + 1]; k++) {
      const o = g.adjAtom[k];
      if (dist[o] === dist[a] - 1) {
        a = o;
        break;
      }
    }
    path.push(a);
  }
  return path;
}

/**
 * Atoms whose invariants may change in a product. Every simple path between two dummies crosses
 * the same bridges and ring systems as a shortest one, so a shortest path widened to whole ring
 * systems covers every atom a new ring can pass through.
 */
export function unstableAtoms(g: MolGraph, ringForming: boolean): Set<number> {
  const d = dummies(g);
  const out = new Set<number>(d);
  // A ring atom joined by a double or aromatic connector bond: the partner atom can change how
  // RDKit perceives the ring's aromaticity, so the whole ring system is unstable.
  for (const x of d)
    for (let k = g.adjStart[x]; k < g.adjStart[x + 1]; k++) {
      const b = g.adjBond[k];
      if ((g.order[b] !== 1 || g.bondAromatic[b]) && g.atomRings[g.adjAtom[k]] > 0) out.add(g.adjAtom[k]);
    }
  if (ringForming && d.length >= 2)
    for (let i = 0; i < d.length; i++)
      for (let j = i + 1; j < d.length; j++) for (const a of shortestPath(g, d[i], d[j])) out.add(a);
  if (out.size === d.length) return out;
  // Widen to ring systems (rings sharing an atom), repeating until nothing is added.
  let grew = true;
  while (grew) {
    grew = false;
    for (const ring of g.rings)
      if (ring.some((a) => out.has(a)) && ring.some((a) => !out.has(a))) {
        for (const a of ring) out.add(a);
        grew = true;
      }
  }
  return out;
}

/** The build-time chemistry of one synthon; a string is the reason it is rejected. */
export function synthonChemistry(
  rd: RDKitModule,
  smiles: string,
  ringForming: boolean,
  withCore = ringForming,
): SynthonChem | string {
  const mol = rd.get_mol(smiles);
  try {
    if (!mol || !mol.is_valid()) return 'RDKit cannot parse the SMILES';
    const g = graphFromRDKitJson(mol.get_json());
    const d = dummies(g);
    const labels = d.map((i) => g.isotope[i]).sort((x, y) => x - y);
    if (d.length === 0) return 'no connector ([1*]..[4*] or [U]/[Np]/[Pu]/[Am])';
    if (d.length > 4) return `${d.length} connectors (at most 4)`;
    if (labels.some((l) => l < 1 || l > 4)) return 'a dummy atom without a connector label 1-4';
    if (new Set(labels).size !== labels.length) return `connector label repeated (${labels.join(',')})`;
    // An unpaired electron (`[1*][C](C)C(F)(F)F`: a synthon cut without its H) would make every
    // product of the synthon a radical: no purchasable molecule.
    const radical = g.radicals.findIndex((r, a) => r > 0 && g.z[a] !== 0);
    if (radical >= 0) return `a radical: atom ${radical} has an unpaired electron`;
    const fp = new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
    if (fp.length !== FP_BYTES) return 'unexpected fingerprint size';
    const unstable = unstableAtoms(g, ringForming);
    const dist = distancesFrom(g, unstable);
    const env = morganEnvironments(g);
    const guaranteed = new Uint8Array(FP_BYTES);
    for (let k = 0; k < env.codes.length; k++)
      if (dist[env.atoms[k]] > env.radii[k]) {
        const bit = env.codes[k] % (FP_BYTES * 8);
        guaranteed[bit >> 3] |= 1 << (bit & 7);
      }
    let unstableEnvs = 0;
    for (let a = 0; a < g.n; a++)
      if (g.z[a] !== 0) for (let r = 0; r <= 2; r++) if (dist[a] <= r) unstableEnvs++;
    const joinEnv = ringForming ? '' : encodeJoinEnv(g);
    const screen = synthonScreen(g);
    const core = withCore ? encodeRingCore(ringCore(rd, g, unstable), g) : new Uint8Array(0);
    return {
      fp,
      guaranteed,
      unstableEnvs,
      heavyAtoms: g.n - d.length,
      labels,
      joinEnv,
      screen,
      ringCore: core,
    };
  } catch (e) {
    return `RDKit failed: ${(e as Error).message ?? String(e)}`;
  } finally {
    mol?.delete();
  }
}
