/**
 * Principal component analysis of binary fingerprints, for the 2D map of a result set when the
 * service has no visualise operation. Pure: typed arrays in, typed arrays out, no DOM.
 *
 * Rows are the on-bit indices of each fingerprint (Morgan fingerprints have ~30–60 of 2048 bits
 * set), so the centred data X − 1μᵀ is never formed: products with it cost O(total on-bits + d).
 * Two components come from subspace iteration on the covariance with Gram–Schmidt, then a 2×2
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
  if (total <= 0) return { x, y, explained: [0, 0] };

  // Deterministic start (a fixed linear congruential sequence): same data, same map.
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5;
  const v1 = Float64Array.from({ length: dims }, rand);
  const v2 = Float64Array.from({ length: dims }, rand);
  normalize(v1);
  orthogonalize(v2, v1);
  normalize(v2);
  const u = new Float64Array(n);
  const w1 = new Float64Array(dims);
  const w2 = new Float64Array(dims);
  for (let it = 0; it < (opts.maxIter ?? 1000); it++) {
    project(rows, mean, v1, u);
    backProject(rows, mean, u, w1);
    project(rows, mean, v2, u);
    backProject(rows, mean, u, w2);
    normalize(w1);
    orthogonalize(w2, w1);
    normalize(w2);
    // Converged when the new basis spans the old one (both principal angles ≈ 0).
    const c = Math.min(Math.hypot(dot(w1, v1), dot(w1, v2)), Math.hypot(dot(w2, v1), dot(w2, v2)));
    v1.set(w1);
    v2.set(w2);
    if (1 - c < (opts.tol ?? 1e-13)) break;
  }
  // Rayleigh–Ritz: eigenvectors of the 2×2 matrix Vᵀ C V rotate the basis onto the components.
  const u1 = new Float64Array(n);
  const u2 = new Float64Array(n);
  project(rows, mean, v1, u1);
  project(rows, mean, v2, u2);
  const a = dot(u1, u1) / (n - 1);
  const b = dot(u1, u2) / (n - 1);
  const d = dot(u2, u2) / (n - 1);
  const theta = 0.5 * Math.atan2(2 * b, a - d);
  const [cs, sn] = [Math.cos(theta), Math.sin(theta)];
  const l1 = a * cs * cs + 2 * b * cs * sn + d * sn * sn;
  const l2 = a * sn * sn - 2 * b * cs * sn + d * cs * cs;
  const c1 = new Float64Array(dims);
  const c2 = new Float64Array(dims);
  for (let j = 0; j < dims; j++) {
    c1[j] = cs * v1[j] + sn * v2[j];
    c2[j] = -sn * v1[j] + cs * v2[j];
  }
  const first = l1 >= l2;
  const [p1, p2] = first ? [c1, c2] : [c2, c1];
  for (const p of [p1, p2]) {
    let big = 0;
    for (let j = 1; j < dims; j++) if (Math.abs(p[j]) > Math.abs(p[big]) + 1e-12) big = j;
    if (p[big] < 0) for (let j = 0; j < dims; j++) p[j] = -p[j];
  }
  project(rows, mean, p1, x);
  project(rows, mean, p2, y);
  const [e1, e2] = first ? [l1, l2] : [l2, l1];
  return { x, y, explained: [e1 / total, e2 / total] };
}
