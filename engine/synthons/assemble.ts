/**
 * Exact product assembly: RDKit's molzip (through MinimalLib) on the synthons joined by '.',
 * pairing dummies by isotope label ([1*] with [1*], ...), then a fresh parse of the zipped SMILES so
 * the product is sanitised and canonical exactly as RDKit reads it. Anything that fails (RDKit
 * error, synthons left apart, a valence that does not sanitise) is an invalid assembly:
 * counted by callers, never returned. A tuple molzip would throw on is found invalid before it runs
 * (zip-valence.ts: every exception out of RDKit's WebAssembly leaks memory).
 */
import { FP_BYTES, MORGAN_DETAILS } from '../chem/fingerprint.ts';
import type { RDKitModule, RDKitMol } from '../chem/rdkit.ts';
import { ID_SEPARATOR } from './parse.ts';
import { zipWouldThrow } from './zip-valence.ts';

const ZIP_DETAILS = JSON.stringify({ Label: 'Isotope' });
const CONNECTOR = /\[(\d)\*\]/g;

export interface Product {
  /** Canonical SMILES of the sanitised product. */
  smiles: string;
  /** Morgan r2 2048 of the product when asked for. */
  fp?: Uint8Array;
}

/**
 * Zips synthon SMILES (one per slot) into a product; `use` reads the sanitised product molecule
 * before it is freed (fingerprints, substructure matches). Undefined = invalid assembly.
 */
export function assembleWith<T>(
  rd: RDKitModule,
  synthonSmiles: readonly string[],
  use: (mol: RDKitMol, smiles: string) => T,
): T | undefined {
  let joined: RDKitMol | null = null;
  let empty: RDKitMol | null = null;
  let zipped: RDKitMol | null = null;
  let product: RDKitMol | null = null;
  try {
    if (zipWouldThrow(rd, synthonSmiles)) return undefined;
    joined = rd.get_mol(synthonSmiles.join('.'));
    if (!joined?.is_valid()) return undefined;
    empty = rd.get_mol('');
    if (!empty) return undefined;
    zipped = rd.molzip(joined, empty, ZIP_DETAILS);
    if (!zipped?.is_valid()) return undefined;
    // A connector no other slot carries stays a dummy, written [*:n] as RDKit's enumerations do.
    const raw = zipped.get_smiles().replace(CONNECTOR, '[*:$1]');
    // A second fragment means the synthons did not fit together.
    if (raw.includes('.')) return undefined;
    product = rd.get_mol(raw);
    if (!product?.is_valid()) return undefined;
    return use(product, product.get_smiles());
  } catch {
    return undefined;
  } finally {
    joined?.delete();
    empty?.delete();
    zipped?.delete();
    product?.delete();
  }
}

/**
 * A synthon molecule with its connectors `[n*]` written as atom maps `[*:n]` (molzip's default
 * label, and the form a connector no partner takes keeps in a product); null when RDKit cannot
 * read it.
 */
export function mappedSynthonMol(rd: RDKitModule, smiles: string): RDKitMol | null {
  const m = rd.get_mol(smiles.replace(CONNECTOR, '[*:$1]'));
  if (m?.is_valid()) return m;
  m?.delete();
  return null;
}

/** The canonical product (and its fingerprint with `withFp`), or undefined when invalid. */
export function assembleProduct(
  rd: RDKitModule,
  synthonSmiles: readonly string[],
  withFp = false,
): Product | undefined {
  return assembleWith(rd, synthonSmiles, (mol, smiles) => {
    if (!withFp) return { smiles };
    const fp = new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
    return fp.length === FP_BYTES ? { smiles, fp } : undefined;
  });
}

/** `reaction;synthon0;synthon1[;...]`: stable across rebuilds and decodable to the synthons. */
export function encodeProductId(reactionId: string, synthonIds: readonly string[]): string {
  return [reactionId, ...synthonIds].join(ID_SEPARATOR);
}

/** The reaction and synthon ids of a product id, or undefined when it has fewer than 3 parts. */
export function decodeProductId(id: string): { reactionId: string; synthonIds: string[] } | undefined {
  const parts = id.split(ID_SEPARATOR);
  if (parts.length < 3 || parts.some((p) => p === '')) return undefined;
  return { reactionId: parts[0], synthonIds: parts.slice(1) };
}
