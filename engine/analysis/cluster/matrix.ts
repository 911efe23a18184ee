/** Row-major numeric matrices the clustering and map functions take, and the checks on them. */
import { AnalysisError, checkLimit } from '../errors.ts';
import { ANALYSIS_LIMITS } from '../limits.ts';

/** n rows of d numbers: row i is values[i * d .. (i + 1) * d). */
export interface Matrix {
  n: number;
  d: number;
  values: Float32Array | Float64Array;
}

/** A matrix from rows of equal length; throws `empty_input`, `dimension_mismatch` or `invalid_embedding` on `field`. */
export function matrixFromRows(rows: readonly ArrayLike<number>[], field = 'embeddings'): Matrix {
  if (rows.length === 0) throw new AnalysisError('empty_input', field, 'needs at least one row');
  const d = rows[0].length;
  if (d === 0) throw new AnalysisError('dimension_mismatch', field, 'rows have no entries');
  checkLimit(field, d, ANALYSIS_LIMITS.maxDimensions, 'dimensions');
  const values = new Float64Array(rows.length * d);
  rows.forEach((r, i) => {
    if (r.length !== d)
      throw new AnalysisError('dimension_mismatch', field, `row ${i} has ${r.length} entries, expected ${d}`);
    for (let j = 0; j < d; j++) {
      const x = r[j];
      if (!Number.isFinite(x))
        throw new AnalysisError('invalid_embedding', field, `row ${i}, entry ${j} is not finite`);
      values[i * d + j] = x;
    }
  });
  return { n: rows.length, d, values };
}

/** Squared Euclidean distance between row i of a and row j of b (same d), summed in f64 in index order. */
export function squaredDistance(a: Matrix, i: number, b: Matrix, j: number): number {
  const d = a.d;
  const av = a.values;
  const bv = b.values;
  let s = 0;
  for (let k = 0, p = i * d, q = j * d; k < d; k++) {
    const x = av[p + k] - bv[q + k];
    s += x * x;
  }
  return s;
}

/** A uniform float in [0, 1) with 53 random bits from a uint32 generator. */
export function uniform01(next: () => number): number {
  return ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992;
}
