/**
 * Principal component analysis of binary fingerprints, for the 2D map of a result set when the
 * service has no visualise operation. Pure: typed arrays in, typed arrays out, no DOM.
 *
 * Rows are the on-bit indices of each fingerprint (Morgan fingerprints have ~30–60 of 2048 bits
 * set), so the centred data X − 1μᵀ is never formed: products with it cost O(total on-bits + d).
 * The components come from block subspace iteration on the covariance with Gram–Schmidt, then a
 * Rayleigh–Ritz rotation; results equal an exact (SVD) PCA. Sign rule (also applied to the
 * scikit-learn reference): each component's loading of largest magnitude is positive.
 */
export type SparseRows = ArrayLike<number>[] & { length: number };

export interface Pca2 {
  x: Float64Array;
  y: Float64Array;
  /** Fractions of the total variance explained by the two components. */
  explained: [number, number];
}

/** u = (X − 1μᵀ) v */
function project(rows: SparseRows, mean: Float64Array, v: Float64Array, u: Float64Array): void {
  let mv = 0;
  for (let j = 0; j < v.length; j++) mv += mean[j] * v[j];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    let s = 0;
    for (let k = 0; k < r.length; k++) s += v[r[k]];
    u[i] = s - mv;
  }
}

/** w = (X − 1μᵀ)ᵀ u */
function backProject(rows: SparseRows, mean: Float64Array, u: Float64Array, w: Float64Array): void {
  w.fill(0);
  let su = 0;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    su += u[i];
    for (let k = 0; k < r.length; k++) w[r[k]] += u[i];
  }
  for (let j = 0; j < w.length; j++) w[j] -= mean[j] * su;
}

const dot = (a: Float64Array, b: Float64Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
function normalize(a: Float64Array): number {
  const n = Math.sqrt(dot(a, a));
  if (n > 0) for (let i = 0; i < a.length; i++) a[i] /= n;
  return n;
}
function orthogonalize(a: Float64Array, against: Float64Array): void {
  const p = dot(a, against);
  for (let i = 0; i < a.length; i++) a[i] -= p * against[i];
}

/** Eigen-decomposition of a small symmetric matrix (cyclic Jacobi): eigenvalues and column eigenvectors. */
function jacobi(a: number[][]): { values: number[]; vectors: number[][] } {
  const m = a.length;
  const v: number[][] = a.map((_, i) => a.map((__, j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < m; p++) for (let q = p + 1; q < m; q++) off += a[p][q] ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < m; p++)
      for (let q = p + 1; q < m; q++) {
        if (Math.abs(a[p][q]) < 1e-300) continue;
        const theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const sn = t * c;
        for (let k = 0; k < m; k++) {
          const akp = a[k][p];
          const akq = a[k][q];
          a[k][p] = c * akp - sn * akq;
          a[k][q] = sn * akp + c * akq;
        }
        for (let k = 0; k < m; k++) {
          const apk = a[p][k];
          const aqk = a[q][k];
          a[p][k] = c * apk - sn * aqk;
          a[q][k] = sn * apk + c * aqk;
        }
        for (let k = 0; k < m; k++) {
          const vkp = v[k][p];
          const vkq = v[k][q];
          v[k][p] = c * vkp - sn * vkq;
          v[k][q] = sn * vkp + c * vkq;
        }
      }
  }
  return { values: a.map((row, i) => row[i]), vectors: v };
}

/** The first two principal-component scores of `rows` (binary vectors of dimension `dims`). */
export function pca2(rows: SparseRows, dims: number, opts: { maxIter?: number; tol?: number } = {}): Pca2 {
  const n = rows.length;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  if (n < 2) return { x, y, explained: [0, 0] };
  const mean = new Float64Array(dims);
  for (const r of rows) for (let k = 0; k < r.length; k++) mean[r[k]] += 1 / n;
  let total = 0; // trace of the covariance: Σ_j n μ_j (1 − μ_j) / (n − 1) for binary columns
  for (let j = 0; j < dims; j++) total += (n * mean[j] * (1 - mean[j])) / (n - 1);
  if (total <= 1e-12) return { x, y, explained: [0, 0] };

  // A block of a few more vectors than the two wanted converges at the rate λ_{b+1}/λ_2 instead of
  // λ_3/λ_2, which matters: fingerprint spectra decay slowly. Deterministic start (a fixed linear
  // congruential sequence): same data, same map.
  const b = Math.max(2, Math.min(8, n - 1, dims));
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5;
  let basis = Array.from({ length: b }, () => Float64Array.from({ length: dims }, rand));
  const orthonormalize = (vs: Float64Array[]) => {
    for (let i = 0; i < vs.length; i++) {
      for (let j = 0; j < i; j++) orthogonalize(vs[i], vs[j]);
      if (normalize(vs[i]) === 0) vs[i][i % dims] = 1; // a degenerate direction: any unit vector
    }
  };
  orthonormalize(basis);
  const u = new Float64Array(n);
  for (let it = 0; it < (opts.maxIter ?? 500); it++) {
    const next = basis.map((v) => {
      const w = new Float64Array(dims);
      project(rows, mean, v, u);
      backProject(rows, mean, u, w);
      return w;
    });
    orthonormalize(next);
    // Converged when the two leading directions stay in the span of the old basis.
    let worst = 1;
    for (let i = 0; i < 2; i++) {
      let s = 0;
      for (const v of basis) s += dot(next[i], v) ** 2;
      worst = Math.min(worst, s);
    }
    basis = next;
    if (1 - worst < (opts.tol ?? 1e-20)) break;
  }
  // Rayleigh–Ritz: the eigenvectors of Bᵀ C B rotate the basis onto the principal components.
  const proj = basis.map((v) => {
    const p = new Float64Array(n);
    project(rows, mean, v, p);
    return p;
  });
  const h = proj.map((pi) => proj.map((pj) => dot(pi, pj) / (n - 1)));
  const { values, vectors } = jacobi(h);
  const order = values.map((_, i) => i).sort((i, j) => values[j] - values[i]);
  const components = order.slice(0, 2).map((c) => {
    const out = new Float64Array(dims);
    for (let k = 0; k < b; k++) for (let j = 0; j < dims; j++) out[j] += vectors[k][c] * basis[k][j];
    let big = 0;
    for (let j = 1; j < dims; j++) if (Math.abs(out[j]) > Math.abs(out[big]) + 1e-12) big = j;
    if (out[big] < 0) for (let j = 0; j < dims; j++) out[j] = -out[j];
    return out;
  });
  project(rows, mean, components[0], x);
  project(rows, mean, components[1], y);
  return { x, y, explained: [values[order[0]] / total, values[order[1]] / total] };
}
