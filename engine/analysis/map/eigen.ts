/** Small dense symmetric eigenproblems (cyclic Jacobi) and Gram–Schmidt, for the PCA solvers. */

/**
 * Eigenvalues and eigenvectors of a symmetric p × p matrix (row-major, not modified): cyclic
 * Jacobi rotations until the off-diagonal mass is below 1e-30 of the total. Returns values in
 * descending order and vectors as columns of a p × p row-major matrix in the same order.
 */
export function symmetricEigen(a: Float64Array, p: number): { values: Float64Array; vectors: Float64Array } {
  const m = Float64Array.from(a);
  const v = new Float64Array(p * p);
  for (let i = 0; i < p; i++) v[i * p + i] = 1;
  let total = 0;
  for (const x of m) total += x * x;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let i = 0; i < p; i++) for (let j = i + 1; j < p; j++) off += m[i * p + j] ** 2;
    if (off <= 1e-30 * total || off === 0) break;
    for (let i = 0; i < p; i++)
      for (let j = i + 1; j < p; j++) {
        const aij = m[i * p + j];
        if (aij === 0) continue;
        const theta = (m[j * p + j] - m[i * p + i]) / (2 * aij);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < p; k++) {
          const mki = m[k * p + i];
          const mkj = m[k * p + j];
          m[k * p + i] = c * mki - s * mkj;
          m[k * p + j] = s * mki + c * mkj;
        }
        for (let k = 0; k < p; k++) {
          const mik = m[i * p + k];
          const mjk = m[j * p + k];
          m[i * p + k] = c * mik - s * mjk;
          m[j * p + k] = s * mik + c * mjk;
        }
        for (let k = 0; k < p; k++) {
          const vki = v[k * p + i];
          const vkj = v[k * p + j];
          v[k * p + i] = c * vki - s * vkj;
          v[k * p + j] = s * vki + c * vkj;
        }
      }
  }
  const order = Array.from({ length: p }, (_, i) => i).sort((x, y) => m[y * p + y] - m[x * p + x] || x - y);
  const values = Float64Array.from(order, (i) => m[i * p + i]);
  const vectors = new Float64Array(p * p);
  order.forEach((src, dst) => {
    for (let k = 0; k < p; k++) vectors[k * p + dst] = v[k * p + src];
  });
  return { values, vectors };
}

/** Orthonormalises the columns of a d × p column-major block in place (modified Gram–Schmidt, twice). */
export function orthonormalize(cols: Float64Array[], seedFill: (col: Float64Array) => void): void {
  for (let pass = 0; pass < 2; pass++)
    for (let j = 0; j < cols.length; j++) {
      const x = cols[j];
      for (let i = 0; i < j; i++) {
        const y = cols[i];
        let dot = 0;
        for (let k = 0; k < x.length; k++) dot += x[k] * y[k];
        for (let k = 0; k < x.length; k++) x[k] -= dot * y[k];
      }
      let norm = 0;
      for (let k = 0; k < x.length; k++) norm += x[k] * x[k];
      norm = Math.sqrt(norm);
      if (norm < 1e-300) {
        // a column fell into the span of the others: restart it and orthogonalise again
        seedFill(x);
        j--;
        continue;
      }
      for (let k = 0; k < x.length; k++) x[k] /= norm;
    }
}
