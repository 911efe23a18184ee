/**
 * Embeddings per search type, their centroid, and the query a given embedding searches with. For
 * `morgan`: the fingerprint's 2048 bits (0/1) or its 2048 folded counts. The 3D search types get
 * the first-stage vectors of engine/shape when it exists (the API answers 422 until then).
 */
import { MAX_SMILES_LENGTH } from '../../chem/molecule.ts';
import { MORGAN_DETAILS, MORGAN_FP, FP_BYTES } from '../../chem/fingerprint.ts';
import { graphFromRDKitJson } from '../../chem/graph.ts';
import type { RDKitModule, RDKitMol } from '../../chem/rdkit.ts';
import { prepareTanimoto, prepareWeights, type PreparedQuery } from '../../search/query.ts';
import { AnalysisError, checkLimit } from '../errors.ts';
import { ANALYSIS_LIMITS } from '../limits.ts';
import { morganCounts } from './morgan-counts.ts';

export const EMBEDDING_KINDS = ['bits', 'counts'] as const;
export type EmbeddingKind = (typeof EMBEDDING_KINDS)[number];

/** Dimensions of a Morgan embedding. */
export const MORGAN_DIMENSIONS = MORGAN_FP.nBits;

/** One embedded molecule, or why it could not be embedded. */
export type EmbeddedMolecule = { smiles: string; fp: Uint8Array; vector: Float32Array } | { error: string };

function checkSmiles(smiles: string): string | undefined {
  if (smiles.trim() === '') return 'empty SMILES';
  if (smiles.length > MAX_SMILES_LENGTH) return `SMILES longer than ${MAX_SMILES_LENGTH} characters`;
  return undefined;
}

function parse(rd: RDKitModule, smiles: string): RDKitMol | null {
  try {
    const mol = rd.get_mol(smiles.trim());
    if (mol && mol.is_valid()) return mol;
    mol?.delete();
  } catch {
    // unparsable: reported below
  }
  return null;
}

/** The 2048 entries (0/1) of a packed fingerprint as a vector. */
export function bitsVector(fp: Uint8Array): Float32Array {
  const v = new Float32Array(MORGAN_DIMENSIONS);
  for (let i = 0; i < MORGAN_DIMENSIONS; i++) v[i] = (fp[i >> 3] >> (i & 7)) & 1;
  return v;
}

/**
 * The Morgan embedding of one SMILES: canonical SMILES, packed fingerprint and the vector (bits or
 * counts). Never throws for bad input: returns `{ error }` (empty, too long, unparsable, no heavy
 * atoms, or counts the TypeScript Morgan cannot vouch for, e.g. SMARTS-style query bonds: their
 * set bits must equal MinimalLib's fingerprint).
 */
export function embedMorgan(rd: RDKitModule, smiles: string, kind: EmbeddingKind): EmbeddedMolecule {
  const bad = checkSmiles(smiles);
  if (bad) return { error: bad };
  const mol = parse(rd, smiles);
  if (!mol) return { error: 'unparsable SMILES' };
  try {
    if (mol.get_num_atoms(true) === 0) return { error: 'no heavy atoms' };
    const fp = new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
    if (kind === 'bits') return { smiles: mol.get_smiles(), fp, vector: bitsVector(fp) };
    const counts = morganCounts(graphFromRDKitJson(mol.get_json()));
    for (let i = 0; i < MORGAN_DIMENSIONS; i++)
      if ((counts[i] > 0 ? 1 : 0) !== ((fp[i >> 3] >> (i & 7)) & 1))
        return { error: 'Morgan counts are not available for this molecule (query features in the SMILES)' };
    return { smiles: mol.get_smiles(), fp, vector: Float32Array.from(counts) };
  } catch (err) {
    return { error: `RDKit failed: ${(err as Error).message}` };
  } finally {
    mol.delete();
  }
}

/** Embeds a list (at most ANALYSIS_LIMITS.syncMolecules unless `max` says otherwise), in input order. */
export function embedMorganList(
  rd: RDKitModule,
  smiles: readonly string[],
  kind: EmbeddingKind,
  max: number = ANALYSIS_LIMITS.syncMolecules,
): EmbeddedMolecule[] {
  if (smiles.length === 0)
    throw new AnalysisError('empty_input', 'search_input', 'needs at least one SMILES');
  checkLimit('search_input', smiles.length, max, 'molecules');
  return smiles.map((s) => embedMorgan(rd, s, kind));
}

/** The mean of `vectors` (all of one length), in f64; for Morgan bits the bit frequencies. */
export function centroidOf(vectors: readonly ArrayLike<number>[], field = 'search_input'): Float64Array {
  if (vectors.length === 0) throw new AnalysisError('empty_input', field, 'needs at least one embedding');
  const d = vectors[0].length;
  const sum = new Float64Array(d);
  vectors.forEach((v, i) => {
    if (v.length !== d)
      throw new AnalysisError(
        'dimension_mismatch',
        field,
        `embedding ${i} has ${v.length} dimensions, expected ${d}`,
      );
    for (let j = 0; j < d; j++) sum[j] += v[j];
  });
  for (let j = 0; j < d; j++) sum[j] /= vectors.length;
  return sum;
}

/**
 * The search query for a given Morgan embedding (2048 finite numbers). An all-0/1 vector is a
 * fingerprint and searches by exact Tanimoto; any other vector (a centroid, counts, a model's
 * output in fingerprint space) by the continuous Tanimoto of engine/search/query.ts. Throws
 * `dimension_mismatch` or `invalid_embedding` on `field`.
 */
export function embeddingQuery(vector: ArrayLike<number>, field = 'embedding'): PreparedQuery {
  if (vector.length !== MORGAN_DIMENSIONS)
    throw new AnalysisError(
      'dimension_mismatch',
      field,
      `a morgan embedding has ${MORGAN_DIMENSIONS} numbers, got ${vector.length}`,
    );
  let binary = true;
  let nonzero = false;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i];
    if (!Number.isFinite(x))
      throw new AnalysisError('invalid_embedding', field, `entry ${i} is not a finite number`);
    if (x !== 0 && x !== 1) binary = false;
    if (x !== 0) nonzero = true;
  }
  if (!nonzero)
    throw new AnalysisError('invalid_embedding', field, 'an all-zero embedding is similar to nothing');
  if (!binary) return prepareWeights(Float64Array.from(vector));
  const fp = new Uint8Array(FP_BYTES);
  for (let i = 0; i < vector.length; i++) if (vector[i] === 1) fp[i >> 3] |= 1 << (i & 7);
  return prepareTanimoto(fp);
}
