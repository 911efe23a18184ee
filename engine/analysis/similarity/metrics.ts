/**
 * Similarity metrics by search type. An operation (pair, batch, matrix) is written once against
 * SimilarityMetric and dispatches on the caller's `search_type`; the 3D search types
 * (`espsim_shape`, `espsim_electrostatic`) plug in here when engine/shape provides a metric over
 * its prepared 3D sets, without changing the operations.
 */
import { AnalysisError } from '../errors.ts';
import { sliceSet, type FingerprintSet } from '../fingerprints.ts';
import { tanimotoMatrixInto } from './tanimoto-matrix.ts';

/**
 * A similarity over prepared molecule sets of type S (packed fingerprints, 3D conformer sets,
 * ...). Scores are f32, higher is more similar, 1 for identical molecules.
 */
export interface SimilarityMetric<S> {
  /** Stable id, recorded with results (e.g. `morgan_tanimoto`). */
  readonly id: string;
  /** The legacy `search_type` it serves. */
  readonly searchType: string;
  size(set: S): number;
  /** Rows [start, end) of a set as a set (views where possible): how work is split into chunks. */
  slice(set: S, start: number, end: number): S;
  /** Writes score(queries[i], targets[j]) for i in [rowStart, rowEnd) to out[(i - rowStart) * size(targets) + j]. */
  matrixInto(queries: S, targets: S, out: Float32Array, rowStart: number, rowEnd: number): void;
}

/** Tanimoto on Morgan radius-2 2048-bit fingerprints (RDKit's TanimotoSimilarity, as f32). */
export const MORGAN_TANIMOTO: SimilarityMetric<FingerprintSet> = {
  id: 'morgan_tanimoto',
  searchType: 'morgan',
  size: (set) => set.n,
  slice: sliceSet,
  matrixInto: tanimotoMatrixInto,
};

/** The search types the analysis operations compute today, each with its metric. */
export const SIMILARITY_SEARCH_TYPES = ['morgan'] as const;
export type SimilaritySearchType = (typeof SIMILARITY_SEARCH_TYPES)[number];

const BY_SEARCH_TYPE: Record<SimilaritySearchType, SimilarityMetric<FingerprintSet>> = {
  morgan: MORGAN_TANIMOTO,
};

/**
 * The metric of a search type; throws AnalysisError `unknown_metric` on `field` (default
 * `search_type`) naming the allowed values for any other.
 */
export function metricFor(searchType: string, field = 'search_type'): SimilarityMetric<FingerprintSet> {
  if ((SIMILARITY_SEARCH_TYPES as readonly string[]).includes(searchType))
    return BY_SEARCH_TYPE[searchType as SimilaritySearchType];
  throw new AnalysisError(
    'unknown_metric',
    field,
    `search_type ${JSON.stringify(searchType)} is not available for this operation; allowed: ${SIMILARITY_SEARCH_TYPES.join(', ')}`,
  );
}
