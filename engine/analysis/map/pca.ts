/**
 * Principal component analysis to 2 (or a few) dimensions, exact: the leading eigenvectors of the
 * sample covariance (ddof 1), as scikit-learn's `PCA(svd_solver="full")` computes them from the
 * SVD of the centred data. Few features (≤ DENSE_MAX_FEATURES, e.g. descriptor columns): the
 * covariance is formed and diagonalised by Jacobi. Many sparse features (2048 Morgan bits): block
 * subspace iteration with Rayleigh–Ritz on the implicit covariance, until the leading Ritz pairs'
 * residuals are below 1e-10 of the largest eigenvalue, costing O(nonzeros) per step.
 *
 * Sign rule (scikit-learn's SVD sign is an implementation detail, so both sides apply this one):
 * each component is flipped so that its loading of largest magnitude is positive; loadings within
 * a relative 1e-9 of that magnitude count as equal and the lowest feature index among them decides.
 */
import { createPrng } from '../../selection/prng.ts';
import { AnalysisError, checkInteger } from '../errors.ts';
import type { FingerprintSet } from '../fingerprints.ts';
import type { Matrix } from '../cluster/matrix.ts';
import { uniform01 } from '../cluster/matrix.ts';
import { orthonormalize, symmetricEigen } from './eigen.ts';

/** Features up to which the covariance is formed explicitly. */
export const DENSE_MAX_FEATURES = 64;

/** Rows in compressed sparse form: row i's entries at indices/values[offsets[i] .. offsets[i + 1]). */
export interface SparseRows {
  n: number;
  d: number;
  offsets: Int32Array;
  indices: Int32Array;
  values: Float64Array;
}

export interface PcaResult {
  /** n × components scores (row-major): the centred rows projected on the components. */
  coords: Float64Array;
  /** components × d loadings (row-major), unit length, sign rule applied. */
  components: Float64Array;
  explainedVariance: number[];
  explainedVarianceRatio: number[];
  mean: Float64Array;
  nComponents: number;
}

/** The on-bits of fingerprints as sparse 0/1 rows of 2048 features. */
export function sparseFromFingerprints(set: FingerprintSet): SparseRows {
  const offsets = new Int32Array(set.n + 1);
  const idx: number[] = [];
  for (let i = 0; i < set.n; i++) {
    for (let byte = 0; byte < 256; byte++) {
      const v = set.fps[i * 256 + byte];
      if (v) for (let bit = 0; bit < 8; bit++) if (v & (1 << bit)) idx.push(byte * 8 + bit);
    }
    offsets[i + 1] = idx.length;
  }
  return {
    n: set.n,
    d: 2048,
    offsets,
    indices: Int32Array.from(idx),
    values: new Float64Array(idx.length).fill(1),
  };
}

/** A dense matrix as sparse rows (zeros dropped). */
export function sparseFromMatrix(m: Matrix): SparseRows {
  const offsets = new Int32Array(m.n + 1);
  const idx: number[] = [];
  const val: number[] = [];
  for (let i = 0; i < m.n; i++) {
    for (let j = 0; j < m.d; j++) {
      const x = m.values[i * m.d + j];
      if (x !== 0) {
        idx.push(j);
        val.push(x);
      }
    }
    offsets[i + 1] = idx.length;
  }
  return { n: m.n, d: m.d, offsets, indices: Int32Array.from(idx), values: Float64Array.from(val) };
}

function columnMeans(x: SparseRows): Float64Array {
  const mean = new Float64Array(x.d);
  for (let k = 0; k < x.indices.length; k++) mean[x.indices[k]] += x.values[k];
  for (let j = 0; j < x.d; j++) mean[j] /= x.n;
  return mean;
}

/** Per-column sample variances (ddof 1), from centred values. */
function columnVariances(x: SparseRows, mean: Float64Array): Float64Array {
  const ss = new Float64Array(x.d);
  const nnz = new Float64Array(x.d);
  for (let k = 0; k < x.indices.length; k++) {
    const j = x.indices[k];
    const c = x.values[k] - mean[j];
    ss[j] += c * c;
    nnz[j]++;
  }
  // the zero entries of column j each contribute mean²
  for (let j = 0; j < x.d; j++) ss[j] = (ss[j] + (x.n - nnz[j]) * mean[j] * mean[j]) / (x.n - 1);
  return ss;
}

/** (X - 1μᵀ) v for each row, with X sparse. */
function project(x: SparseRows, mean: Float64Array, v: Float64Array): Float64Array {
  let mv = 0;
  for (let j = 0; j < x.d; j++) mv += mean[j] * v[j];
  const out = new Float64Array(x.n);
  for (let i = 0; i < x.n; i++) {
    let s = 0;
    for (let k = x.offsets[i]; k < x.offsets[i + 1]; k++) s += x.values[k] * v[x.indices[k]];
    out[i] = s - mv;
  }
  return out;
}

/** C v = (X - 1μᵀ)ᵀ (X - 1μᵀ) v / (n - 1). */
function covTimes(x: SparseRows, mean: Float64Array, v: Float64Array): Float64Array<ArrayBuffer> {
  const u = project(x, mean, v);
  const out = new Float64Array(x.d);
  let su = 0;
  for (let i = 0; i < x.n; i++) {
    su += u[i];
    for (let k = x.offsets[i]; k < x.offsets[i + 1]; k++) out[x.indices[k]] += x.values[k] * u[i];
  }
  for (let j = 0; j < x.d; j++) out[j] = (out[j] - mean[j] * su) / (x.n - 1);
  return out;
}

function denseComponents(
  x: SparseRows,
  mean: Float64Array,
  q: number,
): { vectors: Float64Array[]; values: number[] } {
  const { n, d } = x;
  const centred = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) centred[i * d + j] = -mean[j];
    for (let k = x.offsets[i]; k < x.offsets[i + 1]; k++) centred[i * d + x.indices[k]] += x.values[k];
  }
  const cov = new Float64Array(d * d);
  for (let i = 0; i < n; i++)
    for (let a = 0; a < d; a++) {
      const xa = centred[i * d + a];
      if (xa === 0) continue;
      for (let b = a; b < d; b++) cov[a * d + b] += xa * centred[i * d + b];
    }
  for (let a = 0; a < d; a++)
    for (let b = a; b < d; b++) cov[b * d + a] = cov[a * d + b] = cov[a * d + b] / (n - 1);
  const { values, vectors } = symmetricEigen(cov, d);
  return {
    values: Array.from(values.subarray(0, q)),
    vectors: Array.from({ length: q }, (_, c) =>
      Float64Array.from({ length: d }, (_, j) => vectors[j * d + c]),
    ),
  };
}

function iterativeComponents(
  x: SparseRows,
  mean: Float64Array,
  q: number,
  maxIter: number,
): { vectors: Float64Array[]; values: number[] } {
  const p = Math.min(x.d, q + 8);
  const next = createPrng(0x5ca1ab1e);
  const fill = (col: Float64Array): void => {
    for (let k = 0; k < col.length; k++) col[k] = uniform01(next) - 0.5;
  };
  let v = Array.from({ length: p }, () => {
    const c = new Float64Array(x.d);
    fill(c);
    return c;
  });
  orthonormalize(v, fill);
  for (let iter = 0; iter < maxIter; iter++) {
    const w = v.map((c) => covTimes(x, mean, c));
    const h = new Float64Array(p * p);
    for (let a = 0; a < p; a++)
      for (let b = a; b < p; b++) {
        let s = 0;
        for (let k = 0; k < x.d; k++) s += v[a][k] * w[b][k];
        h[a * p + b] = s;
      }
    for (let a = 0; a < p; a++) for (let b = 0; b < a; b++) h[a * p + b] = h[b * p + a];
    const { values, vectors } = symmetricEigen(h, p);
    const rotate = (cols: Float64Array[]): Float64Array<ArrayBuffer>[] =>
      Array.from({ length: p }, (_, c) => {
        const out = new Float64Array(x.d);
        for (let s = 0; s < p; s++) {
          const q0 = vectors[s * p + c];
          if (q0 !== 0) for (let k = 0; k < x.d; k++) out[k] += q0 * cols[s][k];
        }
        return out;
      });
    const ritz = rotate(v);
    const cRitz = rotate(w);
    let worst = 0;
    for (let c = 0; c < q; c++) {
      let r = 0;
      for (let k = 0; k < x.d; k++) r += (cRitz[c][k] - values[c] * ritz[c][k]) ** 2;
      worst = Math.max(worst, Math.sqrt(r));
    }
    if (worst <= 1e-10 * Math.max(values[0], 1e-300) || iter === maxIter - 1)
      return { values: Array.from(values.subarray(0, q)), vectors: ritz.slice(0, q) };
    v = cRitz;
    orthonormalize(v, fill);
  }
  throw new Error('unreachable');
}

/** Applies the sign rule of this module to a component in place. */
export function orientComponent(v: Float64Array): void {
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  let j = 0;
  while (Math.abs(v[j]) < max * (1 - 1e-9)) j++;
  if (v[j] < 0) for (let k = 0; k < v.length; k++) v[k] = -v[k];
}

/**
 * PCA of sparse rows to `nComponents` (default 2) dimensions. Needs at least 3 rows and as many
 * features as components; `maxIter` bounds the subspace iteration (default 5000).
 */
export function pca(x: SparseRows, nComponents = 2, maxIter = 5000): PcaResult {
  if (x.n < 3)
    throw new AnalysisError('empty_input', 'search_input', `a 2D map needs at least 3 molecules, got ${x.n}`);
  checkInteger('n_components', nComponents, 1, Math.min(x.d, 10));
  const mean = columnMeans(x);
  const variances = columnVariances(x, mean);
  let total = 0;
  for (const s of variances) total += s;
  const { vectors, values } =
    x.d <= DENSE_MAX_FEATURES
      ? denseComponents(x, mean, nComponents)
      : iterativeComponents(x, mean, nComponents, maxIter);
  const components = new Float64Array(nComponents * x.d);
  const coords = new Float64Array(x.n * nComponents);
  vectors.forEach((vec, c) => {
    orientComponent(vec);
    components.set(vec, c * x.d);
    const proj = project(x, mean, vec);
    for (let i = 0; i < x.n; i++) coords[i * nComponents + c] = proj[i];
  });
  const explainedVariance = values.map((l) => Math.max(0, l));
  return {
    coords,
    components,
    explainedVariance,
    explainedVarianceRatio: explainedVariance.map((l) => (total > 0 ? l / total : 0)),
    mean,
    nComponents,
  };
}
