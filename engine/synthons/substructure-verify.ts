/**
 * Verifying a candidate tuple of the substructure search against the whole query.
 *
 * The exact path (`verifyExact`) is the definition: parse the synthons joined by '.', molzip,
 * write the canonical SMILES, parse it again (full sanitisation) and match the query on that
 * product P. It costs two parses and two canonicalisations per tuple.
 *
 * The fast path zips the synthon molecules parsed once per search (connectors written as atom
 * maps `[*:n]`, molzip's default label, so a connector no partner takes stays `[*:n]` as in the
 * exact path) and matches the query on the zipped molecule Z. It is taken only where Z is P up to
 * atom order: a reaction that closes no ring, every connector bond single and not aromatic
 * (graph-zip.ts: then ring membership, aromaticity, H counts, charges and valences of every atom
 * are those of its sanitised synthon, and molzip recomputes implicit valences), no label on more
 * than two synthons and the slots connected by the paired ones (one product), and a query without
 * ring primitives (molzip leaves ring information unset, and RDKit's ring queries on an unset ring
 * information throw or answer 0). A non-match on Z is then a non-match on P, and a match is one
 * of P's: Z's canonical SMILES is P's (P is parsed from it), P's atom k is the k-th atom written
 * (`_smilesAtomOutputOrder`), and P's bonds are numbered as RDKit's SMILES parser numbers them
 * (smiles-bonds.ts), so the hit is reported in P's indices without parsing P (the slowest step).
 * The match found on Z may be another embedding of the query than the first one on P, and a
 * product keeping an unpaired connector is numbered as its returned SMILES (`[*:n]`), where the
 * exact path numbers it as its `[n*]` form: the exact path's choices, not the hit set, differ.
 * Where stereo tags are written, P is parsed for its canonical SMILES only (see `perceived`).
 * Anything unexpected (molzip fails, RDKit throws) goes through the exact path.
 */
import type { RDKitModule, RDKitMol } from '../chem/rdkit.ts';
import { assembleWith, mappedSynthonMol } from './assemble.ts';
import { synthonGraph } from './graph-zip.ts';
import { smilesBonds } from './smiles-bonds.ts';
import { smilesConnectors } from './skeleton-match.ts';
import { tupleId, tupleSmiles, type OpenSpace, type ProductTuple } from './space.ts';

export type StructureMode = 'substructure' | 'superstructure';

export interface SubstructureHit {
  productId: string;
  smiles: string;
  reactionId: string;
  synthons: Array<{ slot: number; synthonId: string; smiles: string }>;
  /** Product atoms (substructure) or query atoms (superstructure) of the match. */
  matchedAtoms: number[];
  matchedBonds: number[];
}

type Match = { atoms?: number[]; bonds?: number[] };

/** Per reaction and slot, synthon molecules parsed on first use and freed at the end. */
export function synthonMols(rd: RDKitModule, space: OpenSpace) {
  const mols = new Map<string, RDKitMol | null>();
  return {
    get(r: number, s: number, i: number): RDKitMol | null {
      const key = `${r}/${s}/${i}`;
      if (!mols.has(key)) {
        mols.set(key, mappedSynthonMol(rd, space.reactions[r].slots[s].smiles[i]));
      }
      return mols.get(key)!;
    },
    free: () => mols.forEach((m) => m?.delete()),
  };
}

export type SynthonMols = ReturnType<typeof synthonMols>;

/**
 * The zip of a tuple's synthons but the last: tuples are walked last slot fastest, so one prefix
 * serves a whole run of tuples (a three-slot reaction then costs one molzip per tuple, not two).
 */
function prefixZips(rd: RDKitModule, mols: SynthonMols) {
  let key = '';
  let mol: RDKitMol | null = null;
  const free = () => {
    if (mol && key.split(',').length > 2) mol.delete(); // a one-synthon prefix is the cached synthon
    mol = null;
    key = '';
  };
  return {
    get(t: ProductTuple): RDKitMol | null {
      const k = `${t.reaction},${t.synthons.slice(0, -1).join(',')}`;
      if (k === key) return mol;
      free();
      key = k;
      mol = mols.get(t.reaction, 0, t.synthons[0]);
      for (let s = 1; s < t.synthons.length - 1 && mol; s++) {
        const next = mols.get(t.reaction, s, t.synthons[s]);
        const zipped: RDKitMol | null = next ? rd.molzip(mol, next, '{}') : null;
        if (s > 1) mol.delete();
        mol = zipped?.is_valid() ? zipped : (zipped?.delete(), null);
      }
      return mol;
    },
    free,
  };
}
type Prefixes = ReturnType<typeof prefixZips>;

/** Whether RDKit needs ring information to evaluate the query (SMARTS ring primitives). */
function usesRings(q: RDKitMol): boolean {
  return /"descr":"[^"]*Ring/i.test(q.get_json());
}

/** The query's bonds as atom pairs, in RDKit's order (how MinimalLib lists matched bonds). */
function queryBonds(q: RDKitMol): Array<[number, number]> {
  const doc = JSON.parse(q.get_json()) as {
    molecules: Array<{ bonds?: Array<{ atoms: [number, number] }> }>;
  };
  return (doc.molecules[0].bonds ?? []).map((b) => b.atoms);
}

export interface Verifier {
  /** The hit for a tuple, null when it does not match, undefined when it does not assemble. */
  verify(t: ProductTuple): SubstructureHit | null | undefined;
  /** Tuples decided by the fast path (the rest went through verifyExact). */
  fast: number;
  free(): void;
}

/**
 * `chirality`: stereo must match too (RDKit `useChirality`; `structure_match_mode=exact` of the
 * jobs). Z carries no perceived stereo, so such a match goes through the exact path, unless the
 * query (its text) has no stereo to match: a query atom or bond without stereo matches any.
 */
export function createVerifier(
  rd: RDKitModule,
  space: OpenSpace,
  q: RDKitMol,
  mode: StructureMode,
  mols: SynthonMols,
  chirality?: { query: string },
): Verifier {
  const details = chirality ? CHIRAL_MATCH : undefined;
  const fastQuery =
    mode === 'substructure' && !usesRings(q) && !(chirality && /[@/\\]/.test(chirality.query));
  const qBonds = fastQuery ? queryBonds(q) : [];
  const prefixes = prefixZips(rd, mols);
  const v: Verifier = {
    fast: 0,
    free: () => prefixes.free(),
    verify(t) {
      if (fastQuery && zipsCleanly(rd, space, t)) {
        const out = verifyZipped(rd, space, q, qBonds, mols, prefixes, t);
        if (out !== 'fallback') {
          v.fast++;
          return out;
        }
      }
      return verifyExact(rd, space, q, mode, t, details);
    },
  };
  return v;
}

const CHIRAL_MATCH = JSON.stringify({ useChirality: true });

/** RDKit's first match of `query` in `target`, with the match details when given. */
function matchOn(target: RDKitMol, query: RDKitMol, details?: string): string {
  return details ? target.get_substruct_match(query, details) : target.get_substruct_match(query);
}

/**
 * Whether the tuple's zip changes nothing but the bonds it adds: no ring closed, single
 * non-aromatic connector bonds, every label on exactly two synthons, the slots connected.
 */
function zipsCleanly(rd: RDKitModule, space: OpenSpace, t: ProductTuple): boolean {
  const r = space.reactions[t.reaction];
  if (r.info.ringForming) return false;
  const n = t.synthons.length;
  const ends = new Map<number, number[]>();
  for (let s = 0; s < n; s++) {
    const smiles = r.slots[s].smiles[t.synthons[s]];
    // An atom map of its own would be taken for a connector label.
    if (smiles.includes(':')) return false;
    const c = connectorsOf(rd, r.slots[s], t.synthons[s]);
    if (!c?.simple) return false;
    for (const label of c.labels) {
      const list = ends.get(label) ?? [];
      list.push(s);
      ends.set(label, list);
    }
  }
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (const slots of ends.values()) {
    if (slots.length > 2 || slots[0] === slots[1]) return false;
    if (slots.length === 2) parent[find(slots[0])] = find(slots[1]);
  }
  for (let s = 1; s < n; s++) if (find(s) !== find(0)) return false;
  return true;
}

/** Connector labels and bond simplicity: from the SMILES text, else from RDKit's graph (cached). */
function connectorsOf(
  rd: RDKitModule,
  slot: OpenSpace['reactions'][number]['slots'][number],
  i: number,
): { labels: number[]; simple: boolean } | undefined {
  const fromText = smilesConnectors(slot.smiles[i]);
  if (fromText) return fromText;
  const c = synthonGraph(rd, slot, i);
  if (!c) return undefined;
  const labels: number[] = [];
  for (let a = 0; a < c.g.n; a++) if (c.g.z[a] === 0) labels.push(c.g.isotope[a]);
  return { labels, simple: c.simple };
}

/** The fast path; 'fallback' when the exact path must decide. */
function verifyZipped(
  rd: RDKitModule,
  space: OpenSpace,
  q: RDKitMol,
  qBonds: Array<[number, number]>,
  mols: SynthonMols,
  prefixes: Prefixes,
  t: ProductTuple,
): SubstructureHit | null | 'fallback' {
  const n = t.synthons.length;
  const last = n > 1 ? mols.get(t.reaction, n - 1, t.synthons[n - 1]) : null;
  const head = n > 1 ? prefixes.get(t) : null;
  if (!last || !head) return 'fallback';
  let z: RDKitMol | null = null;
  try {
    z = rd.molzip(head, last, '{}');
    if (!z?.is_valid()) return 'fallback';
    // Matched before anything writes Z out: the SMILES writer would set fast ring information.
    const match = JSON.parse(z.get_substruct_match(q)) as Match;
    if (!match.atoms?.length) return null;
    const smiles = z.get_smiles();
    // Explicit H atoms would be removed when P is parsed, renumbering it.
    if (smiles.includes('.') || /\[\d*H(?![a-z])/.test(smiles)) return 'fallback';
    const order = JSON.parse(z.get_prop('_smilesAtomOutputOrder')) as number[];
    const toP = new Int32Array(order.length);
    order.forEach((zAtom, k) => (toP[zAtom] = k));
    const bonds = smilesBonds(smiles);
    if (!bonds || bonds.atoms !== order.length) return 'fallback';
    const atoms = match.atoms.map((a) => toP[a]);
    const matchedBonds: number[] = [];
    for (const [a, b] of qBonds) {
      const k = bonds.index.get(pairKey(atoms[a], atoms[b]));
      if (k !== undefined) matchedBonds.push(k);
    }
    return hitOf(space, t, /[@/\\]/.test(smiles) ? perceived(rd, smiles) : smiles, {
      atoms,
      bonds: matchedBonds,
    });
  } catch {
    return 'fallback';
  } finally {
    z?.delete();
  }
}

/**
 * The canonical SMILES of P where stereo tags are written: P's stereo perception may drop a tag
 * the join made meaningless (two substituents now alike), which Z, zipped without perception,
 * keeps. The exact path reports P's atoms in the same order (P parsed from Z's SMILES).
 */
function perceived(rd: RDKitModule, smiles: string): string {
  const p = rd.get_mol(smiles);
  try {
    if (!p?.is_valid()) throw new Error('product did not parse');
    return p.get_smiles();
  } finally {
    p?.delete();
  }
}

const pairKey = (a: number, b: number) => (a < b ? a * 65536 + b : b * 65536 + a);

function hitOf(space: OpenSpace, t: ProductTuple, smiles: string, match: Match): SubstructureHit {
  const r = space.reactions[t.reaction];
  return {
    productId: tupleId(space, t),
    smiles,
    reactionId: r.info.id,
    synthons: t.synthons.map((i, s) => ({
      slot: s,
      synthonId: r.slots[s].synthonIds[i],
      smiles: r.slots[s].smiles[i],
    })),
    matchedAtoms: match.atoms ?? [],
    matchedBonds: match.bonds ?? [],
  };
}

/** The exact path: assemble through SMILES (assemble.ts) and match on the sanitised product. */
export function verifyExact(
  rd: RDKitModule,
  space: OpenSpace,
  q: RDKitMol,
  mode: StructureMode,
  t: ProductTuple,
  details?: string,
): SubstructureHit | null | undefined {
  const m = assembleWith(rd, tupleSmiles(space, t), (mol, product) => ({
    product,
    match: JSON.parse(
      matchOn(mode === 'substructure' ? mol : q, mode === 'substructure' ? q : mol, details),
    ) as Match,
  }));
  if (!m) return undefined;
  if (!m.match.atoms?.length) return null;
  return hitOf(space, t, m.product, m.match);
}
