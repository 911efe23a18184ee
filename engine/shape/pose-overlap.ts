/**
 * The alignment's objective: the Gaussian overlap O of a probe moved onto a fixed reference, and its
 * gradient. Parameters: an unnormalised quaternion q (the rotation is that of q/|q|) and a
 * translation t; the probe atoms move to y_j = R(q)·x_j + t. The analytic gradient follows from
 * dO/dy_j through dO/dt = Σ g_j and dO/dR = Σ g_j x_jᵀ, then the chain rule through R(q).
 */
import type { PairTable } from './gaussian.ts';

/** Pairs whose exponent k·d² exceeds this contribute < 6e-6 of their maximum: skipped while optimising. */
export const OPT_CUTOFF = 12;

// exp(−e) for 0 ≤ e < OPT_CUTOFF while optimising: a table at steps of 1/64 times a 3rd-order Taylor
// term (relative error < 3e-9), several times cheaper than Math.exp; exact scores use Math.exp.
const STEPS = 64;
const EXP_TABLE = Float64Array.from({ length: OPT_CUTOFF * STEPS + 2 }, (_, i) => Math.exp(-i / STEPS));

export interface Pose {
  /** Quaternion (w, x, y, z), not necessarily normalised, and translation. */
  p: Float64Array;
  overlap: number;
}

/** Objective evaluations so far in this thread (read by the benchmarks; costs one increment). */
export const optimizerStats = { evaluations: 0 };

/** R(q/|q|) row-major into r. */
export function rotationOf(p: ArrayLike<number>, r: Float64Array): void {
  const w = p[0];
  const x = p[1];
  const y = p[2];
  const z = p[3];
  const n = w * w + x * x + y * y + z * z;
  r[0] = (w * w + x * x - y * y - z * z) / n;
  r[1] = (2 * (x * y - w * z)) / n;
  r[2] = (2 * (x * z + w * y)) / n;
  r[3] = (2 * (x * y + w * z)) / n;
  r[4] = (w * w - x * x + y * y - z * z) / n;
  r[5] = (2 * (y * z - w * x)) / n;
  r[6] = (2 * (x * z - w * y)) / n;
  r[7] = (2 * (y * z + w * x)) / n;
  r[8] = (w * w - x * x - y * y + z * z) / n;
}

/** Scratch buffers of one probe size, reused across evaluations (no allocation in the loop). */
export interface Workspace {
  r: Float64Array;
  g: Float64Array;
}

export const workspace = (probeAtoms: number): Workspace => ({
  r: new Float64Array(9),
  g: new Float64Array(probeAtoms * 3),
});

/**
 * Overlap O of the probe atoms (table rows, frame xyz `probe`) moved by pose p with the reference atoms
 * (table columns, xyz `ref`); writes dO/dp (7 values) into `grad` when given. Probe-major loops keep
 * each probe atom's gradient in registers.
 */
export function overlapAt(
  t: PairTable,
  ref: Float64Array,
  probe: Float64Array,
  p: Float64Array,
  ws: Workspace,
  grad?: Float64Array,
  cutoff = OPT_CUTOFF,
): number {
  const { na, nb, w, k } = t;
  const { r, g } = ws;
  const fast = cutoff <= OPT_CUTOFF;
  optimizerStats.evaluations++;
  rotationOf(p, r);
  if (!grad) return overlapValue(t, ref, probe, p, r, cutoff, fast);
  let sum = 0;
  for (let j = 0; j < na; j++) {
    const px = probe[3 * j];
    const py = probe[3 * j + 1];
    const pz = probe[3 * j + 2];
    const mx = r[0] * px + r[1] * py + r[2] * pz + p[4];
    const my = r[3] * px + r[4] * py + r[5] * pz + p[5];
    const mz = r[6] * px + r[7] * py + r[8] * pz + p[6];
    const row = j * nb;
    let gx = 0;
    let gy = 0;
    let gz = 0;
    for (let i = 0; i < nb; i++) {
      const dx = mx - ref[3 * i];
      const dy = my - ref[3 * i + 1];
      const dz = mz - ref[3 * i + 2];
      const kk = k[row + i];
      const e = kk * (dx * dx + dy * dy + dz * dz);
      if (e >= cutoff) continue;
      let v: number;
      if (fast) {
        const f = e * STEPS;
        const fi = f | 0;
        const d = (f - fi) / STEPS;
        v = w[row + i] * EXP_TABLE[fi] * (1 - d * (1 - d * (0.5 - d / 6)));
      } else v = w[row + i] * Math.exp(-e);
      sum += v;
      const s = kk * v;
      gx += s * dx;
      gy += s * dy;
      gz += s * dz;
    }
    g[3 * j] = -2 * gx;
    g[3 * j + 1] = -2 * gy;
    g[3 * j + 2] = -2 * gz;
  }
  quaternionGradient(probe, p, r, g, na, grad);
  return sum;
}

/**
 * overlapAt without the gradient (the screening of every start, the exact rescoring): the same terms
 * summed in the same order, so the same value to the last bit, for about two thirds of the work.
 */
function overlapValue(
  t: PairTable,
  ref: Float64Array,
  probe: Float64Array,
  p: Float64Array,
  r: Float64Array,
  cutoff: number,
  fast: boolean,
): number {
  const { na, nb, w, k } = t;
  let sum = 0;
  for (let j = 0; j < na; j++) {
    const px = probe[3 * j];
    const py = probe[3 * j + 1];
    const pz = probe[3 * j + 2];
    const mx = r[0] * px + r[1] * py + r[2] * pz + p[4];
    const my = r[3] * px + r[4] * py + r[5] * pz + p[5];
    const mz = r[6] * px + r[7] * py + r[8] * pz + p[6];
    const row = j * nb;
    for (let i = 0; i < nb; i++) {
      const dx = mx - ref[3 * i];
      const dy = my - ref[3 * i + 1];
      const dz = mz - ref[3 * i + 2];
      const e = k[row + i] * (dx * dx + dy * dy + dz * dz);
      if (e >= cutoff) continue;
      if (fast) {
        const f = e * STEPS;
        const fi = f | 0;
        const d = (f - fi) / STEPS;
        sum += w[row + i] * EXP_TABLE[fi] * (1 - d * (1 - d * (0.5 - d / 6)));
      } else sum += w[row + i] * Math.exp(-e);
    }
  }
  return sum;
}

/** dO/dp from the per-atom gradients g_j = dO/dy_j of the moved probe atoms. */
export function quaternionGradient(
  probe: Float64Array,
  p: Float64Array,
  r: Float64Array,
  g: Float64Array,
  nb: number,
  grad: Float64Array,
): void {
  // G = Σ_j g_j x_jᵀ (dO/dR), and dO/dt = Σ_j g_j.
  let g00 = 0,
    g01 = 0,
    g02 = 0,
    g10 = 0,
    g11 = 0,
    g12 = 0,
    g20 = 0,
    g21 = 0,
    g22 = 0;
  let tx = 0,
    ty = 0,
    tz = 0;
  for (let j = 0; j < nb; j++) {
    const x = probe[3 * j];
    const y = probe[3 * j + 1];
    const z = probe[3 * j + 2];
    const a = g[3 * j];
    const b = g[3 * j + 1];
    const c = g[3 * j + 2];
    g00 += a * x;
    g01 += a * y;
    g02 += a * z;
    g10 += b * x;
    g11 += b * y;
    g12 += b * z;
    g20 += c * x;
    g21 += c * y;
    g22 += c * z;
    tx += a;
    ty += b;
    tz += c;
  }
  const [qw, qx, qy, qz] = [p[0], p[1], p[2], p[3]];
  const n = qw * qw + qx * qx + qy * qy + qz * qz;
  // Σ G∘R, for the derivative of the 1/|q|² normalisation.
  const gr =
    g00 * r[0] +
    g01 * r[1] +
    g02 * r[2] +
    g10 * r[3] +
    g11 * r[4] +
    g12 * r[5] +
    g20 * r[6] +
    g21 * r[7] +
    g22 * r[8];
  // Σ G∘dM/dq_k with M the unnormalised rotation matrix (each dM/dq_k is 2 × a matrix of q's entries).
  const dw =
    2 * (g00 * qw - g01 * qz + g02 * qy + g10 * qz + g11 * qw - g12 * qx - g20 * qy + g21 * qx + g22 * qw);
  const dx =
    2 * (g00 * qx + g01 * qy + g02 * qz + g10 * qy - g11 * qx - g12 * qw + g20 * qz + g21 * qw - g22 * qx);
  const dy =
    2 * (-g00 * qy + g01 * qx + g02 * qw + g10 * qx + g11 * qy + g12 * qz - g20 * qw + g21 * qz - g22 * qy);
  const dz =
    2 * (-g00 * qz - g01 * qw + g02 * qx + g10 * qw - g11 * qz + g12 * qy + g20 * qx + g21 * qy + g22 * qz);
  grad[0] = dw / n - (2 * qw * gr) / n;
  grad[1] = dx / n - (2 * qx * gr) / n;
  grad[2] = dy / n - (2 * qy * gr) / n;
  grad[3] = dz / n - (2 * qz * gr) / n;
  grad[4] = tx;
  grad[5] = ty;
  grad[6] = tz;
}
