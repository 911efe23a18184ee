/** Public surface of engine/chem: RDKit loading, molecule parsing, descriptors, scaffolds, fingerprints. */
export { getRDKit, rdkitVersion, withMol, type RDKitModule, type RDKitMol } from './rdkit.ts';
export {
  parseMolecule,
  canonicalize,
  matchSubstructure,
  MAX_SMILES_LENGTH,
  smilesPrecheck,
  structurePrecheck,
  type ParsedMolecule,
  type ParseResult,
  type SubstructureMatch,
} from './molecule.ts';
export {
  DESCRIPTOR_NAMES,
  DESCRIPTOR_DEFINITIONS,
  type DescriptorName,
  type Descriptors,
} from './descriptors.ts';
export { murckoScaffoldFromMolBlock, ringAtoms } from './scaffold.ts';
export {
  MORGAN_FP,
  FP_BYTES,
  MORGAN_DETAILS,
  popcount,
  tanimoto,
  onBits,
  fromOnBits,
} from './fingerprint.ts';
