/**
 * Three filters named as a medicinal chemist reads them (docs/filters.md), on one thread's RDKit:
 * - `No rare atoms`: every atom is H, C, N, O, F, P, S, Cl, Br or I;
 * - `Murcko scaffold hop`: the neighbour has a Bemis–Murcko scaffold (a ring system) and it is not
 *   the query's (nor any query fragment's): the same kind of molecule around another core;
 * - `Regioisomers`: the same molecular formula and the same Murcko scaffold as the query, but
 *   another constitution (stereochemistry aside): substituents moved around the same core.
 * Reference: Python RDKit's `MurckoScaffold.GetScaffoldForMol`, `CalcMolFormula` and
 * `MolToSmiles(isomericSmiles=False)` (scripts/reference/make_medchem_filters_fixture.py).
 */
import { graphFromRDKitJson } from '../chem/graph.ts';
import { murckoScaffoldFromMolBlock, type RDKitModule, type RDKitMol } from '../chem/index.ts';

/** Atomic numbers of the common organic elements: H, C, N, O, F, P, S, Cl, Br, I. */
export const COMMON_ELEMENTS: ReadonlySet<number> = new Set([1, 6, 7, 8, 9, 15, 16, 17, 35, 53]);

/** What the scaffold and isomer filters compare, for one molecule. */
export interface MoleculeFacts {
  /** Canonical Bemis–Murcko scaffold SMILES ('' for acyclic molecules). */
  scaffold: string;
  /** Element counts with hydrogens and the net charge: equal exactly when the formulas are. */
  formula: string;
  /** Canonical SMILES of the molecule without stereochemistry: its constitution. */
  constitution: string;
  /** Whether every atom is one of COMMON_ELEMENTS. */
  commonElementsOnly: boolean;
}

/** The facts of a parsed molecule (`input` is the SMILES it was parsed from). */
export function moleculeFacts(rd: RDKitModule, mol: RDKitMol, input: string): MoleculeFacts {
  const canonical = mol.get_smiles();
  const g = graphFromRDKitJson(mol.get_json());
  const counts = new Map<number, number>();
  let charge = 0;
  let common = true;
  for (let i = 0; i < g.n; i++) {
    counts.set(g.z[i], (counts.get(g.z[i]) ?? 0) + 1);
    if (g.hs[i]) counts.set(1, (counts.get(1) ?? 0) + g.hs[i]);
    charge += g.charge[i];
    if (!COMMON_ELEMENTS.has(g.z[i])) common = false;
  }
  const formula = [...counts.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([z, c]) => `${z}:${c}`)
    .join(',');
  return {
    scaffold: murckoScaffoldFromMolBlock(rd, mol.get_molblock(), canonical, input),
    formula: `${formula};${charge}`,
    constitution: withoutStereo(rd, canonical),
    commonElementsOnly: common,
  };
}

/**
 * The canonical SMILES with tetrahedral and cis/trans marks removed, canonicalised again
 * (MinimalLib's get_smiles has no isomericSmiles switch).
 */
function withoutStereo(rd: RDKitModule, canonical: string): string {
  const flat = canonical.replace(/@+/g, '').replace(/[/\\]/g, '');
  if (flat === canonical) return canonical;
  const m = rd.get_mol(flat);
  try {
    return m && m.is_valid() ? m.get_smiles() : flat;
  } finally {
    m?.delete();
  }
}

/** The query side: its own facts and the scaffolds of each of its fragments (centroid inputs). */
export interface QueryFacts extends MoleculeFacts {
  scaffolds: ReadonlySet<string>;
}

/** Facts of a query SMILES, or undefined when RDKit cannot parse it. */
export function queryFacts(rd: RDKitModule, smiles: string): QueryFacts | undefined {
  const facts = (s: string) => {
    const m = rd.get_mol(s);
    try {
      return m && m.is_valid() ? moleculeFacts(rd, m, s) : undefined;
    } finally {
      m?.delete();
    }
  };
  const whole = facts(smiles);
  if (!whole) return undefined;
  const scaffolds = new Set([whole.scaffold]);
  if (smiles.includes('.'))
    for (const part of smiles.split('.')) {
      const f = facts(part);
      if (f) scaffolds.add(f.scaffold);
    }
  scaffolds.delete('');
  return { ...whole, scaffolds };
}

/** `Murcko scaffold hop`: a ring system, and not the query's. */
export const isScaffoldHop = (n: MoleculeFacts, q: QueryFacts): boolean =>
  n.scaffold !== '' && !q.scaffolds.has(n.scaffold);

/** `Regioisomers`: same formula and scaffold as the query, another constitution. */
export const isRegioisomer = (n: MoleculeFacts, q: QueryFacts): boolean =>
  n.formula === q.formula && n.scaffold === q.scaffold && n.constitution !== q.constitution;
