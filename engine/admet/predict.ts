/**
 * ADMET prediction of query molecules inside one thread: parse each SMILES once, compute the model
 * features, the 11 service descriptors and the canonical SMILES, then score the 22 models on the
 * whole batch. Plain columnar output (typed arrays) so a worker can transfer it without copying.
 */
import { DESCRIPTOR_NAMES } from '../chem/descriptors.ts';
import { MAX_SMILES_LENGTH } from '../chem/molecule.ts';
import type { RDKitModule, RDKitMol } from '../chem/rdkit.ts';
import { ADMET_ENDPOINTS, type AdmetEndpoint } from './endpoints.ts';
import { ADMET_FEATURE_LENGTH, writeAdmetFeaturesFromMol } from './features.ts';
import type { AdmetBatchResult, AdmetModels } from './onnx-pool.ts';

/** Predictions for a batch, column-oriented. Rows that failed to parse hold NaN and an error. */
export interface AdmetTable {
  n: number;
  /** Canonical SMILES per row (null where the input did not parse). */
  canonical: (string | null)[];
  /** Why a row has no values (empty, unparsable, no heavy atoms), else null. */
  errors: (string | null)[];
  /** n * 11 service descriptors, row-major in DESCRIPTOR_NAMES order. */
  descriptors: Float64Array;
  /** 22 * n scores, endpoint-major: endpoint e of row i at `e * n + i` (ADMET_ENDPOINTS order). */
  scores: Float32Array;
  /** Out-of-domain bitmask per row: bit e set = ADMET_ENDPOINTS[e] flags the row; 0 for failed rows. */
  ood: Uint32Array;
}

/**
 * Packs the per-endpoint domain flags of row `i` into a bitmask (bit e = ADMET_ENDPOINTS[e] out of
 * domain). 22 endpoints fit a uint32.
 */
export function oodMask(inDomain: AdmetBatchResult['inDomain'], i: number): number {
  let m = 0;
  for (let e = 0; e < ADMET_ENDPOINTS.length; e++) if (inDomain[ADMET_ENDPOINTS[e]][i] === 0) m |= 1 << e;
  return m >>> 0;
}

/** The endpoint names set in an out-of-domain bitmask, in ADMET_ENDPOINTS order. */
export function oodNames(mask: number): AdmetEndpoint[] {
  const out: AdmetEndpoint[] = [];
  for (let e = 0; e < ADMET_ENDPOINTS.length; e++) if ((mask >>> e) & 1) out.push(ADMET_ENDPOINTS[e]);
  return out;
}

/**
 * Parses `smiles` (RDKit default sanitisation, as the training did) and writes its model features
 * at `row` of `features`. Returns the canonical SMILES and the 11 descriptors, or `{ error }` for
 * input the catalog builder would reject too. Never throws for bad input.
 */
export function prepareAdmetRow(
  rd: RDKitModule,
  smiles: string,
  features: Float32Array,
  row: number,
): { canonical: string; descriptors: number[] } | { error: string } {
  const s = smiles.trim();
  if (s === '') return { error: 'empty SMILES' };
  if (s.length > MAX_SMILES_LENGTH) return { error: `SMILES longer than ${MAX_SMILES_LENGTH} characters` };
  let mol: RDKitMol | null = null;
  try {
    mol = rd.get_mol(s);
    if (!mol || !mol.is_valid()) return { error: 'unparsable SMILES' };
    if (mol.get_num_atoms(true) === 0) return { error: 'no heavy atoms' };
    const d = writeAdmetFeaturesFromMol(mol, features, row).descriptors;
    const canonical = mol.get_smiles();
    return { canonical, descriptors: DESCRIPTOR_NAMES.map((k) => d[k]) };
  } catch (err) {
    return { error: `RDKit failed: ${(err as Error).message}` };
  } finally {
    mol?.delete();
  }
}

/** Predicts a batch of SMILES with open models (CPU-bound: call from a worker thread). */
export async function predictSmilesBatch(
  rd: RDKitModule,
  models: AdmetModels,
  smiles: readonly string[],
): Promise<AdmetTable> {
  const n = smiles.length;
  const nd = DESCRIPTOR_NAMES.length;
  const features = new Float32Array(n * ADMET_FEATURE_LENGTH);
  const canonical: (string | null)[] = new Array(n).fill(null);
  const errors: (string | null)[] = new Array(n).fill(null);
  const descriptors = new Float64Array(n * nd).fill(NaN);
  const okRows: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = prepareAdmetRow(rd, smiles[i], features, okRows.length);
    if ('error' in r) {
      errors[i] = r.error;
      continue;
    }
    canonical[i] = r.canonical;
    descriptors.set(r.descriptors, i * nd);
    okRows.push(i);
  }
  const scores = new Float32Array(ADMET_ENDPOINTS.length * n).fill(NaN);
  const ood = new Uint32Array(n);
  const m = okRows.length;
  if (m > 0) {
    const res = await models.predictBatch(features.subarray(0, m * ADMET_FEATURE_LENGTH), m);
    ADMET_ENDPOINTS.forEach((key, e) => {
      const col = res.scores[key];
      for (let k = 0; k < m; k++) scores[e * n + okRows[k]] = col[k];
    });
    for (let k = 0; k < m; k++) ood[okRows[k]] = oodMask(res.inDomain, k);
  }
  return { n, canonical, errors, descriptors, scores, ood };
}
