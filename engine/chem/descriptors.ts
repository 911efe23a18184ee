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
 * How each descriptor is defined: the Python RDKit function that is the reference, and the engine
 * function that computes it from the molecule graph (engine/chem/graph-descriptors.ts).
 */
export const DESCRIPTOR_DEFINITIONS = {
  molecular_weight: {
    python: 'Descriptors.MolWt',
    engine: 'weight.ts averageMolWeight',
    description: 'average molecular weight (g/mol), implicit Hs included',
  },
  formal_charge: {
    python: 'Chem.GetFormalCharge',
    engine: 'counts.ts formalCharge',
    description: 'sum of atom formal charges',
  },
  clogp: { python: 'Crippen.MolLogP', engine: 'crippen.ts crippen', description: 'Wildman-Crippen logP' },
  heavy_atoms: {
    python: 'Mol.GetNumHeavyAtoms (Lipinski.HeavyAtomCount)',
    engine: 'counts.ts numHeavyAtoms',
    description: 'number of non-hydrogen atoms',
  },
  h_bond_acceptors: {
    python: 'rdMolDescriptors.CalcNumHBA',
    engine: 'lipinski.ts numHBA',
    description: 'H-bond acceptors (RDKit definition)',
  },
  h_bond_donor: {
    python: 'rdMolDescriptors.CalcNumHBD',
    engine: 'lipinski.ts numHBD',
    description: 'H-bond donors (RDKit definition)',
  },
  rotatable_bonds: {
    python: 'rdMolDescriptors.CalcNumRotatableBonds',
    engine: 'lipinski.ts numRotatableBonds',
    description: 'rotatable bonds (RDKit default, strict)',
  },
  num_of_rings: {
    python: 'rdMolDescriptors.CalcNumRings',
    engine: 'counts.ts numRings',
    description: "rings in RDKit's ring set (symmetrised SSSR)",
  },
  molar_refractivity: {
    python: 'Crippen.MolMR',
    engine: 'crippen.ts crippen',
    description: 'Wildman-Crippen molar refractivity',
  },
  number_of_atoms: {
    python: 'rdMolDescriptors.CalcNumAtoms',
    engine: 'counts.ts numAtoms',
    description: 'all atoms, implicit hydrogens included',
  },
  topological_surface_area_mapping: {
    python: 'rdMolDescriptors.CalcTPSA',
    engine: 'tpsa.ts tpsa',
    description: 'topological polar surface area (Ertl), N and O only',
  },
} as const satisfies Record<DescriptorName, { python: string; engine: string; description: string }>;
