/**
 * The Python reference values of test/fixtures/analysis-reference.json
 * (scripts/reference/make_analysis_fixture.py) and fingerprints of its molecules from MinimalLib
 * (the same bits as Python RDKit's, test/engine/search proves it on its own fixture).
 */
import { readFileSync } from 'node:fs';
import { getRDKit } from '../../../../engine/chem/rdkit.ts';
import { MORGAN_DETAILS } from '../../../../engine/chem/fingerprint.ts';
import { fingerprintSet, type FingerprintSet } from '../../../../engine/analysis/fingerprints.ts';

export interface AnalysisReference {
  set_a: { smiles: string[] };
  set_b: { smiles: string[] };
  similarity: { queries: number; values: number[][] };
  morgan_counts: { smiles: string; counts: Record<string, number> }[];
  butina: { threshold: number; clusters: number[][] }[];
  descriptor_table: { columns: string[]; rows: number[][] };
  pca_bits: PcaReference;
  pca_descriptors: PcaReference;
  kmeans: {
    k: number;
    init_rows: number[];
    labels: number[];
    centers: number[][];
    inertia: number;
    n_iter: number;
  };
  histogram: Record<string, { counts: number[]; edges: number[] }>;
}

export interface PcaReference {
  coords: number[][];
  components: number[][];
  explained_variance: number[];
  explained_variance_ratio: number[];
}

export const ref = JSON.parse(
  readFileSync(new URL('../../../fixtures/analysis-reference.json', import.meta.url), 'utf8'),
) as AnalysisReference;

/** MinimalLib Morgan fingerprints (radius 2, 2048 bits) of SMILES, in order. */
export async function fingerprintsOf(smiles: readonly string[]): Promise<Uint8Array[]> {
  const rd = await getRDKit();
  return smiles.map((s) => {
    const mol = rd.get_mol(s);
    if (!mol || !mol.is_valid()) throw new Error(`reference SMILES does not parse: ${s}`);
    try {
      return new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
    } finally {
      mol.delete();
    }
  });
}

export async function setOf(smiles: readonly string[]): Promise<FingerprintSet> {
  return fingerprintSet(await fingerprintsOf(smiles));
}

/** Seeded random 2048-bit fingerprints with about `bits` bits set each (LCG; for shape, not chemistry). */
export function randomFingerprints(n: number, bits: number, seed: number): Uint8Array {
  const out = new Uint8Array(n * 256);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++)
    for (let k = 0; k < bits; k++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      const b = (s >>> 8) % 2048;
      out[i * 256 + (b >> 3)] |= 1 << (b & 7);
    }
  return out;
}

/** Expects `fn` to throw an AnalysisError with this code and field. */
export function expectAnalysisError(fn: () => unknown, code: string, field?: string): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  if (!err) throw new Error(`expected AnalysisError ${code}, nothing was thrown`);
  const e = err as { name?: string; code?: string; field?: string; message?: string };
  if (e.name !== 'AnalysisError' || e.code !== code || (field !== undefined && e.field !== field))
    throw new Error(
      `expected AnalysisError ${code} on ${field}, got ${e.name} ${e.code} on ${e.field}: ${e.message}`,
    );
}
