/**
 * The property ids a selection may name besides the service's own descriptor names: the `rdkit.*`
 * ids the released v2 SDK sends (deepmedchem 0.4.0b5, `subsets.PROPERTIES`: its `where=` parser
 * and its `druglike`, `ro3` and `beyond-ro5` subsets), and the units it sends with them.
 *
 * An alias is listed only where both names compute the same number with the same RDKit function,
 * so a constraint means the same whichever id names it. RDKit's `Descriptors.NumHDonors`,
 * `NumHAcceptors`, `NumRotatableBonds`, `TPSA`, `FractionCSP3` and `NumAromaticRings` are thin
 * wrappers of the rdMolDescriptors functions engine/chem/descriptors.ts is checked against
 * (rdkit/Chem/Lipinski.py), so the SDK's ids and ours name the same quantities.
 */
import { DESCRIPTOR_NAMES } from '../chem/index.ts';

/** Properties the catalogs do not store; the engine computes them from each candidate's SMILES. */
export const COMPUTED_PROPERTY_IDS = ['fraction_csp3', 'num_aromatic_rings'] as const;
export type ComputedPropertyId = (typeof COMPUTED_PROPERTY_IDS)[number];

/** SDK property id -> the service's id (the one normalized documents, evidence and hashes use). */
export const PROPERTY_ALIASES: Readonly<Record<string, string>> = {
  'rdkit.mol_wt': 'molecular_weight', // Descriptors.MolWt
  'rdkit.crippen_logp': 'clogp', // Crippen.MolLogP
  'rdkit.hbd': 'h_bond_donor', // rdMolDescriptors.CalcNumHBD
  'rdkit.hba': 'h_bond_acceptors', // rdMolDescriptors.CalcNumHBA
  'rdkit.rotatable_bonds': 'rotatable_bonds', // rdMolDescriptors.CalcNumRotatableBonds (strict)
  'rdkit.tpsa': 'topological_surface_area_mapping', // rdMolDescriptors.CalcTPSA (N and O only)
  'rdkit.fraction_csp3': 'fraction_csp3', // rdMolDescriptors.CalcFractionCSP3
  'rdkit.aromatic_rings': 'num_aromatic_rings', // rdMolDescriptors.CalcNumAromaticRings
};

/**
 * The units a descriptor is computed in, spelled as the SDK sends them (first) and in common
 * variants (formal charge and molar refractivity, which the SDK never sends, take any units). A constraint in other units would need a conversion the service does not make, so it
 * is refused rather than compared as if the numbers were in these units.
 */
export const PROPERTY_UNITS: Readonly<Record<string, readonly string[]>> = {
  molecular_weight: ['Da', 'g/mol'],
  clogp: ['1'],
  heavy_atoms: ['count'],
  h_bond_acceptors: ['count'],
  h_bond_donor: ['count'],
  rotatable_bonds: ['count'],
  num_of_rings: ['count'],
  number_of_atoms: ['count'],
  topological_surface_area_mapping: ['A^2', 'Å^2', 'Å²'],
  fraction_csp3: ['1'],
  num_aromatic_rings: ['count'],
};

/** The service's id for `id` (an SDK alias resolved; any other id unchanged). */
export const canonicalPropertyId = (id: string): string => PROPERTY_ALIASES[id] ?? id;

/** Every id a constraint may name on a library evaluating `ids` (its own, then the SDK aliases). */
export function acceptedPropertyIds(ids: readonly string[]): string[] {
  return [...ids, ...Object.keys(PROPERTY_ALIASES).filter((a) => ids.includes(PROPERTY_ALIASES[a]))];
}

/** The property ids every library evaluates: stored descriptors and the computed ones. */
export const ENGINE_PROPERTY_IDS: readonly string[] = [...DESCRIPTOR_NAMES, ...COMPUTED_PROPERTY_IDS];

export const isComputedProperty = (id: string): id is ComputedPropertyId =>
  (COMPUTED_PROPERTY_IDS as readonly string[]).includes(id);
