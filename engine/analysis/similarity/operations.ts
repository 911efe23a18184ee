/**
 * The similarity operations behind /similarity, /batch_similarity and /similarity_matrix, generic
 * over a SimilarityMetric. Matrices are row-major Float32Array; a workflow computes one with
 * similarityRows per chunk of query rows and concatenates the chunks (equal to the whole).
 */
import { AnalysisError, checkLimit } from '../errors.ts';
import { ANALYSIS_LIMITS } from '../limits.ts';
import type { SimilarityMetric } from './metrics.ts';

/** A similarity matrix: value (i, j) at values[i * cols + j]. */
export interface SimilarityMatrix {
  rows: number;
  cols: number;
  values: Float32Array;
}

function nonEmpty<S>(metric: SimilarityMetric<S>, set: S, field: string): number {
  const n = metric.size(set);
  if (n === 0) throw new AnalysisError('empty_input', field, 'needs at least one molecule');
  return n;
}

/** Similarity of the first molecule of `a` to the first of `b`. */
export function pairSimilarity<S>(metric: SimilarityMetric<S>, a: S, b: S): number {
  nonEmpty(metric, a, 'smiles_1');
  nonEmpty(metric, b, 'smiles_2');
  const out = new Float32Array(1);
  metric.matrixInto(metric.slice(a, 0, 1), metric.slice(b, 0, 1), out, 0, 1);
  return out[0];
}

/** Similarity of one query (the first of `query`) to every target, in target order. */
export function batchSimilarity<S>(metric: SimilarityMetric<S>, query: S, targets: S): Float32Array {
  nonEmpty(metric, query, 'search_input');
  const m = nonEmpty(metric, targets, 'smiles_list');
  const out = new Float32Array(m);
  metric.matrixInto(metric.slice(query, 0, 1), targets, out, 0, 1);
  return out;
}

/**
 * The full matrix of queries × targets. Throws `too_large` above `maxCells` (default the
 * workflow limit, ANALYSIS_LIMITS.maxMatrixCells) and `empty_input` for an empty side.
 */
export function similarityMatrix<S>(
  metric: SimilarityMetric<S>,
  queries: S,
  targets: S,
  maxCells: number = ANALYSIS_LIMITS.maxMatrixCells,
): SimilarityMatrix {
  const rows = nonEmpty(metric, queries, 'smiles_list_1');
  const cols = nonEmpty(metric, targets, 'smiles_list_2');
  checkLimit('smiles_list_2', rows * cols, maxCells, `matrix cells (rows × columns)`);
  const values = new Float32Array(rows * cols);
  metric.matrixInto(queries, targets, values, 0, rows);
  return { rows, cols, values };
}

/** Rows [rowStart, rowEnd) of the queries × targets matrix: one chunk of a matrix workflow. */
export function similarityRows<S>(
  metric: SimilarityMetric<S>,
  queries: S,
  targets: S,
  rowStart: number,
  rowEnd: number,
): Float32Array {
  const n = metric.size(queries);
  if (!(rowStart >= 0 && rowStart <= rowEnd && rowEnd <= n))
    throw new RangeError(`row range [${rowStart}, ${rowEnd}) outside [0, ${n})`);
  const out = new Float32Array((rowEnd - rowStart) * metric.size(targets));
  metric.matrixInto(queries, targets, out, rowStart, rowEnd);
  return out;
}

/** Splits n rows into chunks of at most `rowsPerChunk`: [start, end) pairs for activities. */
export function rowChunks(n: number, rowsPerChunk: number): Array<[number, number]> {
  if (!(rowsPerChunk >= 1)) throw new RangeError('rowsPerChunk must be >= 1');
  const out: Array<[number, number]> = [];
  for (let s = 0; s < n; s += rowsPerChunk) out.push([s, Math.min(n, s + rowsPerChunk)]);
  return out;
}
