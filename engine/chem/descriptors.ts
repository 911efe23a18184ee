/**
 * The 11 descriptors of the service's property-range keys, each mapped to one RDKit definition so
 * values equal Python RDKit's (checked against test/fixtures/rdkit-reference.json).
 */

/** Descriptor names in the order of the spec's table (interface.md, "Property range keys"). */
export const DESCRIPTOR_NAMES = [
  'molecular_weight',
  'formal_charge',
  'clogp',
  'heavy_atoms',
  'h_bond_acceptors',
  'h_bond_donor',
  'rotatable_bonds',
  'num_of_rings',
  'molar_refractivity',
  'number_of_atoms',
  'topological_surface_area_mapping',
] as const;

export type DescriptorName = (typeof DESCRIPTOR_NAMES)[number];
export type Descriptors = Record<DescriptorName, number>;

/**
 * How each descriptor is defined: the Python RDKit function that is the reference, and where the
 * engine takes it from (a key of MinimalLib's `get_descriptors()` JSON, or the mol block).
 */
export const DESCRIPTOR_DEFINITIONS = {
  molecular_weight: { python: 'Descriptors.MolWt', minimallib: 'amw', description: 'average molecular weight (g/mol), implicit Hs included' },
  formal_charge: { python: 'Chem.GetFormalCharge', minimallib: 'molblock M  CHG', description: 'sum of atom formal charges' },
  clogp: { python: 'Crippen.MolLogP', minimallib: 'CrippenClogP', description: 'Wildman-Crippen logP' },
  heavy_atoms: { python: 'Mol.GetNumHeavyAtoms (Lipinski.HeavyAtomCount)', minimallib: 'NumHeavyAtoms', description: 'number of non-hydrogen atoms' },
  h_bond_acceptors: { python: 'rdMolDescriptors.CalcNumHBA', minimallib: 'NumHBA', description: 'H-bond acceptors (RDKit definition)' },
  h_bond_donor: { python: 'rdMolDescriptors.CalcNumHBD', minimallib: 'NumHBD', description: 'H-bond donors (RDKit definition)' },
  rotatable_bonds: { python: 'rdMolDescriptors.CalcNumRotatableBonds', minimallib: 'NumRotatableBonds', description: 'rotatable bonds (RDKit default, strict)' },
  num_of_rings: { python: 'rdMolDescriptors.CalcNumRings', minimallib: 'NumRings', description: 'rings in the SSSR' },
  molar_refractivity: { python: 'Crippen.MolMR', minimallib: 'CrippenMR', description: 'Wildman-Crippen molar refractivity' },
  number_of_atoms: { python: 'rdMolDescriptors.CalcNumAtoms', minimallib: 'NumAtoms', description: 'all atoms, implicit hydrogens included' },
  topological_surface_area_mapping: { python: 'rdMolDescriptors.CalcTPSA', minimallib: 'tpsa', description: 'topological polar surface area (Ertl), N and O only' },
} as const satisfies Record<DescriptorName, { python: string; minimallib: string; description: string }>;

/**
 * Maps MinimalLib's `get_descriptors()` JSON and the formal charge to the 11 spec descriptors.
 * Throws if a key RDKit should provide is missing (a MinimalLib API change, not bad input).
 */
export function descriptorsFromRDKit(json: string, formalCharge: number): Descriptors {
  const d = JSON.parse(json) as Record<string, number>;
  const out = {} as Descriptors;
  for (const name of DESCRIPTOR_NAMES) {
    if (name === 'formal_charge') {
      out[name] = formalCharge;
      continue;
    }
    const v = d[DESCRIPTOR_DEFINITIONS[name].minimallib];
    if (typeof v !== 'number') throw new Error(`RDKit descriptor ${DESCRIPTOR_DEFINITIONS[name].minimallib} missing`);
    out[name] = v;
  }
  return out;
}
