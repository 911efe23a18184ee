/**
 * Parsing a SMILES into the plain data the catalog and the search need. All RDKit objects are
 * freed before returning; callers only see strings, numbers and typed arrays.
 */
import { atomTokens, MAX_STRUCTURE_ATOMS, tooManyAtoms, type RDKitModule, type RDKitMol } from './rdkit.ts';
import type { Descriptors } from './descriptors.ts';
import { MORGAN_DETAILS, popcount } from './fingerprint.ts';
import { describeMolecule, type GraphDescriptors } from './graph-descriptors.ts';
import { parseMolBlock } from './molblock.ts';
import { murckoScaffoldFromMolBlock } from './scaffold.ts';

/** Longest SMILES accepted, in characters. */
export const MAX_SMILES_LENGTH = 1000;

export interface ParsedMolecule {
  canonicalSmiles: string;
  /** Morgan r=2, 2048 bits, packed (256 bytes). */
  fp: Uint8Array;
  popcount: number;
  descriptors: Descriptors;
  /** Bemis-Murcko scaffold, canonical SMILES; '' for acyclic molecules. */
  scaffold: string;
  /** The graph descriptors the 11 come from, with the ADMET model's extra columns (ADMET features reuse them). */
  graph: GraphDescriptors;
}

export type ParseResult = ParsedMolecule | { error: string };

/** Why a SMILES is rejected before it is parsed; `undefined` when it may be parsed. */
export function smilesPrecheck(smiles: string): string | undefined {
  if (smiles.trim() === '') return 'empty SMILES';
  if (smiles.length > MAX_SMILES_LENGTH) return `SMILES longer than ${MAX_SMILES_LENGTH} characters`;
  // RDKit reads "CCO\tname" as CCO named "name", and parses past characters outside SMILES (an
  // emoji): a value holding whitespace, control or non-ASCII characters is refused, not cut.
  if (/[^\x21-\x7e]/.test(smiles.trim()))
    return 'whitespace, control or non-ASCII characters inside a SMILES (one molecule per value)';
  // RDKit's SMILES parser takes '~' as a query bond ("any bond"): `[#6]~[#7]` parses, as two
  // radicals joined by a bond no product has, so a similarity or superstructure search with it
  // answered nothing instead of saying why (user trial). A molecule has no such bond.
  if (smiles.includes('~'))
    return "'~' (any bond) is a SMARTS query bond, not a bond of a molecule: give the molecule as SMILES";
  return structurePrecheck(smiles);
}

/**
 * Why a SMILES or SMARTS is refused before RDKit sees it (too many atoms for RDKit's WebAssembly
 * stack: rdkit.ts `MAX_STRUCTURE_ATOMS`); `undefined` when it may be parsed.
 */
export function structurePrecheck(text: string): string | undefined {
  if (text.length > MAX_SMILES_LENGTH) return `longer than ${MAX_SMILES_LENGTH} characters`;
  if (tooManyAtoms(text))
    return `more than ${MAX_STRUCTURE_ATOMS} atoms (${atomTokens(text)}); larger structures overflow RDKit's WebAssembly stack`;
  return undefined;
}

function getMol(rd: RDKitModule, smiles: string): RDKitMol | null {
  try {
    const mol = rd.get_mol(smiles);
    if (mol && !mol.is_valid()) {
      mol.delete();
      return null;
    }
    return mol;
  } catch {
    return null;
  }
}

/**
 * Parses one SMILES and computes canonical SMILES, Morgan fingerprint, the 11 descriptors and the
 * scaffold. Returns `{ error }` (never throws for bad input) for empty, over-long, unparsable
 * SMILES and for molecules without heavy atoms.
 */
export function parseMolecule(rd: RDKitModule, smiles: string): ParseResult {
  const bad = smilesPrecheck(smiles);
  if (bad) return { error: bad };
  const mol = getMol(rd, smiles.trim());
  if (!mol) return { error: 'unparsable SMILES' };
  try {
    if (mol.get_num_atoms(true) === 0) return { error: 'no heavy atoms' };
    const canonicalSmiles = mol.get_smiles();
    const fp = new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
    const mb = parseMolBlock(mol.get_molblock());
    const graph = describeMolecule(mol);
    const scaffold = murckoScaffoldFromMolBlock(rd, mb, canonicalSmiles, smiles.trim());
    return { canonicalSmiles, fp, popcount: popcount(fp), descriptors: graph.descriptors, scaffold, graph };
  } catch (err) {
    return { error: `RDKit failed: ${(err as Error).message}` };
  } finally {
    mol.delete();
  }
}

/** Canonical SMILES (RDKit's, as Python `Chem.MolToSmiles`), or `undefined` when unparsable. */
export function canonicalize(rd: RDKitModule, smiles: string): string | undefined {
  if (smilesPrecheck(smiles)) return undefined;
  const mol = getMol(rd, smiles.trim());
  if (!mol) return undefined;
  try {
    return mol.get_smiles();
  } finally {
    mol.delete();
  }
}

export interface SubstructureMatch {
  atoms: number[];
  bonds: number[];
}

/**
 * The first match of a SMARTS (or, failing that, SMILES) query in a molecule, as atom and bond
 * indices of the molecule parsed from `molSmiles`; `null` when there is no match. Throws an Error
 * with `code` 'invalid_smiles' when the molecule or the query cannot be parsed.
 */
export function matchSubstructure(
  rd: RDKitModule,
  molSmiles: string,
  query: string,
): SubstructureMatch | null {
  const mol = getMol(rd, molSmiles);
  if (!mol)
    throw Object.assign(new Error(`could not parse SMILES ${JSON.stringify(molSmiles)}`), {
      code: 'invalid_smiles',
    });
  let q: RDKitMol | null = null;
  try {
    try {
      q = rd.get_qmol(query);
    } catch {
      q = null;
    }
    if (!q || !q.is_valid()) {
      q?.delete();
      q = getMol(rd, query);
    }
    if (!q)
      throw Object.assign(new Error(`could not parse query ${JSON.stringify(query)}`), {
        code: 'invalid_smiles',
      });
    const m = JSON.parse(mol.get_substruct_match(q)) as Partial<SubstructureMatch>;
    return m.atoms && m.atoms.length ? { atoms: m.atoms, bonds: m.bonds ?? [] } : null;
  } finally {
    q?.delete();
    mol.delete();
  }
}
